"""Helpers for the team tests: drive leader and worker sessions of AgentScope's real app over HTTP."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import httpx
from admin_fixtures import TOKEN

from devtools.nodes import create_scripted_session, get_plan, send_user_text, wait_for
from devtools.scripted_app import script_message, tool_step


@dataclass
class Session:
    """One app session as the tests address it."""

    agent_id: str
    session_id: str


def leader(client: httpx.Client, mode: str, name: str = "lead") -> Session:
    """A new scripted agent + session in permission ``mode``."""
    agent_id, session_id = create_scripted_session(client, name)
    patched = client.patch(f"/sessions/{session_id}", params={"agent_id": agent_id}, json={"permission_mode": mode})
    patched.raise_for_status()
    return Session(agent_id, session_id)


def send(client: httpx.Client, session: Session, steps: list[dict[str, Any]]) -> None:
    """A user message carrying ``steps`` for the session's scripted model."""
    send_user_text(client, session.agent_id, session.session_id, script_message(steps))


def messages(client: httpx.Client, session: Session) -> list[dict[str, Any]]:
    """The session's stored messages."""
    got = client.get(f"/sessions/{session.session_id}/messages", params={"agent_id": session.agent_id})
    got.raise_for_status()
    return list(got.json()["messages"])


def blocks(client: httpx.Client, session: Session, kind: str) -> list[dict[str, Any]]:
    """Every stored content block of one type (``tool_result``, ``tool_call``, ``text``)."""
    return [b for m in messages(client, session) for b in m["content"] if isinstance(b, dict) and b.get("type") == kind]


def output_text(block: dict[str, Any]) -> str:
    """The text of a stored tool result."""
    out = block.get("output")
    if isinstance(out, str):
        return out
    return "".join(part.get("text", "") for part in out or [] if isinstance(part, dict))


def idle(client: httpx.Client, session: Session) -> bool:
    """No run holds the session."""
    return not get_plan(client, session.agent_id, session.session_id)["running"]


def wait_results(client: httpx.Client, session: Session, count: int, what: str) -> list[dict[str, Any]]:
    """Waits until the session is idle with at least ``count`` tool results; returns them."""
    def probe() -> list[dict[str, Any]] | None:
        found = blocks(client, session, "tool_result")
        return found if len(found) >= count and idle(client, session) else None

    return wait_for(probe, what)


def members(client: httpx.Client, lead: Session) -> dict[str, Session]:
    """The leader's team members by name."""
    listed = client.get("/sessions/", params={"agent_id": lead.agent_id}).json()["sessions"]
    team = next(s["team"] for s in listed if s["session"]["id"] == lead.session_id) or {"members": []}
    return {m["agent"]["data"]["name"]: Session(m["agent"]["id"], m["session_id"]) for m in team["members"]}


def report(text: str = "done") -> dict[str, Any]:
    """A worker's report to its leader (a worker's reply must end with one)."""
    return tool_step("TeamSay", {"content": text, "to": "lead"})


def decide(client: httpx.Client, session: Session, decision: str = "approve") -> None:
    """The human's decision on the leader's pending plan, through the admin API."""
    revision = get_plan(client, session.agent_id, session.session_id)["revision"]
    response = client.post(f"/v1/admin/sessions/{session.session_id}/plan:decide", params={"agent_id": session.agent_id},
                           json={"decision": decision, "revision": revision},
                           headers={"X-Admin-Token": TOKEN, "X-Actor": "human"})
    assert response.status_code == 202, response.text


def exit_plan(client: httpx.Client, session: Session) -> None:
    """Ends the leader's plan mode through the admin API."""
    response = client.post(f"/v1/admin/sessions/{session.session_id}:exit-plan-mode",
                           params={"agent_id": session.agent_id}, headers={"X-Admin-Token": TOKEN})
    assert response.status_code < 300, response.text
