"""Across app nodes: a worker follows the plan mode of a leader that planned on another node (which
then died); the leader's phase comes from the app's storage, not from any process's memory."""

from __future__ import annotations

from _team_support import decide, leader, members, output_text, report, send, wait_results
from admin_fixtures import USER, Cluster

from devtools.nodes import settled_in, wait_for
from devtools.scripted_app import say_step, script_message, tool_step
from planmode.agentscope._plan._texts import DENIED

PLAN = "# Plan\n\n1. Look\n2. Change\n"


def test_worker_on_b_follows_a_leader_that_planned_on_a(fresh_two_nodes: Cluster) -> None:
    node_a, node_b = fresh_two_nodes.nodes["a"], fresh_two_nodes.nodes["b"]
    with node_a.client(USER) as client_a, node_b.client(USER) as client_b:
        lead = leader(client_a, "bypass")
        send(client_a, lead, [
            tool_step("TeamCreate", {"name": "t", "description": "d"}),
            tool_step("AgentCreate", {"name": "w", "description": "helps",
                                      "prompt": script_message([report("ready"), say_step("ok")])}),
            tool_step("plan_enter", {}), tool_step("plan_write", {"content": PLAN}),
            tool_step("plan_exit", {"summary": "ready"}), say_step("approved"),
        ])
        wait_for(lambda: settled_in(client_a, lead.agent_id, lead.session_id, "awaiting_approval"), "the plan on A")
        worker = wait_for(lambda: members(client_a, lead).get("w"), "the worker")
        wait_results(client_a, worker, 1, "the worker's first report")
        node_a.kill()

        send(client_b, worker, [tool_step("Bash", {"command": "echo planning > during.txt"}), report(), say_step("ok")])
        during = wait_results(client_b, worker, 3, "the worker's write on B")[1]
        assert (during["name"], during["state"], output_text(during)) == ("Bash", "denied", DENIED)
        assert not list(fresh_two_nodes.workdir.rglob("during.txt"))

        decide(client_b, lead)
        wait_for(lambda: settled_in(client_b, lead.agent_id, lead.session_id, "building"), "the build on B")
        send(client_b, worker, [tool_step("Bash", {"command": "echo built > after.txt"}), report(), say_step("ok")])
        after = wait_results(client_b, worker, 5, "the worker's write after approval")[3]
        assert after["state"] == "success", output_text(after)
        assert [p.read_text() for p in node_b.workspace_dir.rglob("after.txt")] == ["built\n"]
