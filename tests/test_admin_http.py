"""The admin API on a real AgentScope app process backed by a real redis-server."""

from __future__ import annotations

import hashlib
import threading
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis
from admin_fixtures import TOKEN, USER
from agentscope.app.message_bus import MessageBusKeys

from devtools.nodes import (
    AppNode,
    create_scripted_session,
    get_plan,
    send_user_text,
    settled_in,
    wait_for,
)
from devtools.scripted_app import planning_script, say_step, script_message
from planmode.cli import main as cli_main

WRITES = [":enter-plan-mode", ":exit-plan-mode", "/plan:decide"]
APPROVE = {"decision": "approve", "revision": 1}


@pytest.fixture()
def session(client: httpx.Client) -> tuple[str, str]:
    return create_scripted_session(client)


def url(session_id: str, suffix: str) -> str:
    return f"/v1/admin/sessions/{session_id}{suffix}"


@pytest.mark.parametrize("suffix", WRITES)
def test_writes_need_the_admin_token(client: httpx.Client, session: tuple[str, str], suffix: str) -> None:
    agent_id, session_id = session
    missing = client.post(url(session_id, suffix), params={"agent_id": agent_id}, json=APPROVE)
    assert missing.status_code == 401
    assert missing.json()["detail"] == "the X-Admin-Token header is required for this request"
    wrong = client.post(
        url(session_id, suffix), params={"agent_id": agent_id}, json=APPROVE, headers={"X-Admin-Token": "nope"}
    )
    assert wrong.status_code == 403
    assert wrong.json()["detail"] == "the X-Admin-Token header is wrong"


@pytest.mark.parametrize("suffix", [*WRITES, "/plan"])
def test_unknown_session_is_404(client: httpx.Client, session: tuple[str, str], suffix: str) -> None:
    agent_id, _ = session
    if suffix == "/plan":
        response = client.get(url("no-such-session", suffix), params={"agent_id": agent_id})
    else:
        response = client.post(
            url("no-such-session", suffix), params={"agent_id": agent_id}, json=APPROVE,
            headers={"X-Admin-Token": TOKEN},
        )  # fmt: skip
    assert response.status_code == 404
    assert "no-such-session" in response.json()["detail"]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"{not json", "body is not valid JSON"),
        (b"[1, 2]", "body must be a JSON object, got list"),
        (b'{"revision": 1}', "decision: Field required"),
        (b'{"decision": "maybe", "revision": 1}', 'unknown decision "maybe"'),
        (b'{"decision": "approve", "revision": "1"}', "revision: Input should be a valid integer"),
        (b'{"decision": "approve", "revision": 0}', "revision: Input should be greater than or equal to 1"),
        (b'{"decision": "approve", "revision": 1, "extra": 1}', "extra: Extra inputs are not permitted"),
        (b'{"decision": "approve", "revision": 1, "next_mode": "yolo"}', 'unknown permission mode "yolo"'),
        (b'{"decision": "approve", "revision": 1, "grants": [{"tool": "x"}]}', "grants.0.tool_name: Field required"),
        (b'{"decision": "approve", "revision": 1, "actor": "admin"}', "actor: Extra inputs are not permitted"),
        (b"\xff\xfe", "body is not valid JSON"),
    ],
)
def test_malformed_decisions_are_422_with_a_clear_message(
    client: httpx.Client, session: tuple[str, str], body: bytes, message: str
) -> None:
    agent_id, session_id = session
    response = client.post(
        url(session_id, "/plan:decide"),
        params={"agent_id": agent_id},
        content=body,
        headers={"X-Admin-Token": TOKEN, "Content-Type": "application/json"},
    )
    assert response.status_code == 422
    assert message in response.json()["detail"]


def test_bad_actor_header_is_422(client: httpx.Client, session: tuple[str, str]) -> None:
    agent_id, session_id = session
    response = client.post(
        url(session_id, ":enter-plan-mode"),
        params={"agent_id": agent_id},
        headers={"X-Admin-Token": TOKEN, "X-Actor": "x" * 129},
    )
    assert response.status_code == 422
    assert response.json()["detail"].startswith("X-Actor: unknown actor")
    assert "at most 128 characters" in response.json()["detail"]


