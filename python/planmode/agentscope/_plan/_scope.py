"""The approved scope in the build phase: a write or a shell command outside the scope the
approved plan declared is recorded in the audit log as drift and then, by ``scope_enforcement``
and the permission mode:

============  ==========================  ===========================================
enforcement   mode                        outcome
============  ==========================  ===========================================
``"deny"``    every mode                  denied, with the reason
``"ask"``     DEFAULT, ACCEPT_EDITS       asks the human (AgentScope's confirmation)
``"ask"``     BYPASS                      the normal rules decide (BYPASS: allowed), drift says so
``"ask"``     DONT_ASK                    denied: no human can be asked
``"ask"``     EXPLORE                     denied: a read-only mode never turns a write into a question
``"off"``     every mode                  the normal rules, no drift
============  ==========================  ===========================================

An "allow anyway" answer is bound to the exact call the human saw: the question is stored in
plan state (tool call id, reply, tool and a digest of its input) and the resumed call passes
only when the core finds the accepted answer for exactly that call; a call marked allowed by
anything else is judged again. The Rust core parses the scope and judges every path (resolved
on the disk) and every simple command."""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any

from agentscope.event import UserConfirmResultEvent
from agentscope.message import ToolCallState
from agentscope.permission import PermissionBehavior, PermissionDecision, PermissionMode
from agentscope.tool import ToolBase

from ...exceptions import InvalidInputError
from . import _identity as kinds, _state
from ._shell import shell_is_read_only

if TYPE_CHECKING:
    from agentscope.agent import Agent

    from ._host import PlanHost

_IGNORED_KINDS = (kinds.TASK, kinds.AGENT_CONTEXT, kinds.TEAM_SPAWN, kinds.TEAM_MESSAGE)


async def _changes_nothing(plan: PlanHost, tool: ToolBase, kind: str, tool_input: dict[str, Any]) -> bool:
    """True when the call is proved read-only (a shell command by both checks; an MCP tool's
    server-declared hint only where the user trusts it)."""
    if kind == kinds.SHELL:
        return await shell_is_read_only(tool, tool_input)
    if kind == kinds.MCP and not plan.config.trusts_mcp_hint(tool):
        return False
    try:
        return await tool.check_read_only(tool_input) is True
    except Exception:  # a checker that fails proves nothing: treat it as a write
        return False


def _outside(plan: PlanHost, book: Any, tool: ToolBase, kind: str, tool_input: dict[str, Any]) -> list[str]:
    """What a writing call would touch outside the approved scope ([]: nothing), judged by the core."""
    root = str(plan.files.workspace.root)
    if kind != kinds.SHELL:
        return list(book.scope_outside(tool_input, root) or [])
    command = tool_input.get("command")
    # AgentScope's Bash runs in its own cwd (the process's when none was given); a working
    # directory in the input moves it further.
    cwd = getattr(tool, "_cwd", root)
    base = os.path.join(root, cwd if isinstance(cwd, str) else os.getcwd())
    for key in ("cwd", "workdir", "working_dir", "directory"):
        if isinstance(tool_input.get(key), str):
            base = os.path.join(base, tool_input[key])
    return list(book.scope_outside(tool_input, root, command=command if isinstance(command, str) else "",
                                   base=base) or [])


def _outcome(enforcement: str, mode: PermissionMode) -> tuple[str, PermissionBehavior | None]:
    """What happens to a call outside the scope: the drift note and the decision (None: the
    normal rules decide)."""
    if enforcement == "deny":
        return "denied: scope_enforcement is 'deny'", PermissionBehavior.DENY
    if mode == PermissionMode.DONT_ASK:
        return "denied: no human can be asked (DONT_ASK)", PermissionBehavior.DENY
    if mode == PermissionMode.EXPLORE:
        return "denied: EXPLORE is read-only", PermissionBehavior.DENY
    if mode == PermissionMode.BYPASS:
        return "not asked: BYPASS skips confirmations, the normal rules decide", None
    return "the human is asked", PermissionBehavior.ASK


async def scope_decision(plan: PlanHost, agent: Agent, tool: ToolBase, kind: str, tool_call: Any,
                         tool_input: dict[str, Any]) -> PermissionDecision | None:
    """The decision for a call outside the approved scope, or None to let the normal rules decide."""
    if plan.config.scope_enforcement == "off" or kind in _IGNORED_KINDS or tool.name in plan.config.extra_allowed_tools:
        return None
    if _state.peek_phase(agent.state) not in ("building", None):
        return None
    if _state.load(agent.state).approved_scope() is None or await _changes_nothing(plan, tool, kind, tool_input):
        return None
    # No await from here on: the calls of one concurrent batch each see the others' records.
    book = _state.load(agent.state)
    try:
        if tool_call.state == ToolCallState.ALLOWED and _asked(agent):
            passed = book.take_scope_pass(tool_call.id, tool.name, tool_input)
            _state.save(agent.state, book)  # the answer is used up; any question about this call is closed
            if passed:
                return None  # the human allowed exactly this call
        outside = _outside(plan, book, tool, kind, tool_input)
    except InvalidInputError as exc:  # an input the core cannot take (NaN, too deep): never in scope
        outside = [f"an input planmode cannot read ({exc})"]
    if not outside:
        return None
    shown = ", ".join(outside)
    note, behavior = _outcome(plan.config.scope_enforcement, agent.state.permission_context.mode)
    if behavior == PermissionBehavior.ASK:
        try:
            book.ask_scope(tool_call.id, agent.state.reply_id, tool.name, tool_input)
        except InvalidInputError:
            note, behavior = "denied: its input cannot be bound to a question", PermissionBehavior.DENY
    book.record_drift(f"{tool.name}: {shown} is outside the approved scope; {note}")
    _state.save(agent.state, book)
    text = (f"{tool.name} would touch {shown}, outside the scope of the approved plan "
            f"(revision {book.approved_revision}). ")
    if behavior is None:
        return None
    if behavior == PermissionBehavior.DENY:
        return PermissionDecision(behavior=behavior, message=text + f"Denied ({note.split(': ', 1)[1]}). "
                                  "Stay inside the plan's Scope, or enter plan mode and get a wider scope approved.")
    return PermissionDecision(behavior=behavior, message=text + "Allow it anyway (this call only)?",
                              bypass_immune=True, suggested_rules=[])


def _asked(agent: Agent) -> bool:
    """Whether any scope question is open (cheap: reads the stored value)."""
    raw = agent.state.middle_context.get(_state.STATE_KEY)
    return isinstance(raw, dict) and bool(raw.get("scope_asks"))


def settle_scope_answers(agent: Agent, inputs: Any) -> None:
    """Takes the human's answers to scope questions from a ``UserConfirmResultEvent``: the core
    accepts one only for the asked call, in the parked reply, with the tool and input the human
    saw. An allow-anyway answer is for that call only: the rules it carries are dropped."""
    if not isinstance(inputs, UserConfirmResultEvent) or not _asked(agent):
        return
    asked = {a.get("tool_call_id") for a in agent.state.middle_context[_state.STATE_KEY]["scope_asks"]}
    book = _state.load(agent.state)
    changed = False
    for result in inputs.confirm_results:
        if result.tool_call.id not in asked:
            continue
        try:
            given = json.loads(result.tool_call.input) if result.tool_call.input else {}
        except (json.JSONDecodeError, TypeError):
            given = None
        changed |= book.answer_scope(result.tool_call.id, agent.state.reply_id, result.tool_call.name,
                                     given if isinstance(given, dict) else None, bool(result.confirmed))
        result.rules = []
    if changed:
        _state.save(agent.state, book)
