"""Across machines: two AgentScope app processes sharing a real redis-server (started once for the module;
every test makes its own agent and sessions). Node A dying mid-approval is the scenario of
examples/two_node_approval.py, run and checked by test_admin_example.py."""

from __future__ import annotations

import hashlib
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
from admin_fixtures import TOKEN, USER, Cluster

from devtools.nodes import create_scripted_session, get_plan, send_user_text, settled_in, wait_for
from devtools.scripted_app import planning_script, script_message

PLAN = "# Migrate the store\n\n1. Dump the tables\n2. Load them into the new store\n3. Switch reads\n"
EDITED = PLAN + "4. Drop the old store\n"


def test_plan_written_on_a_is_edited_on_b_s_disk_then_approved_and_built_on_b(two_nodes: Cluster) -> None:
    node_a, node_b = two_nodes.nodes["a"], two_nodes.nodes["b"]
    with node_a.client(USER) as client_a, node_b.client(USER) as client_b:
        agent_id, session_id = create_scripted_session(client_a)
        send_user_text(client_a, agent_id, session_id, script_message(planning_script(PLAN, built="Built on B.")))
        on_a = wait_for(lambda: settled_in(client_a, agent_id, session_id, "awaiting_approval"), "the plan on A")
        file_a = Path(on_a["disk"]["path"])
        assert file_a.is_relative_to(node_a.workspace_dir) and file_a.read_text() == PLAN

        on_b = get_plan(client_b, agent_id, session_id)
        for key in ("phase", "revision", "sha256", "plan_content", "pending", "todos", "audit", "plan_relpath"):
            assert on_b[key] == on_a[key], key
        file_b = Path(on_b["disk"]["path"])
        assert file_b.is_relative_to(node_b.workspace_dir)
        assert on_b["disk"]["exists"] is False and not file_b.exists()  # a GET never writes
        restored = client_b.post(f"/v1/admin/sessions/{session_id}/plan:restore-file", params={"agent_id": agent_id},
                                 headers={"X-Admin-Token": TOKEN})  # fmt: skip
        assert restored.status_code == 200 and restored.json()["restored"] is True
        assert file_b.read_text() == PLAN and restored.json()["disk"]["matches_state"] is True

        # A human edits the plan file on node B's disk: the hash node A recorded no longer matches.
        file_b.write_text(EDITED)
        edited = get_plan(client_b, agent_id, session_id)
        assert edited["disk"]["edited_on_disk"] is True
        assert edited["disk"]["sha256"] == hashlib.sha256(EDITED.encode()).hexdigest() != on_a["sha256"]
        assert edited["sha256"] == on_a["sha256"]  # state is untouched until the human decides

        decide = {"params": {"agent_id": agent_id}, "headers": {"X-Admin-Token": TOKEN, "X-Actor": "human-on-b"}}
        url = f"/v1/admin/sessions/{session_id}/plan:decide"
        refused = client_b.post(url, json={"decision": "approve", "revision": 1}, **decide)
        # approving revision 1 would approve text the human never reviewed: the edit becomes revision 2
        assert refused.status_code == 409 and "recorded as revision 2" in refused.text, refused.text
        review = get_plan(client_b, agent_id, session_id)
        assert review["pending"]["revision"] == 2 and review["plan_content"] == EDITED
        approved = client_b.post(url, json={"decision": "approve", "revision": 2}, **decide)
        assert approved.status_code == 202, approved.text

        built = wait_for(lambda: settled_in(client_b, agent_id, session_id, "building"), "the build on node B")
        decision = [entry for entry in built["audit"] if entry["kind"] == "decision"][-1]
        assert (decision["decision"], decision["actor"]) == ("approve", "admin:human-on-b")
        # the build phase ran (on either node: both serve the bus): the todo list is the one the model wrote after
        # the approval
        assert built["todos"] == [{"content": "Build the approved plan", "status": "in_progress"}]
        # the edit made on B's disk became a revision of its own, marked as a human edit; A's revision is kept
        assert (built["revision"], built["approved_revision"], built["plan_content"]) == (2, 2, EDITED)
        assert built["sha256"] == hashlib.sha256(EDITED.encode()).hexdigest()
        assert [(r["number"], r["sha256"], r["edited_by_user"]) for r in built["revisions"]] == [
            (1, on_a["sha256"], False), (2, built["sha256"], True)
        ]  # fmt: skip
        assert built["disk"]["matches_state"] is True and file_b.read_text() == EDITED
        messages = client_b.get(f"/sessions/{session_id}/messages", params={"agent_id": agent_id}).json()
        texts = [block.get("text") for msg in messages["messages"] for block in msg["content"] if isinstance(block, dict)]
        assert "Built on B." in texts


