"""Decisions over HTTP on a real app process and Redis: authentic (the chat route cannot act as admin),
exactly once, never stuck (a decision whose resume never ran can be made again after its lease),
read-only GETs, and the CLI failing when a decision was refused or not applied."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from admin_fixtures import TOKEN, USER
from agentscope.app.storage import RedisStorage
from agentscope.event import ConfirmResult, UserConfirmResultEvent

from devtools.nodes import (
    AppNode,
    create_scripted_session,
    get_plan,
    send_user_text,
    settled_in,
    wait_for,
)
from devtools.scripted_app import planning_script, script_message
from planmode.agentscope._plan import _state
from planmode.cli import main as cli_main

PLAN = "# Plan\n\n1. Change the check\n2. Run the tests\n"


@pytest.fixture()
def parked(client: httpx.Client) -> tuple[str, str, dict[str, Any]]:
    agent_id, session_id = create_scripted_session(client)
    send_user_text(client, agent_id, session_id, script_message(planning_script(PLAN)))
    view = wait_for(lambda: settled_in(client, agent_id, session_id, "awaiting_approval"), "the plan to park")
    return agent_id, session_id, view


def _post(client: httpx.Client, agent_id: str, session_id: str, suffix: str, body: Any = None) -> httpx.Response:
    return client.post(f"/v1/admin/sessions/{session_id}{suffix}", params={"agent_id": agent_id}, json=body,
                       headers={"X-Admin-Token": TOKEN})  # fmt: skip


def _chat_confirm(client: httpx.Client, agent_id: str, session_id: str, view: dict[str, Any], answer: dict[str, Any]) -> None:
    """What any client of ``POST /chat/`` can send: a confirmation of the parked call with a made-up answer."""
    call = {"type": "tool_call", "id": view["pending"]["tool_call_id"], "name": "plan_exit",
            "input": json.dumps({"_planmode_answer": answer})}  # fmt: skip
    event = UserConfirmResultEvent(reply_id=view["pending"]["reply_id"], confirm_results=[
        ConfirmResult(confirmed=True, tool_call=call)])  # fmt: skip
    body = {"agent_id": agent_id, "session_id": session_id, "input": event.model_dump(mode="json")}
    assert client.post("/chat/", json=body).status_code == 200


@pytest.mark.parametrize("answer", [
    {"decision": "approve", "actor": "admin:root", "next_mode": "bypass"},
    {"decision": "approve", "grants": [{"tool_name": "Bash", "rule_content": None}]},
], ids=["bypass as admin", "grant"])
def test_the_chat_route_cannot_escalate(client: httpx.Client, parked: tuple[str, str, dict[str, Any]],
                                        answer: dict[str, Any]) -> None:
    agent_id, session_id, view = parked
    _chat_confirm(client, agent_id, session_id, view, answer)
    final = wait_for(lambda: settled_in(client, agent_id, session_id, "planning"), "the refusal")
    last = [a for a in final["audit"] if a["kind"] == "decision"][-1]
    assert last["decision"] == "cancel" and "answer refused" in last["detail"]
    assert final["approved_revision"] is None and final["grants"] == []
    assert not any(a["kind"] == "mode_change" for a in final["audit"])


def test_a_chat_confirmation_is_the_session_users_own(client: httpx.Client,
                                                      parked: tuple[str, str, dict[str, Any]]) -> None:
    agent_id, session_id, view = parked
    _chat_confirm(client, agent_id, session_id, view, {"decision": "approve", "actor": "admin:root"})
    final = wait_for(lambda: settled_in(client, agent_id, session_id, "building"), "the approval")
    last = [a for a in final["audit"] if a["kind"] == "decision"][-1]
    assert (last["decision"], last["actor"], final["exited_by"]) == ("approve", f"user:{USER}", f"user:{USER}")


def test_a_wrong_agent_id_is_404_and_changes_nothing(client: httpx.Client,
                                                     parked: tuple[str, str, dict[str, Any]]) -> None:
    agent_id, session_id, view = parked
    other_agent, _ = create_scripted_session(client, "someone-else")
    for suffix, body in (("/plan:decide", {"decision": "approve", "revision": 1}), (":exit-plan-mode", None),
                         (":enter-plan-mode", None), ("/plan:restore-file", None)):  # fmt: skip
        response = _post(client, other_agent, session_id, suffix, body)
        assert response.status_code == 404, (suffix, response.text)
    assert client.get(f"/v1/admin/sessions/{session_id}/plan", params={"agent_id": other_agent}).status_code == 404
    after = get_plan(client, agent_id, session_id)
    assert (after["audit"], after["decision_in_flight"]) == (view["audit"], None)
    assert _post(client, agent_id, session_id, "/plan:decide", {"decision": "approve", "revision": 1}).status_code == 202
    wait_for(lambda: settled_in(client, agent_id, session_id, "building"), "the approval")


def test_gets_never_write(client: httpx.Client, parked: tuple[str, str, dict[str, Any]]) -> None:
    agent_id, session_id, view = parked
    plan_file = Path(view["disk"]["path"])
    plan_file.unlink()
    for _ in range(2):
        page = client.get(f"/v1/admin/sessions/{session_id}/plan/review", params={"agent_id": agent_id,
                                                                              "user_id": USER})  # fmt: skip
        assert page.status_code == 200 and "Plan review" in page.text
        seen = get_plan(client, agent_id, session_id)
        assert seen["disk"]["exists"] is False and seen["audit"] == view["audit"]
    assert not plan_file.exists()
    restored = _post(client, agent_id, session_id, "/plan:restore-file")
    assert restored.json()["restored"] is True and plan_file.read_text() == PLAN
    assert restored.json()["audit"][-1]["kind"] == "restored"


def _with_state(node: AppNode, agent_id: str, session_id: str, change: Any) -> None:
    """Changes the stored session state directly in Redis (what a node that died mid-way leaves behind)."""
    async def run() -> None:
        async with RedisStorage(host="127.0.0.1", port=node.redis_port) as storage:
            record = await storage.get_session(USER, agent_id, session_id)
            assert record is not None
            book = _state.load(record.state)
            change(book)
            _state.save(record.state, book)
            await storage.update_session_state(user_id=USER, agent_id=agent_id, session_id=session_id,
                                               state=record.state)  # fmt: skip
    asyncio.run(run())


def test_a_decision_whose_resume_never_ran_can_be_made_again(
    one_node: AppNode, client: httpx.Client, parked: tuple[str, str, dict[str, Any]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    agent_id, session_id, _ = parked
    # A node accepted "reject" (the claim is in state) and died before the resume was queued.
    _with_state(one_node, agent_id, session_id,
                lambda book: book.claim("reject", "admin:gone", revision=1, feedback="no", lease_secs=2))
    in_flight = get_plan(client, agent_id, session_id)["decision_in_flight"]
    assert in_flight["decision"] == "reject" and in_flight["live"] in (True, False)
    if in_flight["live"]:
        assert _post(client, agent_id, session_id, ":exit-plan-mode").status_code == 409
        busy = _post(client, agent_id, session_id, "/plan:decide", {"decision": "approve", "revision": 1})
        assert busy.status_code == 409 and "already decided" in busy.text
    common = ["--session", session_id, "--agent", agent_id, "--url", one_node.url, "--user", USER, "--token", TOKEN]
    wait_for(lambda: not get_plan(client, agent_id, session_id)["decision_in_flight"]["live"], "the lease to end")
    # the CLI reports a decision that was not applied (here: one it did not send) as a failure
    assert cli_main(["status", *common]) == 0
    assert "decided   reject by admin:gone" in capsys.readouterr().out
    assert cli_main(["approve", *common, "--actor", "second-try"]) == 0
    final = wait_for(lambda: settled_in(client, agent_id, session_id, "building"), "the second decision")
    kinds = [(a["kind"], a.get("decision")) for a in final["audit"] if a["kind"] in ("decision", "claim_expired")]
    assert kinds == [("claim_expired", "reject"), ("decision", "approve")]
    assert final["todos"] and final["approved_revision"] == 1


def test_the_cli_fails_when_the_decision_is_refused(
    one_node: AppNode, client: httpx.Client, parked: tuple[str, str, dict[str, Any]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    agent_id, session_id, view = parked
    common = ["--session", session_id, "--agent", agent_id, "--url", one_node.url, "--user", USER, "--token", TOKEN]
    assert cli_main(["approve", *common, "--agent", "not-the-agent"]) == 1
    assert "the server refused (404)" in capsys.readouterr().err
    _with_state(one_node, agent_id, session_id, lambda book: book.cancel_pending("system", "lost"))
    assert cli_main(["approve", *common, "--revision", "1"]) == 1
    assert "the server refused (409): no plan approval is pending" in capsys.readouterr().err
