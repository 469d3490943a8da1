"""Chaos: three app nodes on one real Redis, 30 sessions driven concurrently through plan -> decide ->
build while nodes are SIGKILLed at random (during resumes) and restarted on their own disks.

At the end every session is building with exactly the approved revision and its seeded todos, or is
awaiting approval with a decision that can still be made; none is stuck, none applied a decision twice,
and every audit log agrees with what happened. The counts are printed. No timing thresholds: the only
waits are bounded polls for a state to be reached.
"""

from __future__ import annotations

import random
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx
import pytest
from admin_fixtures import TOKEN, USER

from devtools.nodes import AppNode, RedisServer, create_scripted_session, send_user_text, wait_for
from devtools.scripted_app import say_step, script_message, tool_step
from planmode._core import plan_sha256, plan_steps

SESSIONS = 30
NODES = ("n1", "n2", "n3")
RUN_LOCK_TTL_SECS = 3
DECISION_LEASE_SECS = 4
CHAOS_SECS = 20
SETTLE_SECS = 120


def _plan(index: int) -> str:
    return f"# Plan {index}\n\n## Steps\n1. Read module {index}\n2. Change module {index}\n3. Test module {index}\n"


def _script(index: int) -> list[dict[str, Any]]:
    """Plan, ask; once approved answer without touching the todos (so they stay the seeded ones)."""
    return [tool_step("plan_enter"), tool_step("plan_write", {"content": _plan(index)}),
            tool_step("plan_exit", {"summary": f"plan {index}"}), say_step(f"built {index}")]  # fmt: skip


class Cluster:
    """The nodes, restartable on their own workspace directories; ``alive`` is what a client may use."""

    def __init__(self, redis: RedisServer, workdir: Path, stack: ExitStack) -> None:
        self.redis, self.workdir, self.stack = redis, workdir, stack
        self.env = {"PLANMODE_RUN_LOCK_TTL_SECS": str(RUN_LOCK_TTL_SECS),
                    "PLANMODE_DECISION_LEASE_SECS": str(DECISION_LEASE_SECS)}  # fmt: skip
        self.lock = threading.Lock()
        self.nodes: dict[str, AppNode] = {}
        self.ready: set[str] = set()
        self.generation = Counter[str]()
        for name in NODES:
            self._spawn(name)
        for name, node in list(self.nodes.items()):
            node.wait_ready()
            self.ready.add(name)

    def _spawn(self, name: str) -> AppNode:
        self.generation[name] += 1
        node = AppNode(f"{name}-{self.generation[name]}", self.redis.port, self.workdir, TOKEN,
                       workspace_dir=self.workdir / f"{name}-workspaces", env=self.env)  # fmt: skip
        self.stack.callback(node.stop)
        with self.lock:
            self.nodes[name] = node
        return node

    def alive(self) -> list[AppNode]:
        """Nodes whose process runs (one still starting refuses connections: callers retry)."""
        with self.lock:
            return [n for n in self.nodes.values() if n.proc.poll() is None]

    def kill_and_restart(self, name: str) -> threading.Thread:
        """SIGKILLs the node now and brings it back on its own disk in the background."""
        with self.lock:
            node = self.nodes.pop(name)
            self.ready.discard(name)
        node.kill()

        def back() -> None:
            node = self._spawn(name)
            while True:  # a loaded machine may take a while: wait as long as the process lives
                try:
                    node.wait_ready()
                    break
                except TimeoutError:
                    continue
            with self.lock:
                self.ready.add(name)

        restart = threading.Thread(target=back, daemon=True)
        restart.start()
        return restart


def _view(node: AppNode, agent_id: str, session_id: str) -> dict[str, Any] | None:
    try:
        with node.client(USER) as http:
            response = http.get(f"/v1/admin/sessions/{session_id}/plan", params={"agent_id": agent_id})
    except httpx.HTTPError:
        return None
    return dict(response.json()) if response.status_code == 200 else None


def _decide(node: AppNode, agent_id: str, session_id: str, revision: int) -> int | None:
    try:
        with node.client(USER) as http:
            response = http.post(f"/v1/admin/sessions/{session_id}/plan:decide", params={"agent_id": agent_id},
                                 json={"decision": "approve", "revision": revision},
                                 headers={"X-Admin-Token": TOKEN, "X-Actor": "chaos"})  # fmt: skip
    except httpx.HTTPError:
        return None
    return response.status_code


def _decidable(view: dict[str, Any]) -> bool:
    claim = view.get("decision_in_flight") or {}
    return view["phase"] == "awaiting_approval" and not claim.get("live") and not view["running"]