def test_decisions_racing_through_both_nodes_exactly_one_wins(two_nodes: Cluster) -> None:
    node_a, node_b = two_nodes.nodes["a"], two_nodes.nodes["b"]
    with node_a.client(USER) as client_a, node_b.client(USER) as client_b:
        agent_id, session_id = create_scripted_session(client_a)
        send_user_text(client_a, agent_id, session_id, script_message(planning_script(PLAN)))
        wait_for(lambda: settled_in(client_b, agent_id, session_id, "awaiting_approval"), "the plan to park")
        attempts = [(client, decision) for client in (client_a, client_b) for decision in ("approve", "reject")] * 3
        barrier = threading.Barrier(len(attempts))

        def race(attempt: tuple[httpx.Client, str]) -> httpx.Response:
            client, decision = attempt
            barrier.wait()
            return client.post(
                f"/v1/admin/sessions/{session_id}/plan:decide", params={"agent_id": agent_id},
                json={"decision": decision, "revision": 1}, headers={"X-Admin-Token": TOKEN},
            )  # fmt: skip

        with ThreadPoolExecutor(len(attempts)) as pool:
            responses = list(pool.map(race, attempts))
        assert sorted(r.status_code for r in responses) == [202] + [409] * (len(attempts) - 1)
        winner = next(r.json()["decision"] for r in responses if r.status_code == 202)
        final = wait_for(
            lambda: settled_in(client_a, agent_id, session_id, "building" if winner == "approve" else "planning"),
            "the winning decision",
        )
        assert [e["decision"] for e in final["audit"] if e["kind"] == "decision"] == [winner]


def test_sessions_of_one_agent_planning_on_different_nodes_get_different_plan_files(
    two_nodes: Cluster,
) -> None:
    node_a, node_b = two_nodes.nodes["a"], two_nodes.nodes["b"]
    with node_a.client(USER) as client_a, node_b.client(USER) as client_b:
        agent_id, first = create_scripted_session(client_a)
        record = client_a.get("/sessions/", params={"agent_id": agent_id}).json()["sessions"][0]["session"]
        body = {"agent_id": agent_id, "chat_model_config": record["config"]["chat_model_config"], "name": "second"}
        second = client_b.post("/sessions/", json=body).json()["session_id"]
        send_user_text(client_a, agent_id, first, script_message(planning_script("# planned on A\n")))
        on_a = wait_for(lambda: settled_in(client_a, agent_id, first, "awaiting_approval"), "the plan on A")
        send_user_text(client_b, agent_id, second, script_message(planning_script("# planned on B\n")))
        on_b = wait_for(lambda: settled_in(client_b, agent_id, second, "awaiting_approval"), "the plan on B")
        # each process would happily give its first session the plain PLAN.md: the paths must differ anyway,
        # or the two plans would overwrite each other once both sessions run on the same node
        assert on_a["plan_path"] != on_b["plan_path"]
        for client, session_id, text in ((client_b, first, "# planned on A\n"), (client_a, second, "# planned on B\n")):
            view = client.post(f"/v1/admin/sessions/{session_id}/plan:restore-file", params={"agent_id": agent_id},
                               headers={"X-Admin-Token": TOKEN}).json()  # each node now holds both files
            assert view["disk"]["matches_state"] is True and Path(view["disk"]["path"]).read_text() == text
