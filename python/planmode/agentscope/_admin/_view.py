"""The JSON view of a session's plan that ``GET .../plan`` returns and the review page renders."""

from __future__ import annotations

from typing import Any

from agentscope.state import AgentState

from .._plan import plan_status

PLAN_KEY = "planmode"
"""``middle_context`` key where plan mode keeps its state (every revision's text among it)."""

ADMIN_KEY = "planmode_admin"
"""``middle_context`` key this layer owns (plain JSON): the decision claimed for the pending approval."""


def decision_claim(state: AgentState) -> dict[str, Any] | None:
    """The decision already taken for the pending ``plan_exit`` call, if any (what makes racing decisions lose)."""
    status = plan_status(state)
    claim = state.middle_context.get(ADMIN_KEY, {}).get("decision")
    pending = status.pending
    if not pending or not isinstance(claim, dict) or claim.get("tool_call_id") != pending.get("tool_call_id"):
        return None
    return claim


def set_decision_claim(state: AgentState, claim: dict[str, Any] | None) -> None:
    """Records (or clears) the decision claim in state."""
    admin = dict(state.middle_context.get(ADMIN_KEY, {}))
    admin["decision"] = claim
    state.middle_context[ADMIN_KEY] = admin


def plan_view(
    state: AgentState, *, session_id: str, agent_id: str, running: bool, audit_limit: int
) -> dict[str, Any]:
    """Phase, plan, revision, pending approval, todos, tasks and the last ``audit_limit`` audit entries."""
    view: dict[str, Any] = {"session_id": session_id, "agent_id": agent_id, "running": running}
    view.update(plan_status(state).to_dict())
    view["audit"] = list(view.get("audit") or [])[-audit_limit:] if audit_limit else []
    view["tasks"] = [task.model_dump(mode="json") for task in state.tasks_context.tasks]
    view["decision_in_flight"] = decision_claim(state)
    return view


def previous_plan_content(state: AgentState) -> str | None:
    """The text of the revision before the latest one, for the review page's diff (None on the first)."""
    revisions = state.middle_context.get(PLAN_KEY, {}).get("revisions") or []
    return revisions[-2].get("content") if len(revisions) >= 2 else None