@pytest.mark.parametrize("suffix", WRITES)
def test_session_held_by_a_run_is_409(
    one_node: AppNode, client: httpx.Client, session: tuple[str, str], suffix: str
) -> None:
    agent_id, session_id = session
    store = redis.Redis(port=int(one_node.redis_port))
    lock = MessageBusKeys.session_lock(session_id)
    assert store.set(lock, "run-token", nx=True, ex=60)  # exactly what a chat run holds while it runs
    try:
        response = client.post(
            url(session_id, suffix), params={"agent_id": agent_id}, json=APPROVE, headers={"X-Admin-Token": TOKEN}
        )
        assert response.status_code == 409
        assert "is busy: a run" in response.json()["detail"]
        assert store.get(lock) == b"run-token"  # the run's lock is left alone
    finally:
        store.delete(lock)


def test_static_assets_are_served_and_nothing_else(client: httpx.Client) -> None:
    script = client.get("/v1/admin/static/review.js")
    assert script.status_code == 200 and script.headers["content-type"].startswith("text/javascript")
    assert "fetch(" in script.text
    assert client.get("/v1/admin/static/review.css").status_code == 200
    assert client.get("/v1/admin/static/..%2F_router.py").status_code == 404
    assert client.get("/v1/admin/static/_router.py").status_code == 404


# ----- with plan mode running in the app (the agent parks on plan_exit) --------------------------------------

PLAN = "# Plan\n\n1. Read the code\n2. Change it\n"


@pytest.fixture()
def parked(client: httpx.Client, session: tuple[str, str]) -> tuple[str, str, dict[str, Any]]:
    """A session whose agent wrote PLAN and waits for approval."""
    agent_id, session_id = session
    send_user_text(client, agent_id, session_id, script_message(planning_script(PLAN)))
    view = wait_for(lambda: settled_in(client, agent_id, session_id, "awaiting_approval"), "the plan to park")
    return agent_id, session_id, view


def decide(client: httpx.Client, agent_id: str, session_id: str, body: dict[str, Any], **headers: str) -> httpx.Response:
    return client.post(
        url(session_id, "/plan:decide"), params={"agent_id": agent_id}, json=body,
        headers={"X-Admin-Token": TOKEN, **headers},
    )  # fmt: skip


def test_get_plan_reports_everything(parked: tuple[str, str, dict[str, Any]]) -> None:
    agent_id, session_id, view = parked
    assert view["session_id"] == session_id and view["agent_id"] == agent_id
    assert (view["phase"], view["active"], view["awaiting_approval"]) == ("awaiting_approval", True, True)
    assert view["plan_content"] == PLAN and view["revision"] == 1
    assert view["sha256"] == hashlib.sha256(PLAN.encode()).hexdigest()
    assert view["pending"]["revision"] == 1 and view["pending"]["summary"] == "Plan ready for review"
    assert [entry["kind"] for entry in view["audit"]][:3] == ["entered", "written", "exit_requested"]
    assert view["disk"]["exists"] and view["disk"]["matches_state"] and not view["disk"]["edited_on_disk"]
    assert Path(view["disk"]["path"]).read_text() == PLAN
    assert view["running"] is False and view["decision_in_flight"] is None


def test_stale_revision_is_409_and_changes_nothing(
    client: httpx.Client, parked: tuple[str, str, dict[str, Any]]
) -> None:
    agent_id, session_id, view = parked
    response = decide(client, agent_id, session_id, {"decision": "approve", "revision": 2})
    assert response.status_code == 409
    assert "revision" in response.json()["detail"]
    assert get_plan(client, agent_id, session_id)["audit"] == view["audit"]


def test_racing_decisions_exactly_one_wins(client: httpx.Client, parked: tuple[str, str, dict[str, Any]]) -> None:
    agent_id, session_id, _ = parked
    bodies = [{"decision": "approve", "revision": 1}, {"decision": "reject", "revision": 1, "feedback": "no"}] * 4
    barrier = threading.Barrier(len(bodies))

    def race(body: dict[str, Any]) -> httpx.Response:
        barrier.wait()
        return decide(client, agent_id, session_id, body)

    with ThreadPoolExecutor(len(bodies)) as pool:
        responses = list(pool.map(race, bodies))
    codes = sorted(response.status_code for response in responses)
    assert codes == [202] + [409] * (len(bodies) - 1), [r.text for r in responses]
    winner = next(response.json() for response in responses if response.status_code == 202)
    final = wait_for(
        lambda: settled_in(client, agent_id, session_id, "building" if winner["decision"] == "approve" else "planning"),
        "the winning decision to apply",
    )
    decisions = [entry for entry in final["audit"] if entry["kind"] == "decision"]
    assert [entry["decision"] for entry in decisions] == [winner["decision"]]
    late = decide(client, agent_id, session_id, {"decision": "approve", "revision": 1})
    assert late.status_code == 409


