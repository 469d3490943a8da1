"""Programmatic control of plan mode: enter, exit, query, and the human's answer.

Every function accepts a live ``Agent`` or a stored ``AgentState`` (as the admin API has)."""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from agentscope.event import ConfirmResult, RequireUserConfirmEvent, UserConfirmResultEvent
from agentscope.message import ToolCallBlock
from agentscope.permission import PermissionBehavior, PermissionMode, PermissionRule
from agentscope.state import AgentState

from ..._core import PlanBook, PlanWorkspace
from ...exceptions import InvalidInputError, PlanStateError
from .._agent_state import state_of
from . import _decision, _lifecycle, _mode_audit, _parked, _state, _texts
from ._gate import PlanModeMiddleware
from ._texts import ANSWER_KEY, PLAN_EXIT

if TYPE_CHECKING:
    from agentscope.agent import Agent

    from ..._core import _AuditEntry, _Grant, _Pending, _Scope, _Step, _StepChange, _Todo, _Trimmed


@dataclass(frozen=True)
class PlanStatus:
    """Where an agent stands in plan mode (a snapshot; JSON-ready through ``to_dict``)."""

    outcome: str
    """never_entered | planning_with_plan | planning_without_plan | exited_with_plan | exited_without_plan"""
    phase: str
    """never_entered | planning | awaiting_approval | building"""
    active: bool
    awaiting_approval: bool
    revision: int | None
    sha256: str | None
    plan_path: str | None
    """The plan file's absolute path (in the workspace it was last used in)."""
    plan_content: str | None
    """The latest revision's text, from state."""
    approved_revision: int | None
    exited_by: str | None
    pending: _Pending | None
    todos: list[_Todo] = field(default_factory=list)
    audit: list[_AuditEntry] = field(default_factory=list)
    revisions: list[dict[str, Any]] = field(default_factory=list)
    """Revision metadata (number, sha256, bytes, author, edited_by_user, at), without text."""
    grants: list[_Grant] = field(default_factory=list)
    """Allow rules granted with the last approval (tool_name, rule_content, revision)."""
    plan_relpath: str | None = None
    """The plan file relative to the workspace (e.g. ``plans/PLAN.md``)."""
    decision_in_flight: dict[str, Any] | None = None
    """The accepted answer waiting for the parked reply to apply it (``live``: it still blocks
    other decisions and forced exits), or None."""
    trimmed: _Trimmed | dict[str, int] = field(default_factory=dict)
    """What bounding the state dropped: revision_texts, revision_records, audit_entries, folded_refusals."""
    shell_protection: str = "none"
    """What protects plan-mode shell commands: ``none`` (no shell while planning),
    ``classifier`` (only commands proven read-only run), ``classifier+sandbox`` (those, inside
    the Landlock sandbox) or ``sandbox`` (any command, inside the sandbox). Read from the
    agent's plan-mode middleware; a stored ``AgentState`` alone carries no configuration, so
    its status says ``none``."""
    shell_sandbox_abi: int | None = None
    """The Landlock ABI version the sandbox uses (None when no sandbox applies)."""
    steps: list[_Step] = field(default_factory=list)
    """The latest revision's steps: ``{id, text, status, files, action}`` (status of the todo carrying
    the step, or None; files and action as written under the step)."""
    step_changes: list[_StepChange] | None = field(default_factory=list)
    """Per-step diff from the previous revision: ``{id, change, text, old_text, moved}``; None when
    the previous revision's text was pruned (``max_revisions_kept``)."""
    scope: _Scope | None = None
    """The scope the latest revision declares: ``{paths, commands}`` (path globs and command
    patterns from its "Scope" / "Files" section), or None."""
    approved_scope: _Scope | None = None
    """The scope the build phase is held to (the declared one, or the reviewer's choice made with
    the approval), or None."""
    progress: list[dict[str, Any]] = field(default_factory=list)
    """In the build phase after an approval: each step of the approved revision as ``{id, text,
    status}`` (``pending`` / ``in_progress`` / ``completed``, from the todo carrying the step)."""

    def to_dict(self) -> dict[str, Any]:
        """A plain-JSON dict of every field."""
        return asdict(self)


def plan_status(agent_or_state: Agent | AgentState) -> PlanStatus:
    """The plan-mode status of an agent (or stored state)."""
    book = _state.load(state_of(agent_or_state))
    return PlanStatus(
        outcome=book.outcome, phase=book.phase, active=book.active,
        awaiting_approval=book.phase == "awaiting_approval", revision=book.revision,
        sha256=book.sha256, plan_path=_absolute(book), plan_content=book.plan_content,
        approved_revision=book.approved_revision, exited_by=book.exited_by, pending=book.pending,
        todos=book.todos, audit=book.audit,
        revisions=[{k: v for k, v in r.items() if k != "content"} for r in book.revisions],
        grants=book.grants, plan_relpath=book.plan_path, decision_in_flight=_in_flight(book),
        trimmed=book.trimmed, steps=book.steps(), step_changes=_step_changes(book),
        scope=book.declared_scope(), approved_scope=book.approved_scope(), progress=_progress(book),
        **_shell_fields(agent_or_state),
    )


