"""``PlanMode``: the configuration users create once, and that hands out the plan tools,
the middleware, and sub-agent attachment. It also owns the plan file of each agent."""

from __future__ import annotations

import inspect
import os
import tempfile
import uuid
import weakref
from typing import TYPE_CHECKING, Any, Literal

from agentscope.state import AgentState
from agentscope.tool import ToolBase

from ..._core import DEFAULT_MAX_PLAN_BYTES, PlanBook, PlanWorkspace, check_actor, plan_relpath
from ...exceptions import InvalidInputError, PlanModeError
from . import _state
from ._sandbox_config import SandboxMode, ShellProtection, ShellSandbox
from ._scope import ScopeEnforcement, check_enforcement
from ._texts import TASK_TOOL_NAMES

if TYPE_CHECKING:
    from agentscope.agent import Agent

    from ._gate import PlanModeMiddleware
    from ._identity import ToolIdentity

SubagentPolicy = Literal["enforce", "ceiling", "off"]
_POLICIES = ("enforce", "ceiling", "off")

#: Plain plan paths claimed in this process: absolute path -> owner agent key.
_CLAIMS: dict[str, str] = {}


class PlanMode:
    """Plan mode for AgentScope agents: read-only planning, one plan file, human approval,
    then a build phase.

    >>> plan = PlanMode(workspace_dir=".", plan_dir="plans")
    >>> agent = Agent(..., toolkit=Toolkit(tools=[*my_tools, *plan.tools()]),
    ...               middlewares=[plan.middleware(), *other_middlewares])  # FIRST

    Args:
        workspace_dir: the directory plan files live in (must exist).
        plan_dir: directory of the plan file, relative to the workspace (no ``..``).
        allow_shell_in_plan_mode: let the shell tool run commands proven read-only.
        extra_allowed_tools: more tool names allowed while planning (still subject to the
            normal permission rules).
        auto_approve_in_bypass: under BYPASS, approve ``plan_exit`` without a human.
        subagent_policy: how attached sub-agents are restricted while this agent plans:
            ``enforce`` (they are in plan mode too), ``ceiling`` (their own rules apply,
            but nothing mutating gets through) or ``off``.
        max_plan_bytes: largest plan accepted by ``plan_write``.
        max_revisions_kept: revisions whose full text is kept in state (besides the latest,
            approved and pending ones).
        max_revision_records: revisions whose number, sha256 and size are kept; older ones
            are dropped and counted in ``plan_status(agent).trimmed``.
        max_audit_entries: audit entries kept (older ones are dropped and counted).
        decision_lease_secs: how long an accepted answer that was not applied (its node died)
            blocks another decision or a forced exit.
        chat_actor: the actor recorded for a confirmation that comes from the session user
            (``PlanModeWiring`` sets ``user:<X-User-ID>``); default ``user``.
        chat_answers_may_escalate: let such a confirmation switch the permission mode or
            grant rules (off: only the admin API and in-process ``answer_plan`` may).
        per_agent_paths: always use ``<plan_dir>/<agent>-<key>/PLAN.md``, even for one agent.
        seed_todos_on_approval: seed an empty todo list from the approved plan's numbered steps.
        shell_tool_names: tool names also treated as a shell (``Bash`` by default). A name only
            ever makes a tool stricter; AgentScope's ``Bash`` and ``PowerShell`` (and their
            subclasses) are shells whatever they are called.
        shell_tool_types: your own shell tool classes (ToolBase subclasses; their subclasses too).
        trust_mcp_read_only: MCP servers (``"server"``) or tools (``"server/tool"``) whose
            ``readOnlyHint`` is trusted while planning. By default no MCP hint is: every MCP
            tool is denied while planning.
        shell_sandbox: ``auto`` (default) runs allowed plan-mode shell commands inside the
            Landlock sandbox wherever it works; ``required`` raises ``SandboxUnavailableError``
            here where it cannot work; ``off`` uses the classifier alone.
        sandbox_unclassified: run commands the classifier refuses (``pytest -q``) inside the
            sandbox instead of refusing them (implies shell in plan mode).
        sandbox_network: allow TCP inside the sandbox (denied by default).
        sandbox_readable: ``None`` (the whole filesystem is readable) or a list of absolute
            paths readable besides the workspace and the system and Python directories.
    """

    def __init__(
        self,
        workspace_dir: str | os.PathLike[str] = ".",
        plan_dir: str = "plans",
        *,
        allow_shell_in_plan_mode: bool = False,
        extra_allowed_tools: tuple[str, ...] | list[str] = (),
        auto_approve_in_bypass: bool = False,
        subagent_policy: SubagentPolicy = "enforce",
        max_plan_bytes: int = DEFAULT_MAX_PLAN_BYTES,
        max_revisions_kept: int = 20,
        max_revision_records: int = 200,
        max_audit_entries: int = 200,
        decision_lease_secs: int = 60,
        chat_actor: str = "user",
        chat_answers_may_escalate: bool = False,
        per_agent_paths: bool = False,
        seed_todos_on_approval: bool = True,
        shell_tool_names: tuple[str, ...] | list[str] = ("Bash",),
        shell_tool_types: tuple[type[ToolBase], ...] | list[type[ToolBase]] = (),
        trust_mcp_read_only: tuple[str, ...] | list[str] = (),
        shell_sandbox: SandboxMode = "auto",
        sandbox_unclassified: bool = False,
        sandbox_network: bool = False,
        sandbox_readable: list[str] | tuple[str, ...] | None = None,
        scope_enforcement: ScopeEnforcement = "ask",
    ) -> None:
        if subagent_policy not in _POLICIES:
            raise InvalidInputError(
                f"unknown subagent_policy {subagent_policy!r}: use one of {', '.join(_POLICIES)}"
            )
        for what, names in (("extra_allowed_tools", extra_allowed_tools),
                            ("shell_tool_names", shell_tool_names),
                            ("trust_mcp_read_only", trust_mcp_read_only)):
            if isinstance(names, str) or not all(isinstance(n, str) and n for n in names):
                raise InvalidInputError(f"{what} must be a list of tool names, got {names!r}")
        if isinstance(shell_tool_types, type) or not all(
                isinstance(t, type) and issubclass(t, ToolBase) for t in shell_tool_types):
            raise InvalidInputError(
                f"shell_tool_types must be a list of ToolBase subclasses, got {shell_tool_types!r}")
        if max_plan_bytes < 1 or max_revisions_kept < 1:
            raise InvalidInputError("max_plan_bytes and max_revisions_kept must be at least 1")
        self.workspace = PlanWorkspace(workspace_dir)
        self.shell_sandbox = ShellSandbox.configure(
            shell_sandbox, sandbox_unclassified, allow_shell=allow_shell_in_plan_mode,
            allow_network=sandbox_network, readable=sandbox_readable, workspace=self.workspace.root)
        self.plan_dir = plan_dir
        self._plain_path = plan_relpath(plan_dir)  # raises PathEscapeError on .. / absolute
        self.allow_shell_in_plan_mode = allow_shell_in_plan_mode
        self.extra_allowed_tools = tuple(extra_allowed_tools)
        self.auto_approve_in_bypass = auto_approve_in_bypass
        self.subagent_policy: SubagentPolicy = subagent_policy
        self.max_plan_bytes = max_plan_bytes
        self.max_revisions_kept = max_revisions_kept
        self._bounds = {"max_revisions_kept": max_revisions_kept, "max_revision_records": max_revision_records,
                        "max_audit_entries": max_audit_entries}  # fmt: skip
        PlanBook(None, max_plan_bytes=max_plan_bytes, **self._bounds)  # the core checks the bounds
        if not 1 <= decision_lease_secs <= 86_400:
            raise InvalidInputError(f"decision_lease_secs must be between 1 and 86400, got {decision_lease_secs}")
        check_actor(chat_actor)
        self.decision_lease_secs = decision_lease_secs
        self.chat_actor = chat_actor
        self.chat_answers_may_escalate = chat_answers_may_escalate
        self.per_agent_paths = per_agent_paths
        self.seed_todos_on_approval = seed_todos_on_approval
        self.shell_tool_names = tuple(shell_tool_names)
        self.shell_tool_types = tuple(shell_tool_types)
        self.trust_mcp_read_only = frozenset(trust_mcp_read_only)
        self.scope_enforcement: ScopeEnforcement = check_enforcement(scope_enforcement)
        self._identity: ToolIdentity | None = None
        self._gated: weakref.WeakValueDictionary[int, AgentState] = weakref.WeakValueDictionary()
        self._middleware: PlanModeMiddleware | None = None
        self._primary: weakref.ref[Agent] | None = None

    def __repr__(self) -> str:
        return (
            f"PlanMode(workspace_dir={self.workspace.root!r}, plan_dir={self.plan_dir!r}, "
            f"allow_shell_in_plan_mode={self.allow_shell_in_plan_mode}, "
            f"subagent_policy={self.subagent_policy!r}, "
            f"shell_sandbox={self.shell_sandbox.mode!r}, "
            f"sandbox_unclassified={self.shell_sandbox.unclassified})"
        )

    @classmethod
    def check_options(cls, **options: Any) -> None:
        """Validates PlanMode options without a workspace (``PlanModeWiring`` uses it at
        construction, before any session exists): an unknown option or a bad value raises
        ``InvalidInputError`` naming it."""
        if "workspace_dir" in options:
            raise InvalidInputError("workspace_dir is set per session from the session's workspace; remove it")
        known = [n for n in inspect.signature(cls).parameters if n != "workspace_dir"]
        unknown = sorted(set(options) - set(known))
        if unknown:
            raise InvalidInputError(
                f"unknown plan-mode option{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))}: "
                f"use one of {', '.join(known)}"
            )
        cls(workspace_dir=tempfile.gettempdir(), **options)  # the constructor's own checks

    @property
    def identity(self) -> ToolIdentity:
        """How this PlanMode recognises tools (by identity, never by name)."""
        if self._identity is None:
            from ._identity import ToolIdentity

            self._identity = ToolIdentity(self)
        return self._identity

    def trusts_mcp_hint(self, tool: ToolBase) -> bool:
        """Whether ``trust_mcp_read_only`` names this MCP tool's server or the tool itself."""
        server = getattr(tool, "mcp_name", None)
        raw = getattr(getattr(tool, "_tool", None), "name", None)
        return server in self.trust_mcp_read_only or f"{server}/{raw}" in self.trust_mcp_read_only

    def note_gated(self, state: AgentState) -> None:
        """Records that this PlanMode's gate serves the agent owning ``state`` (in this process)."""
        self._gated[id(state)] = state

    def is_gated(self, state: AgentState) -> bool:
        """Whether this PlanMode's gate has served the agent owning ``state``."""
        return self._gated.get(id(state)) is state

    @property
    def shell_protection(self) -> ShellProtection:
        """What protects plan-mode shell commands: ``none``, ``classifier``,
        ``classifier+sandbox`` or ``sandbox``."""
        return self.shell_sandbox.protection

    # ---- what users plug into an Agent -------------------------------------------------

    def tools(self) -> list[ToolBase]:
        """plan_enter, plan_write, plan_exit, todo_write and the four Task tools."""
        from ._tools import PlanEnter, PlanExit, PlanWrite, TodoWrite

        return [PlanEnter(self), PlanWrite(self), PlanExit(self), TodoWrite(self), *_task_tools()]

    def middleware(self) -> PlanModeMiddleware:
        """The gate, the approval hook and the model notes. Put it FIRST in ``middlewares``."""
        from ._gate import PlanModeMiddleware

        if self._middleware is None:
            self._middleware = PlanModeMiddleware(self)
        return self._middleware

    def attach_child(self, child: Agent, *, parent: Agent | None = None, plan_tools: bool = False,
                     policy: SubagentPolicy | None = None) -> PlanModeMiddleware:
        """Puts a sub-agent under this plan mode: while its parent plans it is read-only
        (per ``policy``, default ``subagent_policy``); it cannot use plan_enter / plan_write /
        plan_exit unless ``plan_tools=True``; its own plan file is namespaced.

        ``parent`` defaults to the agent this PlanMode's middleware serves.
        """
        from ._gate import PlanModeMiddleware

        chosen = policy or self.subagent_policy
        if chosen not in _POLICIES:
            raise InvalidInputError(f"unknown policy {chosen!r}: use one of {', '.join(_POLICIES)}")
        lists = ("_reply_middlewares", "_reasoning_middlewares", "_check_permission_middlewares")
        if not all(isinstance(getattr(child, name, None), list) for name in lists):
            raise InvalidInputError(f"attach_child expects an agentscope Agent, got {type(child).__name__}")
        if any(isinstance(m, PlanModeMiddleware) for m in child._check_permission_middlewares):
            raise InvalidInputError(f"agent {child.name!r} already has a plan-mode middleware")
        mw = PlanModeMiddleware(self, parent=parent, policy=chosen, plan_tools=plan_tools)
        for name in lists:
            getattr(child, name).insert(0, mw)
        return mw

    # ---- the plan file of each agent ---------------------------------------------------

    def note_primary(self, agent: Agent) -> None:
        """Remembers the first agent served by the main middleware (default parent of children)."""
        if self._primary is None or self._primary() is None:
            self._primary = weakref.ref(agent)

    def primary(self) -> Agent | None:
        """The agent the main middleware serves, if known."""
        return self._primary() if self._primary is not None else None

    def load(self, state: AgentState) -> PlanBook:
        """The plan book of ``state`` with this configuration's limits."""
        return _state.load(state, self.max_plan_bytes, **self._bounds)

    def bind(self, state: AgentState, agent_name: str, *, child: bool = False,
             restore: bool = False, assign: bool = False) -> PlanBook:
        """Gives the agent its plan path, once, as soon as it uses plan mode (or ``assign``);
        an agent that never plans leaves no trace. With ``restore``, a plan file missing from
        the workspace is written back from state (another machine, a cleaned checkout)."""
        book = self.load(state)
        root = self.workspace.root
        unbound = book.plan_path is None or book.agent_key is None
        if unbound and (assign or book.active or book.revision is not None):
            key = book.agent_key or uuid.uuid4().hex
            book.bind(key, self._assign_path(agent_name, key, child), root)
            _state.save(state, book)
        elif not unbound and book.workspace_dir != root:  # resumed in another workspace
            book.bind(book.agent_key or "", book.plan_path or "", root)
            _state.save(state, book)
        if restore:
            self._restore_file(state, book)
        return book

    def abs_path(self, book: PlanBook) -> str:
        """The absolute plan file path of a bound book."""
        return self.workspace.path(book.plan_path or self._plain_path)

    def read_plan_file(self, book: PlanBook) -> str | None:
        """The plan file's current text (None if missing)."""
        return self.workspace.read(book.plan_path or self._plain_path, self.max_plan_bytes)

    def write_plan_file(self, book: PlanBook, text: str) -> None:
        """Replaces the plan file atomically."""
        self.workspace.write(book.plan_path or self._plain_path, text)

    def _restore_file(self, state: AgentState, book: PlanBook) -> None:
        """Puts the latest revision back when the file is missing or a stale copy (the agent runs
        on this node now); a human edit or an unreadable file is left for the next decision."""
        try:
            wrote = book.restore_file(self.workspace)
        except (PlanModeError, OSError):
            return
        if wrote:
            _state.save(state, book)

    def _assign_path(self, agent_name: str, key: str, child: bool) -> str:
        if not child and not self.per_agent_paths and self._claim(self._plain_path, key):
            return self._plain_path
        return plan_relpath(self.plan_dir, f"{agent_name}-{key[:8]}")

    def _claim(self, rel: str, key: str) -> bool:
        """Claims the plain plan path for one agent, in this process and on disk."""
        head, _, name = rel.rpartition("/")
        marker = f"{head}/.{name}.owner" if head else f".{name}.owner"
        where = self.workspace.path(rel)
        try:
            owner = self.workspace.read(marker, 256)
        except (PlanModeError, OSError):
            return False
        owner = owner.strip() if owner else None
        if _CLAIMS.get(where, key) != key or (owner and owner != key):
            return False
        self.workspace.write(marker, key)
        _CLAIMS[where] = key
        return True


def _task_tools() -> list[ToolBase]:
    """The four Task tools: planmode's drop-ins when available, else AgentScope's own."""
    from agentscope import tool as as_tool

    from ... import agentscope as pm

    return [getattr(pm, name, getattr(as_tool, name))() for name in sorted(TASK_TOOL_NAMES)]
