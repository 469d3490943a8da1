"""Admin API cost on a real app node + redis-server, side by side with AgentScope's own session routes.

Prints, per request kind, the median latency of our route and of the closest AgentScope route on the
same node and session, with their ratio; then the time from a decision to the build phase.

    python benchmarks/bench_admin.py [--requests 200]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the checkout's devtools helpers

from devtools.nodes import (
    AppNode,
    RedisServer,
    create_scripted_session,
    send_user_text,
    settled_in,
    wait_for,
)
from devtools.scripted_app import planning_script, script_message

TOKEN = "bench-token"
USER = "bench"
PLAN = "# Bench plan\n\n" + "".join(f"{i}. step {i}\n" for i in range(1, 41))


def median_ms(call: Callable[[], httpx.Response], count: int) -> float:
    """Median wall time of ``count`` calls, in milliseconds (each call must succeed)."""
    samples = []
    for _ in range(count):
        start = time.perf_counter()
        call().raise_for_status()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def parked_session(client: httpx.Client) -> tuple[str, str]:
    """A session whose agent wrote PLAN and waits for approval."""
    agent_id, session_id = create_scripted_session(client)
    send_user_text(client, agent_id, session_id, script_message(planning_script(PLAN)))
    wait_for(lambda: settled_in(client, agent_id, session_id, "awaiting_approval"), "the plan to park")
    return agent_id, session_id


def run(workdir: Path, count: int) -> None:
    """Starts redis and one node, measures, stops them."""
    redis = RedisServer(workdir)
    node: AppNode | None = None
    try:
        node = AppNode("bench", redis.port, workdir, TOKEN)
        node.wait_ready()
        with node.client(USER) as client:
            agent_id, session_id = parked_session(client)
            query = {"agent_id": agent_id}
            ours = median_ms(lambda: client.get(f"/v1/admin/sessions/{session_id}/plan", params=query), count)
            theirs = median_ms(lambda: client.get(f"/sessions/{session_id}/status", params=query), count)
            print(f"GET plan view        {ours:7.2f} ms   AgentScope GET /sessions/{{id}}/status {theirs:7.2f} ms"
                  f"   ratio {ours / theirs:5.2f}")  # fmt: skip
            page = median_ms(
                lambda: client.get(f"/v1/admin/sessions/{session_id}/plan/review", params={**query, "user_id": USER}),
                count,
            )
            messages = median_ms(lambda: client.get(f"/sessions/{session_id}/messages", params=query), count)
            print(f"GET review page      {page:7.2f} ms   AgentScope GET /sessions/{{id}}/messages {messages:7.2f} ms"
                  f"   ratio {page / messages:5.2f}")  # fmt: skip
            enter = median_ms(
                lambda: client.post(f"/v1/admin/sessions/{session_id}:enter-plan-mode", params=query,
                                    headers={"X-Admin-Token": TOKEN}),
                count,
            )  # fmt: skip
            patch = median_ms(
                lambda: client.patch(f"/sessions/{session_id}", params=query, json={"permission_mode": "default"}),
                count,
            )
            print(f"POST :enter-plan-mode {enter:6.2f} ms   AgentScope PATCH /sessions/{{id}}        {patch:7.2f} ms"
                  f"   ratio {enter / patch:5.2f}")  # fmt: skip
            decided = []
            for _ in range(5):
                agent_id, session_id = parked_session(client)
                start = time.perf_counter()
                client.post(f"/v1/admin/sessions/{session_id}/plan:decide", params={"agent_id": agent_id},
                            json={"decision": "approve", "revision": 1},
                            headers={"X-Admin-Token": TOKEN}).raise_for_status()  # fmt: skip
                wait_for(partial(settled_in, client, agent_id, session_id, "building"), "the build phase")
                decided.append((time.perf_counter() - start) * 1000)
            print(f"decision -> build phase persisted (resume through the run queue): median "
                  f"{statistics.median(decided):.0f} ms over 5 sessions")  # fmt: skip
    finally:
        if node is not None:
            node.stop()
        redis.stop()


def main() -> None:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=200, help="requests per measured route")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="planmode-bench-admin-") as workdir:
        run(Path(workdir), args.requests)


if __name__ == "__main__":
    main()
