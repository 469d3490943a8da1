"""Narrowing or widening the plan's scope when approving: one table of answers, in process and over HTTP,
gets the same verdict (the plan core validates the scope and records it in the claim); an accepted choice
is the approved scope of the build phase and the audit says what was narrowed or widened. On the chat
channel widening is an escalation (refused unless the deployment opts in); narrowing is allowed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from _plan_support import confirm_request, make_agent, results, run, text_of
from admin_fixtures import TOKEN
from agentscope.event import ConfirmResult, UserConfirmResultEvent

from devtools.nodes import create_scripted_session, get_plan, send_user_text, settled_in, wait_for
from devtools.scripted_app import planning_script, script_message
from planmode.agentscope import PlanMode, answer_plan, call_tool, plan_status, say
from planmode.agentscope._plan import _state
from planmode.exceptions import InvalidInputError, PlanStateError

SCOPED = ("# Fix the parser\n\n## Steps\n1. Fix `src/app.py`\n2. Run the tests\n\n"
          "## Scope\n- `src/**/*.py`\n- `$ pytest -q*`\n")  # fmt: skip
DECLARED = {"paths": ["src/**/*.py"], "commands": ["pytest -q*"]}
NARROW = {"paths": ["src/app.py"], "commands": ["pytest -q tests/"]}
WIDE = {"paths": ["src/**/*.py", "docs/**"], "commands": ["pytest -q*"]}
HOSTILE = {"paths": ["src/<script>alert(1)</script>.py"], "commands": []}

#: (case, answer fields, verdict, words in the refusal or the decision's audit detail, approved scope)
CASES: list[tuple[str, dict[str, Any], str, str, Any]] = [
    ("narrowed", {"decision": "approve", "scope": NARROW}, "accepted", "scope narrowed", NARROW),
    ("widened", {"decision": "approve", "scope": WIDE}, "accepted", "scope widened: added paths docs/**", WIDE),
    ("removed", {"decision": "approve", "scope": "none"}, "accepted", "scope widened: removed", None),
    ("kept", {"decision": "approve", "scope": "declared"}, "accepted", "", DECLARED),
    ("emptied", {"decision": "approve", "scope": {"paths": [], "commands": []}}, "accepted", "scope narrowed",
     {"paths": [], "commands": []}),
    ("markup kept as text", {"decision": "approve", "scope": HOSTILE}, "accepted", "scope narrowed", HOSTILE),
    ("paths not a list", {"decision": "approve", "scope": {"paths": "src"}}, "invalid", "list of strings", None),
    ("a path not a string", {"decision": "approve", "scope": {"paths": [1]}}, "invalid", "must be strings", None),
    ("a path climbing out", {"decision": "approve", "scope": {"paths": ["src/../../etc/passwd"]}}, "invalid",
     "climbs out", None),
    ("an absolute path outside", {"decision": "approve", "scope": {"paths": ["/etc/passwd"]}}, "invalid",
     "not inside the workspace", None),
    ("a NUL in a path", {"decision": "approve", "scope": {"paths": ["src/a\x00.py"]}}, "invalid", "NUL", None),
    ("a newline in a command", {"decision": "approve", "scope": {"commands": ["ls\nrm -rf /"]}}, "invalid",
     "control character", None),
    ("a huge list", {"decision": "approve", "scope": {"paths": [f"f{i}" for i in range(300)]}}, "invalid",
     "at most 256", None),
    ("an unknown field", {"decision": "approve", "scope": {"files": ["a"]}}, "invalid", "unknown field", None),
    ("an unknown word", {"decision": "approve", "scope": "everything"}, "invalid", '"declared" or "none"', None),
    ("a number", {"decision": "approve", "scope": 5}, "invalid", "scope must be", None),
    ("the same path twice", {"decision": "approve", "scope": {"paths": ["src/a.py", "./src/a.py"]}}, "invalid",
     "given twice", None),
    ("a scope with a rejection", {"decision": "reject", "scope": NARROW}, "invalid", "only to approvals", None),
]  # fmt: skip
IDS = [case[0] for case in CASES]


def _script() -> list[Any]:
    return [call_tool("plan_enter", {}), call_tool("plan_write", {"content": SCOPED}, "p1"),
            call_tool("plan_exit", {"summary": "s"}, "x1")]  # fmt: skip


def _last_decision(audit: list[dict[str, Any]]) -> dict[str, Any]:
    return [a for a in audit if a["kind"] == "decision"][-1]


async def _in_process(tmp_path: Path, fields: dict[str, Any]) -> tuple[str, str, Any]:
    agent, model, _ = make_agent(tmp_path, _script())
    assert confirm_request(await run(agent)) is not None
    before = plan_status(agent).audit
    body = dict(fields)
    decision = body.pop("decision")
    try:
        event = answer_plan(agent, decision, revision=1, **body)
    except PlanStateError as exc:
        return "conflict", str(exc), None
    except InvalidInputError as exc:
        assert plan_status(agent).audit == before, "a refused answer changes nothing"
        return "invalid", str(exc), None
    model.extend([say("building")])
    await run(agent, event)
    status = plan_status(agent)
    assert status.phase == "building", status.audit[-1]
    return "accepted", str(_last_decision(status.audit).get("detail") or ""), status.approved_scope


@pytest.mark.parametrize(("name", "fields", "verdict", "words", "approved"), CASES, ids=IDS)
async def test_in_process(tmp_path: Path, name: str, fields: dict[str, Any], verdict: str, words: str,
                          approved: Any) -> None:  # fmt: skip
    got, message, scope = await _in_process(tmp_path, fields)
    assert (got, words in message) == (verdict, True), message
    if verdict == "accepted":
        assert scope == approved


@pytest.mark.parametrize(("name", "fields", "verdict", "words", "approved"), CASES, ids=IDS)
def test_over_http(client: httpx.Client, name: str, fields: dict[str, Any], verdict: str,  # noqa: F811
                   words: str, approved: Any) -> None:  # fmt: skip
    agent_id, session_id = create_scripted_session(client)
    send_user_text(client, agent_id, session_id, script_message(planning_script(SCOPED)))
    view = wait_for(lambda: settled_in(client, agent_id, session_id, "awaiting_approval"), "the plan to park")
    assert view["scope"] == DECLARED and view["approved_scope"] is None
    response = client.post(
        f"/v1/admin/sessions/{session_id}/plan:decide", params={"agent_id": agent_id},
        json={"revision": 1, **fields}, headers={"X-Admin-Token": TOKEN},
    )  # fmt: skip
    status = {422: "invalid", 409: "conflict", 202: "accepted"}.get(response.status_code, str(response.status_code))
    assert status == verdict, response.text
    if verdict != "accepted":
        assert words in response.json()["detail"], response.text
        after = get_plan(client, agent_id, session_id)
        assert after["audit"] == view["audit"] and after["decision_in_flight"] is None
        return
    built = wait_for(lambda: settled_in(client, agent_id, session_id, "building"), "the approval to apply")
    assert built["approved_scope"] == approved
    assert words in str(_last_decision(built["audit"]).get("detail") or "")
    assert [step["status"] for step in built["progress"]] == ["pending", "pending"]


def test_the_table_names_every_refusal_class() -> None:
    assert {verdict for _, _, verdict, _, _ in CASES} == {"accepted", "invalid"}


async def test_an_absolute_path_inside_the_workspace_becomes_relative(tmp_path: Path) -> None:
    agent, model, _ = make_agent(tmp_path, _script())
    assert confirm_request(await run(agent)) is not None
    model.extend([say("building")])
    await run(agent, answer_plan(agent, "approve", revision=1, scope={"paths": [str(tmp_path / "src" / "app.py")]}))
    assert plan_status(agent).approved_scope == {"paths": ["src/app.py"], "commands": []}
    book = _state.load(agent.state)
    assert book.scope_allows("path", "src/app.py") and not book.scope_allows("path", "src/other.py")


def _chat_answer(request: Any, answer: dict[str, Any]) -> UserConfirmResultEvent:
    """A confirmation built by hand, as any client of the app's chat route can (the chat channel)."""
    call = request.tool_calls[0].model_copy(update={"input": json.dumps({"_planmode_answer": answer})})
    return UserConfirmResultEvent(reply_id=request.reply_id,
                                  confirm_results=[ConfirmResult(confirmed=True, tool_call=call)])  # fmt: skip


