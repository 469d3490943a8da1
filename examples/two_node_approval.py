"""Two AgentScope app processes sharing one Redis: plan on node A, lose node A, approve and build on node B.

    python examples/two_node_approval.py            # approves through node B's admin API by itself
    python examples/two_node_approval.py --manual   # prints node B's review page and waits for you

Needs `redis-server` on PATH and `pip install 'planmode[agentscope,service]'`, run from a checkout: the
process launcher and the scripted app are the checkout's `devtools` helpers, not part of the package.
Runs offline: the model is the scripted one, whose script travels in the user message, so both nodes
play the same script.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the checkout's devtools helpers

from devtools.nodes import (
    AppNode,
    RedisServer,
    create_scripted_session,
    get_plan,
    send_user_text,
    settled_in,
    wait_for,
)
from devtools.scripted_app import planning_script, script_message

TOKEN = "example-admin-token"
USER = "alice"
PLAN = """# Add a health check

1. Read the router module
2. Add `GET /healthz` returning the build version
3. Test it against a real server
"""


def run(workdir: Path, manual: bool) -> None:
    """Starts Redis and two nodes, runs the scenario, and always stops every process."""
    redis = RedisServer(workdir)
    nodes: list[AppNode] = []
    try:
        for name in ("node-a", "node-b"):  # spawned together, so they start in parallel
            nodes.append(AppNode(name, redis.port, workdir, TOKEN))
        node_a, node_b = (node.wait_ready() for node in nodes)
        print(f"redis on :{redis.port}, node A on {node_a.url}, node B on {node_b.url}")
        with node_a.client(USER) as client_a, node_b.client(USER) as client_b:
            agent_id, session_id = create_scripted_session(client_a)
            send_user_text(client_a, agent_id, session_id, script_message(planning_script(PLAN)))
            view = wait_for(lambda: settled_in(client_a, agent_id, session_id, "awaiting_approval"), "the plan on A")
            print(f"node A: revision {view['revision']} sha256 {view['sha256'][:12]} awaiting approval")
            print(f"        plan file {view['disk']['path']}")

            node_a.kill()
            print("node A killed (SIGKILL)")

            view_b = get_plan(client_b, agent_id, session_id)  # read from Redis: node A's memory is gone
            for key in ("phase", "revision", "sha256", "plan_content", "pending", "todos", "audit", "plan_relpath"):
                assert view_b[key] == view[key], f"node B disagrees with node A on {key}"
            assert not Path(view_b["disk"]["path"]).exists()  # node B has no plan file yet (a GET never writes)
            restored = client_b.post(f"/v1/admin/sessions/{session_id}/plan:restore-file",
                                     params={"agent_id": agent_id}, headers={"X-Admin-Token": TOKEN})
            restored.raise_for_status()
            print(f"node B: same revision {view_b['revision']}, same sha256; plan restored into "
                  f"{restored.json()['disk']['path']} (restored={restored.json()['restored']})")  # fmt: skip

            if manual:
                print(f"\nReview and decide on node B (admin token: {TOKEN}):\n  {node_b.url}/v1/admin/sessions/"
                      f"{session_id}/plan/review?agent_id={agent_id}&user_id={USER}\n")  # fmt: skip
                final = wait_for(lambda: settled_in(client_b, agent_id, session_id, "building"), "your approval",
                                 timeout=3600)  # fmt: skip
            else:
                answer = client_b.post(
                    f"/v1/admin/sessions/{session_id}/plan:decide",
                    params={"agent_id": agent_id},
                    json={"decision": "approve", "revision": view_b["revision"]},
                    headers={"X-Admin-Token": TOKEN, "X-Actor": "example-operator"},
                )
                answer.raise_for_status()
                print(f"node B: approved revision {view_b['revision']} as example-operator")
                final = wait_for(lambda: settled_in(client_b, agent_id, session_id, "building"), "the build on B")
            last = final["audit"][-1] if final["audit"] else {}
            print(f"node B: phase {final['phase']}; last audit entry: {last.get('kind')} by {last.get('actor')}")
            for todo in final["todos"]:
                print(f"        todo [{todo.get('status')}] {todo.get('content')}")
    finally:
        for node in reversed(nodes):
            node.stop()
        redis.stop()


def main() -> None:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--manual", action="store_true", help="wait for a human to decide on the review page")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="planmode-two-nodes-") as workdir:
        run(Path(workdir), args.manual)


if __name__ == "__main__":
    main()
