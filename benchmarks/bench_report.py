"""`planmode report` over 10,000 stored runs, from dumped AgentState files, from a real redis-server
holding them as AgentScope ``RedisStorage`` sessions and from SQLite holding them as
``AsyncSQLAlchemyStorage`` sessions, side by side with the AgentScope-only way (load every state
with ``AgentState.model_validate_json`` / ``list_sessions`` and read the plan-mode phase in Python),
with the ratio.

    python benchmarks/bench_report.py [--runs 10000]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the checkout's devtools helpers

from _report_support import generated_states  # noqa: E402
from agentscope.app.storage import AsyncSQLAlchemyStorage, RedisStorage, SessionConfig, StorageBase  # noqa: E402
from agentscope.state import AgentState  # noqa: E402

from devtools.nodes import RedisServer  # noqa: E402
from planmode.report import report_from_dir, report_from_redis, report_from_sql  # noqa: E402

USER = "bench"
AGENTS = [f"agent-{i}" for i in range(10)]


def timed(call: Callable[[], Any]) -> tuple[float, Any]:
    """Wall time of one call, in seconds, and its result."""
    start = time.perf_counter()
    result = call()
    return time.perf_counter() - start, result


def phases_with_agentscope(paths: list[Path]) -> Counter[str]:
    """The AgentScope-only equivalent over files: every state loaded, only the phase counted."""
    counts: Counter[str] = Counter()
    for path in paths:
        state = AgentState.model_validate_json(path.read_bytes())
        counts[(state.middle_context.get("planmode") or {}).get("phase", "never_entered")] += 1
    return counts


async def fill_storage(storage: StorageBase, states: list[AgentState]) -> None:
    """Stores every state as a session of the real storage, spread over ten agents."""
    async with storage:
        for i, state in enumerate(states):
            await storage.upsert_session(USER, AGENTS[i % len(AGENTS)], SessionConfig(workspace_id="w"), state=state)


async def phases_from_storage(storage: StorageBase) -> Counter[str]:
    """The AgentScope-only equivalent over the app's storage: ``list_sessions`` per agent, phase counted."""
    counts: Counter[str] = Counter()
    async with storage:
        for agent in AGENTS:
            for record in await storage.list_sessions(USER, agent):
                counts[(record.state.middle_context.get("planmode") or {}).get("phase", "never_entered")] += 1
    return counts


def run(workdir: Path, count: int) -> None:
    """Generates, stores and reports; prints one line per source."""
    gen_secs, (states, _) = timed(lambda: generated_states(count))
    print(f"generated {count} runs in {gen_secs:.1f} s (real PlanBook state machines, 6 messages of context each)")
    files = workdir / "states"
    files.mkdir()
    paths = []
    for i, state in enumerate(states):
        path = files / f"run-{i:05d}.json"
        path.write_text(state.model_dump_json(), encoding="utf-8")
        paths.append(path)
    size = sum(p.stat().st_size for p in paths) / 1e6
    ours, report = timed(lambda: report_from_dir(files))
    theirs, counts = timed(lambda: phases_with_agentscope(paths))
    assert report["runs"] == count and sum(counts.values()) == count
    print(f"files  ({size:.0f} MB): planmode report {ours:6.2f} s   AgentScope AgentState load + phase {theirs:6.2f} s"
          f"   ratio {ours / theirs:5.2f}")  # fmt: skip
    redis = RedisServer(workdir)
    try:
        asyncio.run(fill_storage(RedisStorage(port=redis.port, host="127.0.0.1"), states))
        url = f"redis://127.0.0.1:{redis.port}/0"
        ours, report = timed(lambda: report_from_redis(url))
        theirs, counts = timed(lambda: asyncio.run(phases_from_storage(RedisStorage(port=redis.port, host="127.0.0.1"))))
        assert report["runs"] == count and sum(counts.values()) == count, (report["runs"], counts)
        print(f"redis  ({count} sessions): planmode report {ours:6.2f} s   AgentScope list_sessions + phase "
              f"{theirs:6.2f} s   ratio {ours / theirs:5.2f}")  # fmt: skip
    finally:
        redis.stop()
    sql = f"sqlite+aiosqlite:///{workdir / 'sessions.db'}"
    fill_secs, _ = timed(lambda: asyncio.run(fill_storage(AsyncSQLAlchemyStorage(sql), states)))
    ours, report = timed(lambda: report_from_sql(sql))
    theirs, counts = timed(lambda: asyncio.run(phases_from_storage(AsyncSQLAlchemyStorage(sql))))
    assert report["runs"] == count and report["unreadable"] == 0 and sum(counts.values()) == count
    print(f"sqlite ({count} sessions, stored in {fill_secs:.0f} s): planmode report {ours:6.2f} s   AgentScope "
          f"list_sessions + phase {theirs:6.2f} s   ratio {ours / theirs:5.2f}")  # fmt: skip


def main() -> None:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=10_000, help="stored runs to generate and report on")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="planmode-bench-report-") as workdir:
        run(Path(workdir), args.runs)


if __name__ == "__main__":
    main()