@pytest.mark.parametrize(("answer", "may_escalate", "approved"), [
    ({"decision": "approve", "scope": NARROW}, False, NARROW),
    ({"decision": "approve", "scope": WIDE}, False, None),
    ({"decision": "approve", "scope": "none"}, False, None),
    ({"decision": "approve_with_edits", "edited_plan": SCOPED.split("## Scope")[0]}, False, None),
    ({"decision": "approve", "scope": WIDE}, True, WIDE),
], ids=["narrow", "widen", "remove", "edit-the-scope-away", "widen-opted-in"])  # fmt: skip
async def test_on_the_chat_channel_only_narrowing_is_allowed(
    tmp_path: Path, answer: dict[str, Any], may_escalate: bool, approved: Any
) -> None:
    plan = PlanMode(workspace_dir=tmp_path, chat_answers_may_escalate=may_escalate)
    agent, model, _ = make_agent(tmp_path, _script(), plan=plan)
    request = confirm_request(await run(agent))
    model.extend([say("ok")])
    await run(agent, _chat_answer(request, answer))
    status = plan_status(agent)
    if approved is None:
        assert status.phase == "planning" and status.approved_scope is None
        assert "cannot widen the plan's scope" in text_of(results(agent)["x1"])
        assert "answer refused" in _last_decision(status.audit)["detail"]
    else:
        assert status.phase == "building" and status.approved_scope == approved


@pytest.mark.parametrize(("scope", "enforcement", "told"), [
    (NARROW, "ask", "The reviewer set the scope for this build: `src/app.py`, `$ pytest -q tests/`."),
    ("declared", "ask", "The build is held to the plan's scope: `src/**/*.py`, `$ pytest -q*`."),
    ({"paths": [], "commands": []}, "deny", "The reviewer set the scope for this build: nothing (no writes"),
    ("none", "ask", None),
    (NARROW, "off", None),
])  # fmt: skip
async def test_the_approval_tells_the_model_its_scope(tmp_path: Path, scope: Any, enforcement: str,
                                                      told: str | None) -> None:
    agent, model, _ = make_agent(tmp_path, _script(), plan=PlanMode(workspace_dir=tmp_path, scope_enforcement=enforcement))
    assert confirm_request(await run(agent)) is not None
    model.extend([say("building")])
    await run(agent, answer_plan(agent, "approve", revision=1, scope=scope))
    text = text_of(results(agent)["x1"])
    assert text.startswith("Plan approved"), text
    if told is None:
        assert "scope" not in text, text
    else:
        assert told in text, text
