"""Plan mode in AgentScope's real app (real Redis, real app processes): team workers created or
invited by a planning leader are read-only for as long as the leader plans, whenever they were
created, in every permission mode and on any node; they follow the leader once the plan is
approved; their confirmation requests still reach the leader's session."""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import httpx
import pytest
from _team_support import (
    Session,
    blocks,
    decide,
    exit_plan,
    leader,
    members,
    output_text,
    report,
    send,
    wait_results,
)
from admin_fixtures import USER, Cluster, start_cluster
from agentscope.event import ConfirmResult, UserConfirmResultEvent
from agentscope.message import ToolCallBlock

from devtools.nodes import settled_in, wait_for
from devtools.scripted_app import say_step, script_message, tool_step
from planmode.agentscope._plan._texts import DENIED

MODES = ["default", "accept_edits", "explore", "bypass", "dont_ask"]
PLAN = "# Investigate with the team\n\n1. Ask the workers\n2. Decide\n"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """One app node (default wiring: subagent_policy="enforce") on its own redis-server."""
    yield from start_cluster(tmp_path_factory.mktemp("team"), ("node",))


def _workdir(client: httpx.Client, lead: Session) -> Path:
    """The leader's workspace directory (its Bash ran ``pwd``)."""
    pwd = next(r for r in blocks(client, lead, "tool_result") if r["name"] == "Bash")
    return Path(output_text(pwd).strip().splitlines()[-1])


def _write_steps(where: Path, *names: str) -> list[dict]:  # type: ignore[type-arg]
    """A worker's writes: AgentScope's Write tool and a shell redirection, one file each."""
    steps = []
    for name in names:
        steps.append(tool_step("Write", {"file_path": str(where / f"{name}.txt"), "content": "worker"}))
        steps.append(tool_step("Bash", {"command": f"echo worker > {name}-sh.txt"}))
    return steps


def _results_after(client: httpx.Client, worker: Session, skip: int) -> list[dict]:  # type: ignore[type-arg]
    return blocks(client, worker, "tool_result")[skip:]


def test_workers_are_read_only_while_the_leader_plans_in_every_mode(cluster: Cluster) -> None:
    node = cluster.nodes["node"]
    with node.client(USER) as client:
        leads = {mode: leader(client, mode) for mode in MODES}
        # 1. before plan mode: a team with one worker, which reports and goes idle
        for lead in leads.values():
            send(client, lead, [tool_step("Bash", {"command": "pwd"}), tool_step("TeamCreate", {"name": "t", "description": "d"}),
                                tool_step("AgentCreate", {"name": "early", "description": "helps",
                                                          "prompt": script_message([report("ready"), say_step("ok")])}),
                                say_step("team ready")])
        workers: dict[str, dict[str, Session]] = {}
        for mode, lead in leads.items():
            wait_for(lambda lead=lead: "early" in members(client, lead) or None, f"the early worker ({mode})")
            workers[mode] = members(client, lead)
            wait_results(client, workers[mode]["early"], 1, f"the early worker's report ({mode})")
        roots = {mode: _workdir(client, lead) for mode, lead in leads.items()}
        # 2. the leader plans, gives the early worker writes to do and creates a late one that writes
        for mode, lead in leads.items():
            root = roots[mode]
            send(client, lead, [
                tool_step("plan_enter", {}),
                tool_step("TeamSay", {"to": "early", "content": script_message(
                    [*_write_steps(root, "early"), tool_step("Read", {"file_path": str(root / "plans")}), report(),
                     say_step("ok")])}),
                tool_step("AgentCreate", {"name": "late", "description": "helps", "prompt": script_message(
                    [*_write_steps(root, "late"), report(), say_step("ok")])}),
                tool_step("plan_write", {"content": PLAN}),
                tool_step("plan_exit", {"summary": "ask the team"}),
                say_step("approved"),
            ])
        for mode, lead in leads.items():
            wait_for(lambda lead=lead: "late" in members(client, lead) or None, f"the late worker ({mode})")
            workers[mode] = members(client, lead)
            early = wait_results(client, workers[mode]["early"], 5, f"the early worker's writes ({mode})")[1:]
            late = wait_results(client, workers[mode]["late"], 3, f"the late worker's writes ({mode})")
            for result in [*early[:2], *late[:2]]:
                assert (result["name"], result["state"], output_text(result)) == (result["name"], "denied", DENIED), mode
            assert early[2]["name"] == "Read" and output_text(early[2]) != DENIED, (mode, early[2])  # reads run
            assert late[2]["name"] == "TeamSay" and late[2]["state"] == "success", mode  # messaging stays allowed
            written = sorted(p.name for p in roots[mode].iterdir() if p.suffix == ".txt")
            assert written == [], (mode, written)
        # 3. the plan is approved (DONT_ASK has no human: an administrator ends plan mode); the workers follow
        for mode, lead in leads.items():
            if mode == "dont_ask":
                wait_for(lambda lead=lead: settled_in(client, lead.agent_id, lead.session_id, "planning"), "the plan")
                exit_plan(client, lead)
            else:
                wait_for(lambda lead=lead: settled_in(client, lead.agent_id, lead.session_id, "awaiting_approval"),
                         f"the plan ({mode})")
                decide(client, lead)
        for mode, lead in leads.items():
            wait_for(lambda lead=lead: settled_in(client, lead.agent_id, lead.session_id, "building"), f"build ({mode})")
            root = roots[mode]
            send(client, lead, [tool_step("TeamSay", {"to": "late", "content": script_message(
                [tool_step("Write", {"file_path": str(root / "after.txt"), "content": "built"}), report(),
                 say_step("ok")])}), say_step("asked")])
        for mode, lead in leads.items():
            late = workers[mode]["late"]
            if mode == "default":  # the worker asks; the request reaches the leader's session, answered there
                _answer_through_leader(client, lead, late)
            after = wait_results(client, late, 5, f"the late worker after approval ({mode})")[3]
            assert after["name"] == "Write" and output_text(after) != DENIED, mode
            if mode != "explore":
                assert after["state"] == "success" and (roots[mode] / "after.txt").read_text() == "built", mode
            else:  # EXPLORE refuses writes by itself
                assert after["state"] == "denied" and not (roots[mode] / "after.txt").exists(), mode