def test_request_changes_then_approve(client: httpx.Client, parked: tuple[str, str, dict[str, Any]]) -> None:
    agent_id, session_id, _ = parked
    response = decide(
        client, agent_id, session_id, {"decision": "request_changes", "revision": 1, "feedback": "add tests"},
        **{"X-Actor": "bob"},
    )  # fmt: skip
    assert response.status_code == 202, response.text
    assert response.json()["decision"] == "request_changes" and response.json()["actor"] == "admin:bob"
    view = wait_for(lambda: settled_in(client, agent_id, session_id, "planning"), "the agent back in planning")
    decision = [entry for entry in view["audit"] if entry["kind"] == "decision"][-1]
    assert (decision["decision"], decision["actor"], decision["feedback"]) == ("request_changes", "admin:bob", "add tests")
    assert view["pending"] is None and view["active"] is True


def test_enter_and_exit_are_audited_with_the_actor(client: httpx.Client, session: tuple[str, str]) -> None:
    agent_id, session_id = session
    headers = {"X-Admin-Token": TOKEN, "X-Actor": "ops-olga"}
    entered = client.post(url(session_id, ":enter-plan-mode"), params={"agent_id": agent_id}, headers=headers)
    assert entered.status_code == 200, entered.text
    assert (entered.json()["phase"], entered.json()["active"]) == ("planning", True)
    assert entered.json()["audit"][-1]["actor"] == "admin:ops-olga"
    exited = client.post(url(session_id, ":exit-plan-mode"), params={"agent_id": agent_id}, headers=headers)
    assert exited.status_code == 200, exited.text
    assert exited.json()["active"] is False and exited.json()["exited_by"] == "admin:ops-olga"
    assert get_plan(client, agent_id, session_id)["audit"][-1]["kind"] == "forced_exit"


def test_exit_cancels_a_pending_approval(client: httpx.Client, parked: tuple[str, str, dict[str, Any]]) -> None:
    agent_id, session_id, _ = parked
    exited = client.post(
        url(session_id, ":exit-plan-mode"), params={"agent_id": agent_id}, headers={"X-Admin-Token": TOKEN}
    )
    assert exited.status_code == 200, exited.text
    view = wait_for(lambda: settled_in(client, agent_id, session_id, exited.json()["phase"]), "the exit to settle")
    assert view["pending"] is None and view["active"] is False
    assert decide(client, agent_id, session_id, {"decision": "approve", "revision": 1}).status_code == 409
    # the parked reply is closed: the session takes a new message and answers it
    send_user_text(client, agent_id, session_id, script_message([say_step("hello again")]))

    def answered() -> bool:
        messages = client.get(f"/sessions/{session_id}/messages", params={"agent_id": agent_id}).json()["messages"]
        return any(block.get("text") == "hello again" for msg in messages for block in msg["content"])

    wait_for(answered, "the answer to the next message")


def test_cli_against_a_running_app(
    one_node: AppNode, parked: tuple[str, str, dict[str, Any]], capsys: pytest.CaptureFixture[str]
) -> None:
    agent_id, session_id, _ = parked
    common = ["--session", session_id, "--agent", agent_id, "--url", one_node.url, "--user", USER]
    assert cli_main(["status", *common]) == 0
    assert "awaiting  approval of revision 1: Plan ready for review" in capsys.readouterr().out
    assert cli_main(["show", *common]) == 0
    assert capsys.readouterr().out == PLAN + "\n"
    assert cli_main(["approve", *common, "--token", "wrong"]) == 1
    assert capsys.readouterr().err == "planmode: the server refused (403): the X-Admin-Token header is wrong\n"
    assert cli_main(["approve", *common, "--token", TOKEN, "--actor", "cli-carl"]) == 0
    assert capsys.readouterr().out == "approve of revision 1 applied\n"
    with one_node.client(USER) as http:
        view = wait_for(lambda: settled_in(http, agent_id, session_id, "building"), "the build phase")
    assert [entry for entry in view["audit"] if entry["kind"] == "decision"][-1]["actor"] == "admin:cli-carl"
    assert cli_main(["reject", *common, "--token", TOKEN]) == 1
    assert "no plan is awaiting approval" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("header", "recorded"),
    [(None, "admin"), ("dana", "admin:dana"), ("user:alice", "user:alice"), ("lead:ci bot", "lead:ci bot")],
)
def test_actor_header_is_recorded_in_the_audit_log(
    client: httpx.Client, session: tuple[str, str], header: str | None, recorded: str
) -> None:
    agent_id, session_id = session
    headers = {"X-Admin-Token": TOKEN, **({"X-Actor": header} if header is not None else {})}
    response = client.post(url(session_id, ":enter-plan-mode"), params={"agent_id": agent_id}, headers=headers)
    assert response.status_code == 200, response.text
    assert response.json()["audit"][-1] == {**response.json()["audit"][-1], "kind": "entered", "actor": recorded}


