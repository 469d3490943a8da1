"""``PlanMode``: the object users create once; it hands out the plan tools, the middleware
and sub-agent attachment. Its options are a frozen ``PlanModeConfig`` (``plan.config``), its
plan files a ``PlanFiles`` (``plan.files``)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from agentscope.tool import ToolBase

from ..._core import DEFAULT_MAX_PLAN_BYTES
from ...exceptions import InvalidInputError
from . import _tools
from ._config import SUBAGENT_POLICIES, PlanModeConfig, ScopeEnforcement, SubagentPolicy
from ._gate import PlanModeMiddleware
from ._host import PlanHost
from ._sandbox_config import SandboxMode, ShellProtection

if TYPE_CHECKING:
    from agentscope.agent import Agent


class PlanMode(PlanHost):
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
        super().__init__(PlanModeConfig(
            workspace_dir,
            plan_dir,
            allow_shell_in_plan_mode=allow_shell_in_plan_mode,
            extra_allowed_tools=extra_allowed_tools,
            auto_approve_in_bypass=auto_approve_in_bypass,
            subagent_policy=subagent_policy,
            max_plan_bytes=max_plan_bytes,
            max_revisions_kept=max_revisions_kept,
            max_revision_records=max_revision_records,
            max_audit_entries=max_audit_entries,
            decision_lease_secs=decision_lease_secs,
            chat_actor=chat_actor,
            chat_answers_may_escalate=chat_answers_may_escalate,
            per_agent_paths=per_agent_paths,
            seed_todos_on_approval=seed_todos_on_approval,
            shell_tool_names=shell_tool_names,
            shell_tool_types=shell_tool_types,
            trust_mcp_read_only=trust_mcp_read_only,
            shell_sandbox=shell_sandbox,
            sandbox_unclassified=sandbox_unclassified,
            sandbox_network=sandbox_network,
            sandbox_readable=sandbox_readable,
            scope_enforcement=scope_enforcement,
        ))
        self._middleware: PlanModeMiddleware | None = None

    def __repr__(self) -> str:
        config = self.config
        return (
            f"PlanMode(workspace_dir={config.workspace.root!r}, plan_dir={config.plan_dir!r}, "
            f"allow_shell_in_plan_mode={config.allow_shell_in_plan_mode}, "
            f"subagent_policy={config.subagent_policy!r}, "
            f"shell_sandbox={config.sandbox.mode!r}, "
            f"sandbox_unclassified={config.sandbox.unclassified})"
        )

    @classmethod
    def check_options(cls, **options: Any) -> None:
        """Validates PlanMode options without a workspace (``PlanModeWiring`` uses it at
        construction, before any session exists): an unknown option or a bad value raises
        ``InvalidInputError`` naming it."""
        PlanModeConfig.check_options(**options)

    @property
    def shell_protection(self) -> ShellProtection:
        """What protects plan-mode shell commands: ``none``, ``classifier``,
        ``classifier+sandbox`` or ``sandbox``."""
        return self.config.shell_protection

    # ---- what users plug into an Agent -------------------------------------------------

    def tools(self) -> list[ToolBase]:
        """plan_enter, plan_write, plan_exit, todo_write and the four Task tools."""
        return _tools.plan_tools(self)

    def middleware(self) -> PlanModeMiddleware:
        """The gate, the approval hook and the model notes. Put it FIRST in ``middlewares``."""
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
        chosen = policy or self.config.subagent_policy
        if chosen not in SUBAGENT_POLICIES:
            raise InvalidInputError(f"unknown policy {chosen!r}: use one of {', '.join(SUBAGENT_POLICIES)}")
        lists = ("_reply_middlewares", "_reasoning_middlewares", "_check_permission_middlewares")
        if not all(isinstance(getattr(child, name, None), list) for name in lists):
            raise InvalidInputError(f"attach_child expects an agentscope Agent, got {type(child).__name__}")
        if any(isinstance(m, PlanModeMiddleware) for m in child._check_permission_middlewares):
            raise InvalidInputError(f"agent {child.name!r} already has a plan-mode middleware")
        mw = PlanModeMiddleware(self, parent=parent, policy=chosen, plan_tools=plan_tools)
        for name in lists:
            getattr(child, name).insert(0, mw)
        return mw
