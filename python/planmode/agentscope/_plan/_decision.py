"""How a human's answer reaches the parked ``plan_exit`` call, and nothing else does.

Three channels (the Rust core judges what each may carry):

* ``admin``: the admin API claims the answer in state under the session lock, then resumes the
  parked reply; the resumed call applies the claim from state, never the event's payload.
* ``in_process``: ``answer_plan`` in this process; the answer it built is remembered here
  (by call id and content digest), so an event forged elsewhere cannot pass as one.
* ``chat``: any other confirmation of the parked call (a client of the app's chat route, a
  plain ``ConfirmResult``): the session user's own answer. Its actor is derived on the server,
  never taken from the payload, and it cannot switch modes, grant rules or widen the plan's
  scope unless the deployment opts in (``PlanMode(chat_answers_may_escalate=True)``).

A ``plan_exit`` call that arrives already allowed without such an answer (a custom model or
middleware produced it) is refused by the gate: only the exact call parked in state, with an
accepted answer, ends plan mode.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

from agentscope.event import ConfirmResult, UserConfirmResultEvent
from agentscope.state import AgentState

from ..._core import PlanBook, plan_sha256
from ...exceptions import PlanModeError, PlanStateError
from . import _parked
from ._texts import ANSWER_KEY, PLAN_EXIT

if TYPE_CHECKING:
    from ._host import PlanHost

DEFAULT_LEASE_SECS = 60
"""How long an accepted, unapplied answer blocks another decision or a forced exit."""

_ISSUED_MAX = 1024
#: Answers built by ``answer_plan`` in this process: tool call id -> digest of the answer.
_ISSUED: OrderedDict[str, str] = OrderedDict()


def _digest(answer: dict[str, Any]) -> str:
    return plan_sha256(json.dumps(answer, sort_keys=True, separators=(",", ":")))


def remember_issued(tool_call_id: str, answer: dict[str, Any]) -> None:
    """Marks ``answer`` as built in this process for the parked call ``tool_call_id``."""
    _ISSUED[tool_call_id] = _digest(answer)
    _ISSUED.move_to_end(tool_call_id)
    while len(_ISSUED) > _ISSUED_MAX:
        _ISSUED.popitem(last=False)


def _was_issued(tool_call_id: str, answer: dict[str, Any]) -> bool:
    """True when ``answer_plan`` in this process built exactly ``answer`` for this call (kept, so the same
    event may be passed again after a reply that failed)."""
    digest = _ISSUED.get(tool_call_id)
    return digest is not None and digest == _digest(answer)


def _payload_answer(result: ConfirmResult) -> dict[str, Any]:
    try:
        args = json.loads(result.tool_call.input) if result.tool_call.input else {}
    except (json.JSONDecodeError, TypeError):
        return {}
    answer = args.get(ANSWER_KEY) if isinstance(args, dict) else None
    return answer if isinstance(answer, dict) else {}


def accept_confirmation(plan: PlanHost, state: AgentState, book: PlanBook, event: UserConfirmResultEvent) -> bool:
    """Turns the confirmation of the parked ``plan_exit`` call into an accepted answer (a claim in
    state), or refuses it. The confirmation is rewritten to the parked call itself: its name and
    input cannot be changed and it grants no permission rules. Returns True when ``book`` changed."""
    pending = book.pending
    if book.phase != "awaiting_approval" or not pending:
        return False
    call_id = pending["tool_call_id"]
    result = next((r for r in event.confirm_results if r.tool_call.id == call_id and r.confirmed), None)
    if result is None:
        return False
    found = _parked.find_tool_call(state, call_id)
    payload = _payload_answer(result)
    if found is not None:  # the parked call exactly as it was asked, with no rules attached
        result.tool_call = found[1].model_copy()
        result.tool_call.name = PLAN_EXIT
    result.rules = []
    if pending.get("auto") or pending.get("claim"):
        return False  # a policy approval, or an answer already accepted by the admin API
    if _was_issued(call_id, payload):
        channel, actor = "in_process", str(payload.get("actor") or "user")
    else:
        channel, actor = "chat", plan.config.chat_actor or "user"
    try:
        book.claim(
            str(payload.get("decision") or "approve"), actor, channel=channel,
            feedback=payload.get("feedback"), edited_plan=payload.get("edited_plan"),
            revision=payload.get("revision"), next_mode=payload.get("next_mode"), grants=payload.get("grants"),
            scope=payload.get("scope"),
            may_escalate=plan.config.chat_answers_may_escalate,
            lease_secs=plan.config.decision_lease_secs,
        )  # fmt: skip
    except (PlanModeError, TypeError, ValueError, OverflowError) as exc:
        book.cancel_pending("system", f"answer refused: {exc}")
    return True


def resume_refusal(book: PlanBook, tool_call_id: str) -> str | None:
    """Why an allowed ``plan_exit`` call may not apply a decision, or None when it is the parked
    call and an accepted answer waits for it."""
    try:
        book.check_resume(tool_call_id)
    except PlanStateError as exc:
        refused = next((a.get("detail") for a in reversed(book.audit)
                        if a.get("kind") == "decision" and a.get("decision") == "cancel"), None)  # fmt: skip
        why = refused if refused and str(refused).startswith("answer refused") else str(exc)
        return f"plan_exit was not applied: {why}. You are still in PLAN mode; call plan_exit to ask again."
    return None


def confirm_event(state: AgentState, book: PlanBook) -> UserConfirmResultEvent:
    """The ``UserConfirmResultEvent`` that resumes the parked call (the answer itself is in state)."""
    pending = book.pending
    if not pending:
        raise PlanStateError("no plan approval is pending")
    found = _parked.find_tool_call(state, pending["tool_call_id"])
    if found is None or not _parked.is_parked(state, pending["tool_call_id"]):
        raise PlanStateError("the plan_exit call awaiting approval is not parked in the agent's context")
    return UserConfirmResultEvent(
        reply_id=pending["reply_id"], confirm_results=[ConfirmResult(confirmed=True, tool_call=found[1])]
    )