def test_unqualifiable_actor_is_422(client: httpx.Client, session: tuple[str, str]) -> None:
    agent_id, session_id = session
    response = client.post(
        url(session_id, ":enter-plan-mode"), params={"agent_id": agent_id},
        headers={"X-Admin-Token": TOKEN, "X-Actor": "user:"},
    )  # fmt: skip
    assert response.status_code == 422
    assert response.json()["detail"].startswith('X-Actor: unknown actor "user:"')
    assert get_plan(client, agent_id, session_id)["phase"] == "never_entered"  # nothing changed


def test_review_page_is_self_contained_with_a_strict_policy(
    client: httpx.Client, parked: tuple[str, str, dict[str, Any]]
) -> None:
    agent_id, session_id, _ = parked
    page = client.get(url(session_id, "/plan/review"), params={"agent_id": agent_id, "user_id": USER})
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    policy = page.headers["content-security-policy"]
    assert "default-src 'none'" in policy and "script-src 'self'" in policy and "connect-src 'self'" in policy
    assert page.headers["x-content-type-options"] == "nosniff"
    assert "<h1>Plan</h1>" in page.text and 'id="btn-approve"' in page.text
    assert "http://" not in page.text and "https://" not in page.text  # nothing loaded from elsewhere
    missing = client.get(url("no-such-session", "/plan/review"), params={"agent_id": agent_id, "user_id": USER})
    assert missing.status_code == 404


def test_sessions_of_one_agent_share_a_workspace_but_not_a_plan_file(
    client: httpx.Client, session: tuple[str, str]
) -> None:
    agent_id, first = session
    record = client.get("/sessions/", params={"agent_id": agent_id}).json()["sessions"][0]["session"]
    assert record["id"] == first
    body = {"agent_id": agent_id, "chat_model_config": record["config"]["chat_model_config"], "name": "second"}
    second = client.post("/sessions/", json=body).json()["session_id"]
    views = {}
    for session_id, text in ((first, "# First plan\n"), (second, "# Second plan\n")):
        send_user_text(client, agent_id, session_id, script_message(planning_script(text)))
        views[session_id] = wait_for(partial(settled_in, client, agent_id, session_id, "awaiting_approval"), "a plan")
    paths = {session_id: Path(view["disk"]["path"]) for session_id, view in views.items()}
    assert paths[first].parents[2] == paths[second].parents[2]  # one workspace ...
    assert paths[first] != paths[second]  # ... one plan file each
    assert paths[first].read_text() == "# First plan\n" and paths[second].read_text() == "# Second plan\n"


def test_approval_can_switch_the_permission_mode(
    client: httpx.Client, parked: tuple[str, str, dict[str, Any]]
) -> None:
    agent_id, session_id, _ = parked
    response = decide(client, agent_id, session_id, {"decision": "approve", "revision": 1, "next_mode": "accept_edits"})
    assert response.status_code == 202, response.text
    view = wait_for(lambda: settled_in(client, agent_id, session_id, "building"), "the build phase")
    assert [e.get("to_mode") for e in view["audit"] if e["kind"] == "decision"] == ["accept_edits"]
    sessions = client.get("/sessions/", params={"agent_id": agent_id}).json()["sessions"]
    state = next(s["session"]["state"] for s in sessions if s["session"]["id"] == session_id)
    assert state["permission_context"]["mode"] == "accept_edits"


def test_oversized_body_is_413(client: httpx.Client, session: tuple[str, str]) -> None:
    agent_id, session_id = session
    body = {"decision": "approve_with_edits", "revision": 1, "edited_plan": "x" * (4 * 1024 * 1024 + 1)}
    response = decide(client, agent_id, session_id, body)
    assert response.status_code == 413
    assert "the limit is 4194304" in response.json()["detail"]


def test_invalid_edited_plan_is_422_and_changes_nothing(
    client: httpx.Client, parked: tuple[str, str, dict[str, Any]]
) -> None:
    agent_id, session_id, view = parked
    response = decide(client, agent_id, session_id, {"decision": "approve_with_edits", "revision": 1,
                                                     "edited_plan": "step 1\u0000"})  # fmt: skip
    assert response.status_code == 422
    assert "NUL" in response.json()["detail"]
    after = get_plan(client, agent_id, session_id)
    assert (after["audit"], after["decision_in_flight"], after["pending"]) == (view["audit"], None, view["pending"])
