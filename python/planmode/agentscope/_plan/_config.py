"""``PlanModeConfig``: the options of one ``PlanMode``, validated once and frozen (the gate,
the plan tools and the checks read the same values for the life of the PlanMode)."""

from __future__ import annotations

import inspect
import os
import tempfile
from dataclasses import KW_ONLY, dataclass, field
from typing import Any, Literal

from agentscope.tool import ToolBase

from ..._core import DEFAULT_MAX_PLAN_BYTES, PlanBook, PlanWorkspace, check_actor, plan_relpath
from ...exceptions import InvalidInputError
from ._sandbox_config import SandboxMode, ShellProtection, ShellSandbox

ScopeEnforcement = Literal["off", "ask", "deny"]
SCOPE_ENFORCEMENTS: tuple[ScopeEnforcement, ...] = ("off", "ask", "deny")

SubagentPolicy = Literal["enforce", "ceiling", "off"]
#: The valid ``subagent_policy`` values.
SUBAGENT_POLICIES = ("enforce", "ceiling", "off")


def check_enforcement(value: Any) -> ScopeEnforcement:
    """The ``scope_enforcement`` option, checked."""
    if value not in SCOPE_ENFORCEMENTS:
        raise InvalidInputError(f"unknown scope_enforcement {value!r}: use one of {', '.join(SCOPE_ENFORCEMENTS)}")
    return value  # type: ignore[no-any-return]


@dataclass(frozen=True)
class PlanModeConfig:
    """The validated options of a ``PlanMode`` (each is described there), plus what they
    resolve to: the ``workspace``, the shell ``sandbox`` and the plain plan path. Bad values
    raise ``InvalidInputError`` (or the core's error) naming the option."""

    workspace_dir: str | os.PathLike[str] = "."
    plan_dir: str = "plans"
    _: KW_ONLY
    allow_shell_in_plan_mode: bool = False
    extra_allowed_tools: tuple[str, ...] | list[str] = ()
    auto_approve_in_bypass: bool = False
    subagent_policy: SubagentPolicy = "enforce"
    max_plan_bytes: int = DEFAULT_MAX_PLAN_BYTES
    max_revisions_kept: int = 20
    max_revision_records: int = 200
    max_audit_entries: int = 200
    decision_lease_secs: int = 60
    chat_actor: str = "user"
    chat_answers_may_escalate: bool = False
    per_agent_paths: bool = False
    seed_todos_on_approval: bool = True
    shell_tool_names: tuple[str, ...] | list[str] = ("Bash",)
    shell_tool_types: tuple[type[ToolBase], ...] | list[type[ToolBase]] = ()
    trust_mcp_read_only: frozenset[str] | tuple[str, ...] | list[str] = ()
    shell_sandbox: SandboxMode = "auto"
    sandbox_unclassified: bool = False
    sandbox_network: bool = False
    sandbox_readable: list[str] | tuple[str, ...] | None = None
    scope_enforcement: ScopeEnforcement = "ask"
    #: The workspace plan files live in (checked to exist).
    workspace: PlanWorkspace = field(init=False, repr=False, compare=False)
    #: How plan-mode shell commands run (from ``shell_sandbox`` and the ``sandbox_*`` options).
    sandbox: ShellSandbox = field(init=False, repr=False, compare=False)
    #: The plan file of a lone agent, relative to the workspace (``<plan_dir>/PLAN.md``).
    plain_path: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.subagent_policy not in SUBAGENT_POLICIES:
            raise InvalidInputError(
                f"unknown subagent_policy {self.subagent_policy!r}: use one of {', '.join(SUBAGENT_POLICIES)}"
            )
        for what, names in (("extra_allowed_tools", self.extra_allowed_tools),
                            ("shell_tool_names", self.shell_tool_names),
                            ("trust_mcp_read_only", self.trust_mcp_read_only)):
            if isinstance(names, str) or not all(isinstance(n, str) and n for n in names):
                raise InvalidInputError(f"{what} must be a list of tool names, got {names!r}")
        if isinstance(self.shell_tool_types, type) or not all(
                isinstance(t, type) and issubclass(t, ToolBase) for t in self.shell_tool_types):
            raise InvalidInputError(
                f"shell_tool_types must be a list of ToolBase subclasses, got {self.shell_tool_types!r}")
        if self.max_plan_bytes < 1 or self.max_revisions_kept < 1:
            raise InvalidInputError("max_plan_bytes and max_revisions_kept must be at least 1")
        workspace = PlanWorkspace(self.workspace_dir)
        sandbox = ShellSandbox.configure(
            self.shell_sandbox, self.sandbox_unclassified, allow_shell=self.allow_shell_in_plan_mode,
            allow_network=self.sandbox_network, readable=self.sandbox_readable, workspace=workspace.root)
        plain_path = plan_relpath(self.plan_dir)  # raises PathEscapeError on .. / absolute
        PlanBook(None, max_plan_bytes=self.max_plan_bytes, **self.bounds)  # the core checks the bounds
        if not 1 <= self.decision_lease_secs <= 86_400:
            raise InvalidInputError(f"decision_lease_secs must be between 1 and 86400, got {self.decision_lease_secs}")
        check_actor(self.chat_actor)
        resolved = {"workspace": workspace, "sandbox": sandbox, "plain_path": plain_path,
                    "extra_allowed_tools": tuple(self.extra_allowed_tools), "shell_tool_names": tuple(self.shell_tool_names),
                    "shell_tool_types": tuple(self.shell_tool_types), "trust_mcp_read_only": frozenset(self.trust_mcp_read_only),
                    "scope_enforcement": check_enforcement(self.scope_enforcement)}  # fmt: skip
        for name, value in resolved.items():
            object.__setattr__(self, name, value)

    @property
    def bounds(self) -> dict[str, int]:
        """PlanBook's history limits (max_revisions_kept, max_revision_records, max_audit_entries)."""
        return {"max_revisions_kept": self.max_revisions_kept, "max_revision_records": self.max_revision_records,
                "max_audit_entries": self.max_audit_entries}  # fmt: skip

    @property
    def shell_protection(self) -> ShellProtection:
        """What protects plan-mode shell commands: ``none``, ``classifier``,
        ``classifier+sandbox`` or ``sandbox``."""
        return self.sandbox.protection

    def trusts_mcp_hint(self, tool: ToolBase) -> bool:
        """Whether ``trust_mcp_read_only`` names this MCP tool's server or the tool itself."""
        server = getattr(tool, "mcp_name", None)
        raw = getattr(getattr(tool, "_tool", None), "name", None)
        return server in self.trust_mcp_read_only or f"{server}/{raw}" in self.trust_mcp_read_only

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
