"""A node resumes an approved decision while its own disk holds an unreviewed edit of the plan file.

The admin API judged and claimed the decision on another node (bound to the reviewed revision); the
resuming node's plan file holds text no revision has. Protocol (docs/http.md, "The decision
protocol", step 3): the claim is applied from state, so the approved revision is exactly the reviewed
one, and the approved text is never written over the unreviewed edit. The edit must not vanish
silently either: it is recorded (as a user-edited revision after the approval, audited) so the
human and the model see it, and the approval still names the reviewed revision.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from _plan_support import PLAN, confirm_request, make_agent, results, run, text_of
from agentscope.agent import Agent
from test_plan_decisions import ask_script

from planmode._core import plan_sha256
from planmode.agentscope import ScriptedChatModel, plan_status, say
from planmode.agentscope._plan import _decision, _state

EDIT = PLAN + "4. Added on the resuming node's disk, never reviewed\n"


async def _claimed(tmp_path: Path, decision: str, **answer: Any) -> tuple[Agent, ScriptedChatModel, Any]:
    """A parked plan with ``decision`` claimed by the admin API (what POST .../plan:decide does on
    the node that received it: the claim in state, the resume event built), not yet resumed."""
    agent, model, _ = make_agent(tmp_path, ask_script())
    assert confirm_request(await run(agent)) is not None
    book = _state.load(agent.state)
    book.claim(decision, "admin:ops", channel="admin", revision=1, **answer)
    _state.save(agent.state, book)
    return agent, model, _decision.confirm_event(agent.state, book)


async def test_a_resume_over_an_unreviewed_disk_edit_applies_the_reviewed_revision_and_records_the_edit(
    tmp_path: Path,
) -> None:
    agent, model, event = await _claimed(tmp_path, "approve", lease_secs=60)
    # The resuming node's own disk holds a human edit nobody reviewed.
    plan_file = tmp_path / "plans" / "PLAN.md"
    plan_file.write_text(EDIT)

    model.extend([say("building")])
    await run(agent, event)

    status = plan_status(agent)
    assert status.phase == "building"
    assert status.approved_revision == 1, "the approval is bound to the reviewed revision"
    approved = [r for r in status.revisions if r["number"] == 1][0]
    assert approved["sha256"] == plan_sha256(PLAN)
    decisions = [a for a in status.audit if a["kind"] == "decision"]
    assert [(d["decision"], d["revision"], d["actor"]) for d in decisions] == [("approve", 1, "admin:ops")]
    assert plan_file.read_text() == EDIT, "the approved text is never written over an unreviewed edit"
    # The edit is not silently left behind: it is a recorded, audited user-edited revision, not approved.
    edited = status.revisions[-1]
    assert edited["number"] == 2 and edited["edited_by_user"] and edited["sha256"] == plan_sha256(EDIT)
    assert status.approved_revision != edited["number"]
    written = [a for a in status.audit if a["kind"] == "written"]
    assert [(a["actor"], a["revision"]) for a in written] == [("model", 1), ("user", 2)], status.audit
    assert status.audit.index(written[-1]) > status.audit.index(decisions[-1]), "recorded after the decision"
    # The model is told: the approved plan, and that the file on this disk holds an unapproved edit.
    result = text_of(results(agent)["x1"])
    assert "approved" in result and PLAN in result
    assert "revision 2, which is not approved" in result and "Do not follow that file" in result


async def test_a_request_for_changes_resumed_over_an_unreviewed_edit_records_it_too(tmp_path: Path) -> None:
    agent, model, event = await _claimed(tmp_path, "request_changes", feedback="Add a rollback.")
    (tmp_path / "plans" / "PLAN.md").write_text(EDIT)

    model.extend([say("revising")])
    await run(agent, event)

    status = plan_status(agent)
    assert status.phase == "planning" and status.pending is None and status.approved_revision is None
    decisions = [a for a in status.audit if a["kind"] == "decision"]
    assert [(d["decision"], d["revision"]) for d in decisions] == [("request_changes", 1)]
    assert status.revision == 2 and status.revisions[-1]["edited_by_user"] and status.plan_content == EDIT
    result = text_of(results(agent)["x1"])
    assert "recorded as revision 2" in result and result.endswith("Requested changes:\nAdd a rollback.")


async def test_a_resume_over_a_plan_file_that_cannot_be_read_safely_applies_nothing(tmp_path: Path) -> None:
    """Fail closed: a symlinked plan file on the resuming node cancels the request with the reason."""
    agent, model, event = await _claimed(tmp_path, "approve")
    plan_file = tmp_path / "plans" / "PLAN.md"
    (tmp_path / "elsewhere.md").write_text(EDIT)
    plan_file.unlink()
    plan_file.symlink_to(tmp_path / "elsewhere.md")

    model.extend([say("still planning")])
    await run(agent, event)

    status = plan_status(agent)
    assert status.phase == "planning" and status.approved_revision is None and status.revision == 1
    assert (tmp_path / "elsewhere.md").read_text() == EDIT and plan_file.is_symlink()
    assert "could not be applied" in text_of(results(agent)["x1"])
    cancelled = [a for a in status.audit if a["kind"] == "decision"]
    assert [d["decision"] for d in cancelled] == ["cancel"] and "answer not applied" in cancelled[0]["detail"]


async def test_an_approval_with_edits_resumed_over_an_unreviewed_edit_applies_the_humans_edit(tmp_path: Path) -> None:
    reviewed_edit = PLAN.replace("1.", "1. Carefully")
    agent, model, event = await _claimed(tmp_path, "approve_with_edits", edited_plan=reviewed_edit)
    (tmp_path / "plans" / "PLAN.md").write_text(EDIT)

    model.extend([say("building")])
    await run(agent, event)

    status = plan_status(agent)
    assert status.phase == "building" and status.approved_revision == 2
    assert [r["number"] for r in status.revisions] == [1, 2, 3] and status.revisions[-1]["sha256"] == plan_sha256(EDIT)
    result = text_of(results(agent)["x1"])
    assert result.startswith("Plan approved with edits (revision 2") and "revision 3, which is not approved" in result
    assert result.endswith("## Approved Plan:\n" + reviewed_edit)