def _step_changes(book: PlanBook) -> list[_StepChange] | None:
    try:
        return book.step_diff()
    except InvalidInputError:
        return None  # the previous revision's text was pruned


def _progress(book: PlanBook) -> list[dict[str, Any]]:
    """The approved revision's steps with their status, while building after an approval."""
    if book.phase != "building" or book.approved_revision is None:
        return []
    try:
        steps = book.steps(book.approved_revision)
    except InvalidInputError:
        return []  # the approved revision's text was pruned
    return [{**step, "status": step["status"] or "pending"} for step in steps]


def _in_flight(book: PlanBook) -> dict[str, Any] | None:
    pending = book.pending
    claim = pending.get("claim") if pending is not None else None
    if pending is None or not claim:
        return None
    shown = {k: v for k, v in claim.items() if k != "edited_plan"}
    return {**shown, "tool_call_id": pending["tool_call_id"], "live": book.live_claim is not None}


def _shell_fields(agent_or_state: Agent | AgentState) -> dict[str, Any]:
    """shell_protection and shell_sandbox_abi from the agent's plan-mode middleware."""
    chain = getattr(agent_or_state, "_check_permission_middlewares", [])
    gate = next((m for m in chain if isinstance(m, PlanModeMiddleware)), None)
    if gate is None:
        return {}
    sandbox = gate.plan.config.sandbox
    return {"shell_protection": sandbox.protection,
            "shell_sandbox_abi": sandbox.abi if sandbox.active else None}


def _absolute(book: PlanBook) -> str | None:
    rel = book.plan_path
    if rel is None or book.workspace_dir is None:
        return rel
    return os.path.join(book.workspace_dir, *rel.split("/"))


def is_plan_mode_active(agent_or_state: Agent | AgentState) -> bool:
    """True while the agent plans or waits for approval."""
    return _state.load(state_of(agent_or_state)).active


def _require_gate(agent_or_state: Agent | AgentState) -> None:
    """An Agent without the plan-mode middleware would not be restricted: refuse."""
    if isinstance(agent_or_state, AgentState):
        return
    chain = getattr(agent_or_state, "_check_permission_middlewares", [])
    if not any(isinstance(m, PlanModeMiddleware) for m in chain):
        raise PlanStateError(
            f"agent {getattr(agent_or_state, 'name', '?')!r} has no plan-mode middleware, so plan "
            "mode would not be enforced: build it with middlewares=[plan.middleware(), ...]"
        )


def enter_plan_mode(agent_or_state: Agent | AgentState, *, actor: str = "user") -> PlanStatus:
    """Enters plan mode without a tool call (idempotent; audited with ``actor``)."""
    _require_gate(agent_or_state)
    state = state_of(agent_or_state)
    _lifecycle.enter(state, _state.load(state), actor)
    return plan_status(state)


def exit_plan_mode(agent_or_state: Agent | AgentState, *, actor: str = "user") -> PlanStatus:
    """Ends plan mode without asking a human (audited with ``actor``). A pending approval is
    cancelled and its parked ``plan_exit`` call is closed, so the next message is accepted."""
    state = state_of(agent_or_state)
    book = _state.load(state)
    result = book.force_exit(actor)
    if result is not None and result["cancelled"]:
        _parked.close_parked_call(state, result["cancelled"]["tool_call_id"], _texts.cancelled_by(actor))
    _state.save(state, book)
    return plan_status(state)


