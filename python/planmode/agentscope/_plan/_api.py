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

from ..._core import PlanBook, check_actor, check_plan_text
from ...exceptions import InvalidInputError, PlanStateError
from . import _store, _texts
from ._texts import ANSWER_KEY, PLAN_EXIT

if TYPE_CHECKING:
    from agentscope.agent import Agent

DECISIONS = ("approve", "approve_with_edits", "request_changes", "reject")


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
    pending: dict[str, Any] | None
    todos: list[dict[str, Any]] = field(default_factory=list)
    audit: list[dict[str, Any]] = field(default_factory=list)
    revisions: list[dict[str, Any]] = field(default_factory=list)
    """Revision metadata (number, sha256, bytes, author, edited_by_user, at), without text."""
    grants: list[dict[str, Any]] = field(default_factory=list)
    """Allow rules granted with the last approval (tool_name, rule_content, revision)."""
    plan_relpath: str | None = None
    """The plan file relative to the workspace (e.g. ``plans/PLAN.md``)."""
    steps: list[dict[str, Any]] = field(default_factory=list)
    """The latest revision's steps: ``{id, text, status}`` (status of the todo carrying the step, or None)."""
    step_changes: list[dict[str, Any]] | None = field(default_factory=list)
    """Per-step diff from the previous revision: ``{id, change, text, old_text, moved}``; None when
    the previous revision's text was pruned (``max_revisions_kept``)."""

    def to_dict(self) -> dict[str, Any]:
        """A plain-JSON dict of every field."""
        return asdict(self)


def plan_status(agent_or_state: Agent | AgentState) -> PlanStatus:
    """The plan-mode status of an agent (or stored state)."""
    book = _store.load(_store.state_of(agent_or_state))
    return PlanStatus(
        outcome=book.outcome, phase=book.phase, active=book.active,
        awaiting_approval=book.phase == "awaiting_approval", revision=book.revision,
        sha256=book.sha256, plan_path=_absolute(book), plan_content=book.plan_content,
        approved_revision=book.approved_revision, exited_by=book.exited_by, pending=book.pending,
        todos=book.todos, audit=book.audit,
        revisions=[{k: v for k, v in r.items() if k != "content"} for r in book.revisions],
        grants=book.grants, plan_relpath=book.plan_path,
        steps=book.steps(), step_changes=_step_changes(book),
    )


def _step_changes(book: PlanBook) -> list[dict[str, Any]] | None:
    try:
        return book.step_diff()
    except InvalidInputError:
        return None  # the previous revision's text was pruned


def _absolute(book: PlanBook) -> str | None:
    rel = book.plan_path
    if rel is None or book.workspace_dir is None:
        return rel
    return os.path.join(book.workspace_dir, *rel.split("/"))


def is_plan_mode_active(agent_or_state: Agent | AgentState) -> bool:
    """True while the agent plans or waits for approval."""
    return _store.load(_store.state_of(agent_or_state)).active


def _require_gate(agent_or_state: Agent | AgentState) -> None:
    """An Agent without the plan-mode middleware would not be restricted: refuse."""
    if isinstance(agent_or_state, AgentState):
        return
    from ._gate import PlanModeMiddleware

    chain = getattr(agent_or_state, "_check_permission_middlewares", [])
    if not any(isinstance(m, PlanModeMiddleware) for m in chain):
        raise PlanStateError(
            f"agent {getattr(agent_or_state, 'name', '?')!r} has no plan-mode middleware, so plan "
            "mode would not be enforced: build it with middlewares=[plan.middleware(), ...]"
        )


def enter_plan_mode(agent_or_state: Agent | AgentState, *, actor: str = "user") -> PlanStatus:
    """Enters plan mode without a tool call (idempotent; audited with ``actor``)."""
    _require_gate(agent_or_state)
    state = _store.state_of(agent_or_state)
    _store.enter(state, _store.load(state), actor)
    return plan_status(state)


