"""Which tool is which, decided by identity (the tool object and its class), never by name.

- planmode's own tools: the exact classes ``PlanEnter``, ``PlanWrite``, ``PlanExit``,
  ``TodoWrite``, bound to the ``PlanMode`` whose gate asks (a copy bound to another
  ``PlanMode`` is an ordinary tool here, and an error at the first reply);
- the Task tools: planmode's drop-ins and AgentScope's own classes;
- the shells: AgentScope's ``Bash`` / ``PowerShell`` and their subclasses, the classes in
  ``PlanMode(shell_tool_types=...)``, and — only ever stricter — tools named in
  ``shell_tool_names``;
- AgentScope's app team tools, whose ``is_read_only=True`` does not mean "changes nothing";
- MCP tools (``agentscope.tool.MCPTool``), whose read-only flag is the server's hint;
- the agent's own ``CompressContext`` tool (the very object the Agent built).

Everything else is ``OTHER``: its own ``check_read_only`` decides.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agentscope import tool as as_tool
from agentscope.tool import MCPTool, ToolBase

from ...exceptions import PlanModeError
from .. import _tasks
from ._texts import PLAN_ENTER, PLAN_EXIT, PLAN_WRITE, TASK_TOOL_NAMES, TODO_WRITE
from ._tools import PlanEnter, PlanExit, PlanWrite, TodoWrite

if TYPE_CHECKING:
    from agentscope.agent import Agent

    from ._host import PlanHost

# Kinds. A planmode tool's kind is its tool name, so the gate can compare kinds with names.
TASK = "task"
SHELL = "shell"
TEAM_SPAWN = "team_spawn"
"""TeamCreate, AgentCreate, AgentInvite: organise a team and start workers."""
TEAM_MESSAGE = "team_message"
"""TeamSay: messages between the leader and its workers."""
TEAM_DELETE = "team_delete"
"""TeamDelete: deletes the workers' agents, sessions and workspace state (irreversible)."""
AGENT_CONTEXT = "agent_context"
MCP = "mcp"
OTHER = "other"


def _plan_classes() -> dict[type, str]:
    return {PlanEnter: PLAN_ENTER, PlanWrite: PLAN_WRITE, PlanExit: PLAN_EXIT, TodoWrite: TODO_WRITE}


def _task_classes() -> dict[type, str]:
    """planmode's Task drop-ins and AgentScope's own Task tools, class -> tool name."""
    found: dict[type, str] = {}
    for name in TASK_TOOL_NAMES:
        for module in (_tasks, as_tool):
            cls = getattr(module, name, None)
            if isinstance(cls, type):
                found[cls] = name
    return found


def _team_classes() -> dict[type, str]:
    """AgentScope's app team tools (the app is optional: none when it cannot be imported)."""
    try:
        from agentscope.app._tool import AgentCreate, AgentInvite, TeamCreate, TeamDelete, TeamSay
    except ImportError:  # pragma: no cover - agentscope without its app
        return {}
    return {TeamCreate: TEAM_SPAWN, AgentCreate: TEAM_SPAWN, AgentInvite: TEAM_SPAWN,
            TeamSay: TEAM_MESSAGE, TeamDelete: TEAM_DELETE}


def team_tool_base() -> type | None:
    """The base class of AgentScope's app team tools, if the app is installed."""
    try:
        from agentscope.app._tool._team_tool_base import _TeamToolBase
    except ImportError:  # pragma: no cover - agentscope without its app
        return None
    return _TeamToolBase


class ToolIdentity:
    """Classifies tools for one ``PlanMode``; the answer per class is cached."""

    def __init__(self, plan: PlanHost) -> None:
        self.plan = plan
        self._plan_classes = _plan_classes()
        self._task_classes = _task_classes()
        self._team_classes = _team_classes()
        self._shells: tuple[type, ...] = (as_tool.Bash, as_tool.PowerShell, *plan.config.shell_tool_types)
        self._by_class: dict[type, str] = {}

    def kind(self, agent: Agent, tool: ToolBase) -> str:
        """The kind of ``tool`` (a planmode tool's kind is its tool name)."""
        cls = type(tool)
        kind = self._by_class.get(cls)
        if kind is None:
            kind = self._by_class[cls] = self._class_kind(cls)
        if kind in _PLAN_KINDS:
            return kind if getattr(tool, "plan", None) is self.plan else OTHER
        if kind == OTHER:
            if tool is getattr(agent, "_compression_tool", None):
                return AGENT_CONTEXT
            if self.plan.config.shell_tool_names and tool.name in self.plan.config.shell_tool_names:
                return SHELL  # a name only ever makes a tool stricter (a shell's checks and more)
        return kind

    def _class_kind(self, cls: type) -> str:
        if cls in self._plan_classes:
            return self._plan_classes[cls]
        if cls in self._task_classes:
            return TASK
        for team_cls, kind in self._team_classes.items():
            if issubclass(cls, team_cls):
                return kind
        if issubclass(cls, MCPTool):
            return MCP
        if issubclass(cls, self._shells):
            return SHELL
        return OTHER

    def check_toolkit(self, agent: Agent) -> None:
        """Refuses a toolkit where another tool shares a name with one of this PlanMode's
        tools (the model would call it, or planmode's, by a name that means the other), and
        plan tools bound to another ``PlanMode``. The one accepted overlap is AgentScope's
        own Task tool registered *before* planmode's drop-in of the same name in the same
        group (what AgentScope's app does): planmode's is the one that runs."""
        by_name: dict[str, list[tuple[str, ToolBase]]] = {}
        for group in getattr(agent.toolkit, "tool_groups", []):
            for tool in group.tools:
                by_name.setdefault(getattr(tool, "name", None) or "", []).append((group.name, tool))
        for name, entries in by_name.items():
            ours = [t for _, t in entries if self._is_ours(t)]
            if not ours and not any(type(t) in self._plan_classes for _, t in entries):
                continue
            strangers = [t for g, t in entries if not self._is_ours(t)]
            for tool in strangers:
                if type(tool) in self._plan_classes:
                    raise PlanModeError(
                        f"tool {name!r} of agent {agent.name!r} belongs to another PlanMode "
                        f"({getattr(tool, 'plan', None)!r}); register the tools of the PlanMode whose middleware "
                        "the agent uses: Toolkit(tools=[..., *plan.tools()])"
                    )
            if strangers and not self._accepted_overlap(entries):
                other = strangers[-1]
                raise PlanModeError(
                    f"tool name collision in agent {agent.name!r}: {name!r} is both planmode's "
                    f"{_describe(ours[0])} and {_describe(other)}. planmode recognises its tools "
                    "by identity, so one of them would run under the other's name: rename or "
                    "remove the other tool (planmode's Task tools are drop-ins for AgentScope's)."
                )

    def _is_ours(self, tool: Any) -> bool:
        cls = type(tool)
        if cls in self._plan_classes:
            return getattr(tool, "plan", None) is self.plan
        return cls in self._task_classes and cls.__module__ == _tasks.__name__

    def _accepted_overlap(self, entries: list[tuple[str, ToolBase]]) -> bool:
        """AgentScope's Task tools first, planmode's drop-in last, all in one group."""
        groups = {g for g, _ in entries}
        last = entries[-1][1]
        return (len(groups) == 1 and self._is_ours(last)
                and all(type(t) in self._task_classes for _, t in entries[:-1]))


_PLAN_KINDS = frozenset({PLAN_ENTER, PLAN_WRITE, PLAN_EXIT, TODO_WRITE})


def _describe(tool: Any) -> str:
    cls = type(tool)
    return f"{cls.__module__}.{cls.__qualname__}"
