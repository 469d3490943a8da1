"""The approved scope in the build phase: a write or a shell command outside the scope the
approved plan declared asks the human through AgentScope's confirmation (or is denied: under
``scope_enforcement="deny"``, and under DONT_ASK where nobody can answer), and is recorded in
the audit log as drift. The Rust core parses the scope and judges paths and commands."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from agentscope.message import ToolCallState
from agentscope.permission import PermissionBehavior, PermissionDecision, PermissionMode
from agentscope.tool import ToolBase

from . import _identity as kinds, _state
from ._shell import shell_is_read_only

if TYPE_CHECKING:
    from agentscope.agent import Agent

    from ._host import PlanHost

#: Where writing tools name the file they change (AgentScope's Write/Edit use ``file_path``).
PATH_KEYS = ("file_path", "path", "notebook_path")

_IGNORED_KINDS = (kinds.TASK, kinds.AGENT_CONTEXT, kinds.TEAM_SPAWN, kinds.TEAM_MESSAGE)


async def _target(plan: PlanHost, tool: ToolBase, kind: str, tool_input: dict[str, Any]) -> tuple[str, str | None] | None:
    """What the call would touch: ``("command", cmd)`` or ``("path", relpath)``; None when it
    changes nothing (read-only); a value of None when it cannot be told (never in scope)."""
    if kind == kinds.SHELL:
        if await shell_is_read_only(tool, tool_input):
            return None
        command = tool_input.get("command")
        return "command", command if isinstance(command, str) else None
    try:
        if await tool.check_read_only(tool_input) is True:
            return None
    except Exception:  # a checker that fails proves nothing: treat it as a write
        pass
    raw = next((tool_input[k] for k in PATH_KEYS if isinstance(tool_input.get(k), str)), None)
    if raw is None:
        return "path", None
    root = plan.files.workspace.root
    full = os.path.normpath(os.path.join(root, raw))
    rel = os.path.relpath(full, root)
    return "path", None if rel.startswith("..") else rel.replace(os.sep, "/")


async def scope_decision(plan: PlanHost, agent: Agent, tool: ToolBase, kind: str, tool_call: Any,
                         tool_input: dict[str, Any]) -> PermissionDecision | None:
    """The decision for a call outside the approved scope, or None to let the normal rules decide."""
    if plan.config.scope_enforcement == "off" or kind in _IGNORED_KINDS or tool_call.state == ToolCallState.ALLOWED:
        return None
    if _state.peek_phase(agent.state) not in ("building", None):
        return None
    book = _state.load(agent.state)
    if book.approved_scope() is None:
        return None
    target = await _target(plan, tool, kind, tool_input)
    if target is None:
        return None
    what, value = target
    if value is not None and book.scope_allows(what, value):
        return None
    shown = "an unknown path" if value is None else f"{what} {value!r}"
    book.record_drift(f"{tool.name}: {shown} is outside the approved scope")
    _state.save(agent.state, book)
    text = (f"{tool.name} would touch {shown}, outside the scope of the approved plan "
            f"(revision {book.approved_revision}). ")
    mode = agent.state.permission_context.mode
    if plan.config.scope_enforcement == "deny" or mode == PermissionMode.DONT_ASK:
        why = "scope_enforcement is 'deny'" if plan.config.scope_enforcement == "deny" else "no human can be asked (DONT_ASK)"
        return PermissionDecision(behavior=PermissionBehavior.DENY, message=text + f"Denied: {why}. "
                                  "Stay inside the plan's Scope, or enter plan mode and get a wider scope approved.")
    return PermissionDecision(behavior=PermissionBehavior.ASK, message=text + "Allow it anyway?",
                              bypass_immune=True, suggested_rules=[])