def exit_plan_mode(agent_or_state: Agent | AgentState, *, actor: str = "user") -> PlanStatus:
    """Ends plan mode without asking a human (audited with ``actor``). A pending approval is
    cancelled and its parked ``plan_exit`` call is closed, so the next message is accepted."""
    state = _store.state_of(agent_or_state)
    book = _store.load(state)
    result = book.force_exit(actor)
    if result is not None and result["cancelled"]:
        _store.close_parked_call(state, result["cancelled"]["tool_call_id"], _texts.cancelled_by(actor))
    _store.save(state, book)
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
) -> UserConfirmResultEvent:
    """Builds the ``UserConfirmResultEvent`` that answers a parked ``plan_exit``.

    ``decision`` is approve, approve_with_edits, request_changes or reject. ``feedback``
    reaches the model verbatim; ``edited_plan`` becomes a new revision marked as edited by the
    user; ``next_mode`` switches the permission mode on approval. Given an Agent or AgentState,
    the parked call is found in state and ``revision`` (if given) must be the pending one.
    ``grants`` (approvals only) are allow rules — ``PermissionRule`` or
    ``{"tool_name", "rule_content"}`` — added on approval and removed when plan mode is
    entered again.
    Pass the event to ``agent.reply(...)`` (or POST it to the app's /chat/).
    """
    answer = _answer(decision, feedback, edited_plan, next_mode, revision, actor)
    if grants:
        if decision not in ("approve", "approve_with_edits"):
            raise InvalidInputError(f"grants apply only to approvals, not to {decision}")
        answer["grants"] = [_grant(g) for g in grants]
    if isinstance(event_or_agent_or_state, RequireUserConfirmEvent):
        reply_id = event_or_agent_or_state.reply_id
        calls = [c for c in event_or_agent_or_state.tool_calls if c.name == PLAN_EXIT]
        if not calls:
            raise InvalidInputError("the event does not ask to confirm a plan_exit call")
        call = calls[0]
    else:
        state = _store.state_of(event_or_agent_or_state)
        pending = _store.load(state).pending
        if pending is None:
            raise PlanStateError("no plan approval is pending")
        if revision is not None and revision != pending["revision"]:
            raise PlanStateError(
                f"the answer is about revision {revision} but revision {pending['revision']} is "
                "awaiting approval"
            )
        found = _store.find_tool_call(state, pending["tool_call_id"])
        if found is None or not _store.is_parked(state, pending["tool_call_id"]):
            raise PlanStateError("the plan_exit call awaiting approval is not parked in the agent's context")
        reply_id, call = pending["reply_id"], found[1]
    return UserConfirmResultEvent(
        reply_id=reply_id,
        confirm_results=[ConfirmResult(confirmed=True, tool_call=_with_answer(call, answer))],
    )


def _answer(decision: str, feedback: str | None, edited_plan: str | None,
            next_mode: PermissionMode | str | None, revision: int | None, actor: str) -> dict[str, Any]:
    if decision not in DECISIONS:
        raise InvalidInputError(f"unknown decision {decision!r}: use one of {', '.join(DECISIONS)}")
    check_actor(actor)
    if feedback is not None and not isinstance(feedback, str):
        raise InvalidInputError(f"feedback must be a str, got {type(feedback).__name__}")
    if edited_plan is not None:
        check_plan_text(edited_plan, what="edited plan")
    mode = _store.mode_value(next_mode) if next_mode is not None else None
    if mode is not None and decision not in ("approve", "approve_with_edits"):
        raise InvalidInputError(f"next_mode applies only to approvals, not to {decision}")
    if revision is not None and (not isinstance(revision, int) or isinstance(revision, bool)):
        raise InvalidInputError(f"revision must be an int, got {revision!r}")
    answer = {"decision": decision, "actor": actor, "feedback": feedback, "edited_plan": edited_plan,
              "next_mode": mode, "revision": revision}
    return {k: v for k, v in answer.items() if v is not None}


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