def _answer_through_leader(client: httpx.Client, lead: Session, worker: Session) -> None:
    """Confirms the worker's parked call by posting the answer to the LEADER's session."""
    def parked() -> tuple[str, dict] | None:  # type: ignore[type-arg]
        for message in reversed(client.get(f"/sessions/{worker.session_id}/messages",
                                           params={"agent_id": worker.agent_id}).json()["messages"]):
            for block in message["content"]:
                if isinstance(block, dict) and block.get("type") == "tool_call" and block.get("state") == "asking":
                    return message["id"], block
        return None

    reply_id, call = wait_for(parked, "the worker's confirmation request")
    event = UserConfirmResultEvent(reply_id=reply_id, confirm_results=[
        ConfirmResult(confirmed=True, tool_call=ToolCallBlock.model_validate(call))])
    posted = client.post("/chat/", json={"agent_id": lead.agent_id, "session_id": lead.session_id,
                                         "input": json.loads(event.model_dump_json())})
    posted.raise_for_status()


@pytest.mark.parametrize("policy", ["ceiling", "off"])
def test_policies(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, policy: str) -> None:
    monkeypatch.setenv("PLANMODE_WIRING_OPTIONS", json.dumps({"subagent_policy": policy}))
    for cluster in start_cluster(tmp_path, ("node",)):
        with cluster.nodes["node"].client(USER) as client:
            lead = leader(client, "bypass")
            send(client, lead, [tool_step("Bash", {"command": "pwd"}), tool_step("plan_enter", {}),
                                tool_step("TeamCreate", {"name": "t", "description": "d"}),
                                tool_step("AgentCreate", {"name": "w", "description": "helps",
                                                          "prompt": script_message([report("ready"), say_step("ok")])}),
                                say_step("planning")])
            wait_for(partial(settled_in, client, lead.agent_id, lead.session_id, "planning"), "the leader")
            root = _workdir(client, lead)
            worker = wait_for(lambda lead=lead: members(client, lead).get("w"), "the worker")
            seen = len(wait_results(client, worker, 1, "the worker's first report"))
            send(client, worker, [*_write_steps(root, "w"), report(), say_step("ok")])
            got = wait_results(client, worker, seen + 3, "the worker's writes")[seen:]
            if policy == "off":
                assert got[0]["state"] == got[1]["state"] == "success" and (root / "w.txt").exists()
            else:
                assert [(r["state"], output_text(r)) for r in got[:2]] == [("denied", DENIED)] * 2
                assert not (root / "w.txt").exists()


def test_invited_agents_are_read_only_while_the_leader_plans(cluster: Cluster) -> None:
    with cluster.nodes["node"].client(USER) as client:
        helper = leader(client, "bypass", name="helper")  # its own agent, session and workspace
        invite = {"invite_config": {"invitable": True, "invite_description": "Checks things."}}
        client.patch(f"/agent/{helper.agent_id}", json={"chat_config": invite}).raise_for_status()
        lead = leader(client, "bypass")
        target = f"helper@{helper.agent_id[:8]}"
        send(client, lead, [tool_step("plan_enter", {}), tool_step("TeamCreate", {"name": "t", "description": "d"}),
                            tool_step("AgentInvite", {"target": target, "prompt": script_message(
                                [tool_step("Bash", {"command": "echo invited > invited.txt"}), report(),
                                 say_step("ok")])}),
                            tool_step("TeamDelete", {}),
                            say_step("planning")])
        invited = wait_for(lambda: members(client, lead).get("helper"), "the invited agent")
        got = wait_results(client, invited, 2, "the invited agent's write")
        assert (got[0]["name"], got[0]["state"], output_text(got[0])) == ("Bash", "denied", DENIED)
        assert not list(cluster.workdir.rglob("invited.txt"))
        # TeamDelete says it is read-only, but deletes the workers: denied while planning
        deleted = next(r for r in wait_results(client, lead, 4, "the leader") if r["name"] == "TeamDelete")
        assert (deleted["state"], output_text(deleted)) == ("denied", DENIED)
        assert "helper" in members(client, lead)
