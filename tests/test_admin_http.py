"""The admin API on a real AgentScope app process backed by a real redis-server."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
import redis
from admin_fixtures import TOKEN, USER, one_node  # noqa: F401  (fixture)
from agentscope.app.message_bus import MessageBusKeys

from planmode.agentscope._admin._nodes import AppNode, create_scripted_session

WRITES = [":enter-plan-mode", ":exit-plan-mode", "/plan:decide"]
APPROVE = {"decision": "approve", "revision": 1}


@pytest.fixture()
def client(one_node: AppNode) -> Iterator[httpx.Client]:  # noqa: F811
    with one_node.client(USER) as http:
        yield http


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
    method = client.get if suffix == "/plan" else client.post
    kwargs = {} if suffix == "/plan" else {"json": APPROVE, "headers": {"X-Admin-Token": TOKEN}}
    response = method(url("no-such-session", suffix), params={"agent_id": agent_id}, **kwargs)  # type: ignore[operator]
    assert response.status_code == 404
    assert "no-such-session" in response.json()["detail"]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"{not json", "body is not valid JSON"),
        (b"[1, 2]", "body must be a JSON object, got list"),
        (b'{"revision": 1}', "decision: Field required"),
        (b'{"decision": "maybe", "revision": 1}', "decision: Input should be 'approve', 'approve_with_edits'"),
        (b'{"decision": "approve", "revision": "1"}', "revision: Input should be a valid integer"),
        (b'{"decision": "approve", "revision": 0}', "revision: Input should be greater than or equal to 1"),
        (b'{"decision": "approve", "revision": 1, "extra": 1}', "extra: Extra inputs are not permitted"),
        (b'{"decision": "approve_with_edits", "revision": 1}', "approve_with_edits needs a non-empty edited_plan"),
        (b'{"decision": "request_changes", "revision": 1}', "request_changes needs a non-empty feedback"),
        (b'{"decision": "reject", "revision": 1, "edited_plan": "x"}', "edited_plan is only accepted with"),
        (b'{"decision": "approve", "revision": 1, "next_mode": "yolo"}', "next_mode: Input should be"),
        (b'{"decision": "reject", "revision": 1, "next_mode": "explore"}', "next_mode only applies to an approval"),
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
    assert "X-Actor header must be 1..128 printable characters" in response.json()["detail"]


@pytest.mark.parametrize("suffix", WRITES)
def test_session_held_by_a_run_is_409(
    one_node: AppNode, client: httpx.Client, session: tuple[str, str], suffix: str  # noqa: F811
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
