"""The JSON view of a session's plan that ``GET .../plan`` returns and the review page renders (read only)."""

from __future__ import annotations

from typing import Any

from agentscope.state import AgentState

from ..._core import PlanWorkspace
from ...exceptions import InvalidInputError
from .._plan import _state, plan_status


def plan_view(
    state: AgentState, *, session_id: str, agent_id: str, running: bool, audit_limit: int
) -> dict[str, Any]:
    """Phase, plan, revision, pending approval and the decision in flight, todos, tasks, what was trimmed,
    the last ``audit_limit`` audit entries, the declared and approved scope, progress against the approved
    plan and the per-step diff from the revision last reviewed (``review_base``, ``review_changes``)."""
    view: dict[str, Any] = {"session_id": session_id, "agent_id": agent_id, "running": running}
    view.update(plan_status(state).to_dict())
    view["audit"] = list(view.get("audit") or [])[-audit_limit:] if audit_limit else []
    view["tasks"] = [task.model_dump(mode="json") for task in state.tasks_context.tasks]
    view.update(review_fields(state))
    return view


def disk_view(state: AgentState, workdir: str) -> dict[str, Any] | None:
    """This node's plan file next to state, as the core sees it (nothing is written): ``{path, exists,
    sha256, matches_state, edited_on_disk, error}`` plus its ``text`` when it holds an unreviewed edit."""
    book = _state.load(state)
    try:
        view = book.inspect_file(PlanWorkspace(workdir))
    except OSError as exc:  # the workspace directory itself is missing on this node
        return {"path": None, "exists": False, "sha256": None, "matches_state": None, "edited_on_disk": False,
                "error": str(exc)}  # fmt: skip
    if view is None:
        return None
    shown: dict[str, Any] = dict(view)
    if not view["edited_on_disk"]:
        shown.pop("text")
    return shown


def previous_plan_content(state: AgentState) -> str | None:
    """The text of the revision before the latest one, for the review page's diff (None on the first)."""
    revisions = _state.load(state).revisions
    return revisions[-2].get("content") if len(revisions) >= 2 else None


def review_fields(state: AgentState) -> dict[str, Any]:
    """What the review compares: ``review_base`` (the revision last decided on before the latest one, else the
    one before it) and ``review_changes``, the per-step diff from it (None when there is nothing to compare or
    its text was pruned)."""
    book = _state.load(state)
    base = book.review_base()
    changes = None
    if base is not None:
        try:
            changes = book.step_diff(base, book.revision)
        except InvalidInputError:
            changes = None  # the base revision's text was pruned
    return {"review_base": base, "review_changes": changes}
