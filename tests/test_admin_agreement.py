"""In process and over HTTP, one table of answers gets the same verdict: the plan core judges both
(invalid input: InvalidInputError / 422; state conflict: PlanStateError / 409), and a refusal changes
nothing (except recording an unreviewed disk edit as a revision, which both do)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from _plan_support import PLAN, confirm_request, make_agent, run
from admin_fixtures import TOKEN
from test_plan_decisions import ask_script

from devtools.nodes import (
    create_scripted_session,
    get_plan,
    send_user_text,
    settled_in,
    wait_for,
)
from devtools.scripted_app import planning_script, script_message
from planmode.agentscope import answer_plan, plan_status
from planmode.exceptions import InvalidInputError, PlanStateError

Setup = Callable[[Path], None]


def _nothing(_plan_file: Path) -> None:
    pass


def _symlink_to_another_file(plan_file: Path) -> None:
    """PLAN.md becomes a symlink to another file of the same workspace."""
    other = plan_file.parent / "NOTES.md"
    other.write_text("# Not the plan\n")
    plan_file.unlink()
    os.symlink(other, plan_file)


def _edit_on_disk(plan_file: Path) -> None:
    plan_file.write_text(PLAN + "4. Added by hand on disk\n")


GRANT = {"tool_name": "Bash", "rule_content": "npm test*"}

#: (case, answer fields besides revision 1, disk setup, verdict, words the refusal contains)
CASES: list[tuple[str, dict[str, Any], Setup, str, str]] = [
    ("request_changes without feedback", {"decision": "request_changes"}, _nothing, "invalid", "needs feedback"),
    ("request_changes with blank feedback", {"decision": "request_changes", "feedback": "  "}, _nothing, "invalid",
     "needs feedback"),
    ("reject carrying an edited plan", {"decision": "reject", "edited_plan": "# mine\n"}, _nothing, "invalid",
     "edited plan goes only with an approval"),
    ("approve_with_edits without an edit", {"decision": "approve_with_edits"}, _nothing, "invalid",
     "needs an edited plan"),
    ("approve_with_edits with the same text", {"decision": "approve_with_edits", "edited_plan": PLAN}, _nothing,
     "invalid", "needs an edited plan"),
    ("unknown decision", {"decision": "maybe"}, _nothing, "invalid", "unknown decision"),
    ("cancel is not an answer", {"decision": "cancel"}, _nothing, "invalid", "cancel is not an answer"),
    ("next_mode with a rejection", {"decision": "reject", "next_mode": "explore"}, _nothing, "invalid",
     "only to approvals"),
    ("unknown next_mode", {"decision": "approve", "next_mode": "yolo"}, _nothing, "invalid", "yolo"),
    ("grants with a rejection", {"decision": "reject", "grants": [GRANT]}, _nothing, "invalid", "only to approvals"),
    ("the same grant twice", {"decision": "approve", "grants": [GRANT, GRANT]}, _nothing, "invalid", "given twice"),
    ("an empty edited plan", {"decision": "approve_with_edits", "edited_plan": " \n"}, _nothing, "invalid",
     "edited plan is empty"),
    ("a revision that is not pending", {"decision": "approve", "revision": 2}, _nothing, "conflict",
     "revision 1 is awaiting approval"),
    ("PLAN.md a symlink to another workspace file", {"decision": "approve"}, _symlink_to_another_file, "invalid",
     "symlink"),
    ("an unreviewed edit on disk", {"decision": "approve"}, _edit_on_disk, "conflict", "recorded as revision 2"),
]
IDS = [case[0] for case in CASES]
MUTATES = {"an unreviewed edit on disk"}


async def _in_process(tmp_path: Path, fields: dict[str, Any], setup: Setup) -> tuple[str, str, Any]:
    agent, _, plan = make_agent(tmp_path, ask_script())
    assert confirm_request(await run(agent)) is not None
    setup(Path(plan_status(agent).plan_path or ""))
    before = plan_status(agent).audit
    body = {"revision": 1, **fields}
    decision = body.pop("decision")
    try:
        answer_plan(agent, decision, **body)
    except PlanStateError as exc:
        return "conflict", str(exc), (before, plan_status(agent))
    except InvalidInputError as exc:
        return "invalid", str(exc), (before, plan_status(agent))
    return "accepted", "", (before, plan_status(agent))


@pytest.mark.parametrize(("name", "fields", "setup", "verdict", "words"), CASES, ids=IDS)
async def test_in_process_verdicts(
    tmp_path: Path, name: str, fields: dict[str, Any], setup: Setup, verdict: str, words: str
) -> None:
    got, message, (before, after) = await _in_process(tmp_path, fields, setup)
    assert (got, words in message) == (verdict, True), message
    if name in MUTATES:
        assert after.pending["revision"] == 2 and after.revisions[-1]["edited_by_user"]
    else:
        assert after.audit == before and after.phase == "awaiting_approval"


def _parked(client: httpx.Client) -> tuple[str, str, dict[str, Any]]:
    agent_id, session_id = create_scripted_session(client)
    send_user_text(client, agent_id, session_id, script_message(planning_script(PLAN)))
    view = wait_for(lambda: settled_in(client, agent_id, session_id, "awaiting_approval"), "the plan to park")
    return agent_id, session_id, view


@pytest.mark.parametrize(("name", "fields", "setup", "verdict", "words"), CASES, ids=IDS)
async def test_http_verdicts_match_in_process(
    tmp_path: Path, client: httpx.Client, name: str, fields: dict[str, Any], setup: Setup, verdict: str,
    words: str,
) -> None:
    agent_id, session_id, view = _parked(client)
    setup(Path(view["disk"]["path"]))
    response = client.post(
        f"/v1/admin/sessions/{session_id}/plan:decide", params={"agent_id": agent_id},
        json={"revision": 1, **fields}, headers={"X-Admin-Token": TOKEN},
    )  # fmt: skip
    status = {422: "invalid", 409: "conflict", 202: "accepted"}.get(response.status_code, str(response.status_code))
    assert (status, words in response.text) == (verdict, True), response.text
    local, message, _ = await _in_process(tmp_path, fields, setup)
    assert local == status, f"in process: {local} ({message}); over HTTP: {response.text}"
    after = get_plan(client, agent_id, session_id)
    if name in MUTATES:
        assert after["pending"]["revision"] == 2 and after["revisions"][-1]["edited_by_user"]
    else:
        assert after["audit"] == view["audit"] and after["decision_in_flight"] is None