def answer_plan(
    event_or_agent_or_state: RequireUserConfirmEvent | Agent | AgentState,
    decision: str,
    feedback: str | None = None,
    edited_plan: str | None = None,
    next_mode: PermissionMode | str | None = None,
    *,
    revision: int | None = None,
    actor: str = "user",
    grants: list[PermissionRule | dict[str, Any]] | None = None,
    scope: dict[str, list[str]] | str | None = None,
) -> UserConfirmResultEvent:
    """Builds the ``UserConfirmResultEvent`` that answers a parked ``plan_exit``.

    ``decision`` is approve, approve_with_edits, request_changes or reject. ``feedback``
    reaches the model verbatim; ``edited_plan`` becomes a new revision marked as edited by the
    user; ``next_mode`` switches the permission mode on approval. Given an Agent or AgentState,
    the parked call is found in state and ``revision`` (if given) must be the pending one.
    ``grants`` (approvals only) are allow rules — ``PermissionRule`` or
    ``{"tool_name", "rule_content"}`` — added on approval and removed when plan mode is
    entered again. ``scope`` (approvals only) replaces the plan's declared scope for the build
    phase: ``{"paths": [...], "commands": [...]}``, or ``"none"`` for no scope; None (or
    ``"declared"``) keeps the declared one. Given an Agent or AgentState and a ``revision``, a human edit of the plan
    file since that revision is recorded as a new revision and PlanStateError names it: the
    answer approves exactly the text reviewed. Every rule is the Rust core's (``InvalidInputError``
    for a malformed answer, ``PlanStateError`` for one that does not fit the pending request).
    Pass the event to ``agent.reply(...)`` in this process. The same event sent from elsewhere
    (e.g. to the app's ``POST /chat/``) counts as the session user's own confirmation: its actor
    is derived on the server and it cannot switch modes, grant rules or widen the scope.
    """
    if not isinstance(decision, str):
        raise InvalidInputError(f"decision must be a str, got {type(decision).__name__}")
    mode = _mode_audit.mode_value(next_mode) if next_mode is not None else None
    if revision is not None and (not isinstance(revision, int) or isinstance(revision, bool)):
        raise InvalidInputError(f"revision must be an int, got {revision!r}")
    answer = {"decision": decision, "actor": actor, "feedback": feedback, "edited_plan": edited_plan,
              "next_mode": mode, "revision": revision,
              "grants": [_grant(g) for g in grants] if grants else None, "scope": scope}  # fmt: skip
    answer = {k: v for k, v in answer.items() if v is not None}
    if isinstance(event_or_agent_or_state, RequireUserConfirmEvent):
        reply_id = event_or_agent_or_state.reply_id
        calls = [c for c in event_or_agent_or_state.tool_calls if c.name == PLAN_EXIT]
        if not calls:
            raise InvalidInputError("the event does not ask to confirm a plan_exit call")
        call = calls[0]
        # The core judges the answer's own fields now; the pending request is judged on apply.
        _judge(PlanBook(), answer, pending_known=False)
    else:
        state = state_of(event_or_agent_or_state)
        book = _state.load(state)
        _sync_before_answer(state, book, revision)
        _judge(book, answer, pending_known=True)
        reply_id = _decision.confirm_event(state, book).reply_id
        call = _parked.find_tool_call(state, book.pending["tool_call_id"])[1]  # type: ignore[index]
    _decision.remember_issued(call.id, answer)
    return UserConfirmResultEvent(
        reply_id=reply_id,
        confirm_results=[ConfirmResult(confirmed=True, tool_call=_with_answer(call, answer))],
    )


def _judge(book: PlanBook, answer: dict[str, Any], *, pending_known: bool) -> None:
    """Asks the core whether it would accept ``answer`` (raises its error when not)."""
    fields = {k: v for k, v in answer.items() if k not in ("decision", "actor")}
    if pending_known:
        book.check_answer(answer["decision"], answer["actor"], **fields)
        return
    # No state at hand: judge the answer against a stand-in request for its own revision.
    probe = PlanBook()
    probe.enter("system")
    probe.write("# plan under review\n")
    probe.request_exit("r", "c")
    fields.pop("revision", None)
    try:
        probe.check_answer(answer["decision"], answer["actor"], **fields)
    except InvalidInputError as exc:
        if "differs from revision" not in str(exc):
            raise


def _sync_before_answer(state: AgentState, book: PlanBook, revision: int | None) -> None:
    """An answer naming a revision approves exactly that text: a human edit of the plan file
    since then is recorded as a new revision and the answer is refused, naming it."""
    if revision is None or book.workspace_dir is None or not os.path.isdir(book.workspace_dir):
        return
    new = book.sync_file(PlanWorkspace(book.workspace_dir), "user")
    if new is not None:
        _state.save(state, book)
        raise PlanStateError(
            f"the plan file was edited since revision {revision} was reviewed: the edit is recorded as "
            f"revision {new}; review revision {new} and answer again"
        )


def _grant(rule: PermissionRule | dict[str, Any]) -> dict[str, Any]:
    if isinstance(rule, PermissionRule):
        if rule.behavior != PermissionBehavior.ALLOW:
            raise InvalidInputError(f"a grant must be an ALLOW rule, got {rule.behavior.value} for {rule.tool_name}")
        return {"tool_name": rule.tool_name, "rule_content": rule.rule_content}
    if isinstance(rule, dict) and isinstance(rule.get("tool_name"), str) and set(rule) <= {"tool_name", "rule_content"}:
        return {"tool_name": rule["tool_name"], "rule_content": rule.get("rule_content")}
    raise InvalidInputError(f"a grant must be a PermissionRule or {{tool_name, rule_content?}}, got {rule!r}")


def _with_answer(call: ToolCallBlock, answer: dict[str, Any]) -> ToolCallBlock:
    try:
        args = json.loads(call.input) if call.input else {}
    except json.JSONDecodeError:
        args = {}
    if not isinstance(args, dict):
        args = {}
    args = {k: v for k, v in args.items() if k == "summary"}
    args[ANSWER_KEY] = answer
    return call.model_copy(update={"input": json.dumps(args)})