# Its own bounded waits add up to more than the default per-test limit: three nodes starting (90 s),
# every plan parking (SETTLE_SECS * 3), the chaos (CHAOS_SECS), the settling (SETTLE_SECS), restarts.
@pytest.mark.timeout(900)
def test_sessions_survive_nodes_dying_during_resumes(tmp_path: Path) -> None:
    rng = random.Random(20261201)
    with ExitStack() as stack:
        redis = RedisServer(tmp_path)
        stack.callback(redis.stop)
        cluster = Cluster(redis, tmp_path, stack)

        def start(index: int) -> tuple[str, str]:
            node = cluster.alive()[index % len(NODES)]
            with node.client(USER) as http:
                agent_id, session_id = create_scripted_session(http, f"planner-{index}")
                send_user_text(http, agent_id, session_id, script_message(_script(index)))
            return agent_id, session_id

        with ThreadPoolExecutor(8) as pool:
            sessions = list(pool.map(start, range(SESSIONS)))
        for agent_id, session_id in sessions:
            wait_for(lambda a=agent_id, s=session_id: (v := _view(cluster.alive()[0], a, s)) is not None
                     and v["phase"] == "awaiting_approval" and not v["running"], "every plan to park",
                     timeout=SETTLE_SECS * 3)  # a bound, not a speed check: a loaded machine parks slowly  # fmt: skip

        sent = Counter[int]()
        kills = 0
        stop = threading.Event()

        def driver(index: int, delay: float) -> None:
            agent_id, session_id = sessions[index]
            time.sleep(delay)  # decisions spread over the chaos window, so kills land during resumes
            while not stop.is_set():
                node = rng.choice(cluster.alive() or [None]) if cluster.alive() else None
                view = _view(node, agent_id, session_id) if node else None
                if view is not None and view["phase"] == "building":
                    return
                if view is not None and _decidable(view) and node is not None:
                    code = _decide(node, agent_id, session_id, view["pending"]["revision"])
                    if code is not None:
                        sent[code] += 1
                time.sleep(rng.uniform(0.2, 0.8))

        def killer() -> None:
            nonlocal kills
            restarts: list[threading.Thread] = []
            deadline = time.monotonic() + CHAOS_SECS
            while time.monotonic() < deadline:
                time.sleep(rng.uniform(1.0, 2.5))
                with cluster.lock:
                    up = sorted(cluster.ready)
                if up:  # only a node that finished starting (the drivers retry while none serves)
                    restarts.append(cluster.kill_and_restart(rng.choice(up)))
                    kills += 1
            for restart in restarts:
                restart.join()

        drivers = [threading.Thread(target=driver, args=(i, rng.uniform(0, CHAOS_SECS * 0.8)), daemon=True)
                   for i in range(SESSIONS)]  # fmt: skip
        for thread in drivers:
            thread.start()
        killer()
        # Faults are over: every session must now reach the build phase by ordinary retries.
        settle_deadline = time.monotonic() + SETTLE_SECS
        for thread in drivers:
            thread.join(max(0.0, settle_deadline - time.monotonic()))
        stop.set()

        node = cluster.alive()[0]
        outcome = Counter[str]()
        problems: list[str] = []
        for index, (agent_id, session_id) in enumerate(sessions):
            view = _view(node, agent_id, session_id)
            assert view is not None, session_id
            audit = view["audit"]
            approvals = [a for a in audit if a["kind"] == "decision" and a.get("decision") == "approve"]
            claims = sum(a["kind"] == "decision_claimed" for a in audit)
            expired = sum(a["kind"] == "claim_expired" for a in audit)
            if view["phase"] == "building":
                outcome["building"] += 1
                expected_todos = [step for step in plan_steps(_plan(index))]
                checks = {
                    "applied once": len(approvals) == 1,
                    "approved revision": view["approved_revision"] == 1 == view["revision"],
                    "approved text": view["plan_content"] == _plan(index) and view["sha256"] == plan_sha256(_plan(index)),
                    "seeded todos": [t["content"] for t in view["todos"]] == expected_todos,
                    "claims applied or expired": claims == expired + 1,
                }  # fmt: skip
            elif _decidable(view):
                outcome["pending, decidable"] += 1
                checks = {"nothing applied": not approvals, "claims all expired": claims == expired}
            else:
                outcome["stuck"] += 1
                checks = {"not stuck": False}
            outcome["expired claims (re-decided)"] += expired
            problems += [f"session {index}: {name}: {view['phase']} {audit}" for name, ok in checks.items() if not ok]
        print(f"\nchaos: {SESSIONS} sessions, {len(NODES)} nodes, {kills} SIGKILLs during resumes; decide answers "
              f"{dict(sent)}; outcome {dict(outcome)}; applied twice "
              f"{sum('applied once' in p for p in problems)}; problems {len(problems)}")  # fmt: skip
        assert not problems, "\n".join(problems[:5])
        assert outcome["stuck"] == 0 and outcome["building"] + outcome["pending, decidable"] == SESSIONS
