"""Task tools: AgentScope's pure-Python tools vs planmode's, side by side in one process.

For n = 10, 1,000 and 10,000 tasks (`--sizes 10 1000 10000 100000` adds 100,000) chained with
dependencies (task i blocked by task i-1), times one call of each kind at that size and prints
per-call medians and ratios:

- create: TaskCreate;
- link (new): TaskUpdate making a just-created task wait on a random earlier task;
- link (pair): TaskUpdate making a random chain task wait on a random earlier one;
- get: TaskGet of a random task;
- complete: TaskUpdate(status="completed") of a random pending task;
- list: TaskList (prints every task: O(n) for both);
- reload: AgentState.model_dump_json() -> model_validate_json() -> the first TaskGet.

Calls are batched so the size grows by at most 2% per batch, then a fresh state is built.
Times are CPU time of this thread (time.thread_time_ns), medians per call, so that other
processes on a busy machine do not distort them; the garbage collector is off while a call is
timed (as timeit does).
The chained starting state is built directly from Task objects (the same for both; chaining
10,000 tasks through AgentScope's TaskUpdate alone would take minutes). Then the native
TaskGraph: 100,000 tasks created, chained and completed, and its JSON round trip against
pydantic's TaskContext. Run with a release build: `make venv && .venv/bin/python benchmarks/bench_tasks.py`.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import statistics
import time
from collections.abc import Callable, Coroutine
from typing import Any

import agentscope.tool as builtin
from agentscope.state import AgentState, Task, TaskContext

import planmode.agentscope as ours
from planmode import TaskGraph

SIDES = {"AgentScope": builtin, "planmode": ours}


def run(coro: Coroutine[Any, Any, Any]) -> Any:
    """Drives a tool call that never suspends, without event-loop overhead."""
    try:
        coro.send(None)
    except StopIteration as stop:
        return stop.value
    raise RuntimeError("the tool call suspended")


def chained_state(n: int) -> AgentState:
    tasks = [
        Task(
            id=str(i),
            subject=f"Task {i}",
            description=f"Do step {i}",
            metadata={},
            blocks=[str(i + 1)] if i < n else [],
            blocked_by=[str(i - 1)] if i > 1 else [],
        )
        for i in range(1, n + 1)
    ]
    return AgentState(tasks_context=TaskContext(tasks=tasks))


Op = Callable[[dict[str, Any], AgentState, random.Random], dict[str, Any]]


def op_create(tools: dict[str, Any], state: AgentState, rng: random.Random) -> dict[str, Any]:
    return {"tool": tools["TaskCreate"], "kw": {"subject": "New task", "description": "more work"}}


def op_get(tools: dict[str, Any], state: AgentState, rng: random.Random) -> dict[str, Any]:
    n = len(state.tasks_context.tasks)
    return {"tool": tools["TaskGet"], "kw": {"task_id": str(rng.randint(1, n))}}


def op_link_new(tools: dict[str, Any], state: AgentState, rng: random.Random) -> dict[str, Any]:
    run(tools["TaskCreate"](_agent_state=state, subject="to link", description=""))  # untimed setup
    new = state.tasks_context.tasks[-1].id
    return {"tool": tools["TaskUpdate"], "kw": {"task_id": new, "add_blocked_by": [str(rng.randint(1, int(new) - 1))]}}


def op_link_pair(tools: dict[str, Any], state: AgentState, rng: random.Random) -> dict[str, Any]:
    n = len(state.tasks_context.tasks)
    j = rng.randint(3, n) if n >= 3 else n
    i = rng.randint(1, max(1, j - 2))
    return {"tool": tools["TaskUpdate"], "kw": {"task_id": str(j), "add_blocked_by": [str(i)]}}


def op_complete(tools: dict[str, Any], state: AgentState, rng: random.Random) -> dict[str, Any]:
    tasks = state.tasks_context.tasks
    while True:
        t = tasks[rng.randrange(len(tasks))]
        if t.state == "pending":
            return {"tool": tools["TaskUpdate"], "kw": {"task_id": t.id, "status": "completed"}}


def op_list(tools: dict[str, Any], state: AgentState, rng: random.Random) -> dict[str, Any]:
    return {"tool": tools["TaskList"], "kw": {}}


OPS: dict[str, Op] = {
    "create": op_create,
    "link (new)": op_link_new,
    "link (pair)": op_link_pair,
    "get": op_get,
    "complete": op_complete,
    "list": op_list,
}


def time_op(op: Op, n: int, calls: int, seed: int) -> dict[str, float]:
    """Median µs per call of `op` at size n, per side. The sides take turns, one batch each on a
    fresh state, so a slow spell of a shared machine falls on both rather than on one."""
    tools = {
        side: {name: getattr(module, name)() for name in ("TaskCreate", "TaskGet", "TaskList", "TaskUpdate")}
        for side, module in SIDES.items()
    }
    rngs = {side: random.Random(seed) for side in SIDES}
    batch = max(1, n // 50)
    samples: dict[str, list[int]] = {side: [] for side in SIDES}
    while len(samples["planmode"]) < calls:
        for side in SIDES:
            state = chained_state(n)
            # The collector stays off for the whole batch (as timeit does): a collection between
            # two calls would leave the next call, on either side, ~200 µs slower.
            gc.disable()
            try:
                run(tools[side]["TaskGet"](_agent_state=state, task_id="1"))  # warm up (builds planmode's index)
                for _ in range(min(batch, calls - len(samples[side]))):
                    call = op(tools[side], state, rngs[side])
                    t0 = time.thread_time_ns()
                    chunk = run(call["tool"](_agent_state=state, **call["kw"]))
                    samples[side].append(time.thread_time_ns() - t0)
                    assert chunk.state != "error", chunk
            finally:
                gc.enable()
    return {side: statistics.median(times) / 1000 for side, times in samples.items()}


def time_reload(side: str, n: int, reps: int) -> float:
    tools = {"TaskGet": SIDES[side].TaskGet()}
    state = chained_state(n)
    samples = []
    for _ in range(reps):
        t0 = time.thread_time_ns()
        loaded = AgentState.model_validate_json(state.model_dump_json())
        run(tools["TaskGet"](_agent_state=loaded, task_id=str(n)))
        samples.append(time.thread_time_ns() - t0)
    return statistics.fmean(samples) / 1000


def native(n: int) -> float:
    t0 = time.thread_time()
    g = TaskGraph()
    for i in range(1, n + 1):
        g.create("task", "")
        if i > 1:
            g.update(str(i), add_blocked_by=[str(i - 1)])
    for i in range(1, n + 1):
        g.update(str(i), status="completed")
    assert len(g) == n and g.ready() == []
    return time.thread_time() - t0


def best(fn: Callable[[], object], reps: int) -> float:
    """Best of `reps` runs, with the garbage collector off (as timeit does)."""
    out = []
    gc.collect()
    gc.disable()
    try:
        for _ in range(reps):
            t0 = time.thread_time()
            fn()
            out.append(time.thread_time() - t0)
    finally:
        gc.enable()
    return min(out)


def once(fn: Callable[[], object]) -> tuple[float, object]:
    """One run's thread CPU seconds (these sizes take seconds when quadratic) and its result."""
    gc.collect()
    t0 = time.thread_time()
    out = fn()
    return time.thread_time() - t0, out


def chain_dicts(n: int) -> list[dict[str, Any]]:
    return [t.model_dump() for t in chained_state(n).tasks_context.tasks]


def wide_inputs() -> None:
    """The sizes that were quadratic (issue 13): one task with 100,000 edges, validate() on 30,000
    edges, validate_state_dict on a 60,000-task star, a cycle refused on a 100,000-task chain."""
    from planmode.exceptions import CycleError

    print("\nwide inputs (one run each, thread CPU seconds)")
    g = TaskGraph()
    for _ in range(100_001):
        g.create("s", "")
    secs, _ = once(lambda: g.update("1", add_blocked_by=[str(i) for i in range(2, 100_002)]))
    print(f"  update(add_blocked_by=100,000 ids)              {secs:8.3f} s")
    g30 = TaskGraph(chain_dicts(30_001))
    secs, problems = once(g30.validate)
    print(f"  validate() on a 30,000-edge chain                {secs:8.3f} s  ({len(problems)} problems)")
    star = TaskGraph()
    for _ in range(60_000):
        star.create("s", "")
    star.update("1", add_blocks=[str(i) for i in range(2, 60_001)])
    secs, _ = once(star.validate)
    print(f"  validate() on a 60,000-task star                 {secs:8.3f} s")
    state = star.state_dict()
    secs, _ = once(lambda: TaskGraph.validate_state_dict(state))
    print(f"  validate_state_dict on a 60,000-task star        {secs:8.3f} s")
    chain = TaskGraph(chain_dicts(100_000))

    def refuse() -> str:
        try:
            chain.update("1", add_blocked_by=["100000"])
        except CycleError as e:
            return str(e)
        raise AssertionError("accepted a cycle")

    secs, message = once(refuse)
    print(f"  CycleError on a 100,000-task chain               {secs:8.3f} s  (message: {len(str(message)):,} bytes)")
    cyclic = chain_dicts(100_000)
    cyclic[0]["blocked_by"] = ["100000"]
    secs, found = once(lambda: TaskGraph.validate_state_dict({"tasks": cyclic}))
    longest = max(len(p["message"]) for p in found)  # type: ignore[attr-defined]
    print(f"  validate_state_dict, a 100,000-task cycle        {secs:8.3f} s  (message: {longest:,} bytes)")


def index_memory(n: int) -> None:
    """RSS growth of n AgentScope Tasks, then of planmode's index over them (one TaskGet builds it)."""
    import subprocess
    import sys

    code = f"""
import gc, sys
sys.path.insert(0, {str(__file__.rsplit("/", 1)[0])!r})
from bench_tasks import chained_state, run
import planmode.agentscope as ours
def rss():
    gc.collect()
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096
run(ours.TaskGet()(_agent_state=chained_state(1_000), task_id="1"))  # warm up imports and the allocator
base = rss()
state = chained_state({n})
tasks = rss() - base
run(ours.TaskGet()(_agent_state=state, task_id="1"))
index = rss() - base - tasks
print(tasks, index)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    tasks, index = int(out[0]), int(out[1])
    print(
        f"  {n:,} chained tasks: AgentScope's list {tasks / n:,.0f} B/task, planmode's index "
        f"{index / n:,.0f} B/task (+{100 * index / tasks:.0f} %)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 1_000, 10_000])
    parser.add_argument("--calls", type=int, default=400, help="timed calls per operation and size")
    parser.add_argument(
        "--only", choices=["calls", "native", "wide", "memory"], help="run one section (default: all)"
    )
    args = parser.parse_args()
    if args.only in (None, "calls"):
        calls_section(args.sizes, args.calls)
    if args.only in (None, "native"):
        native_section()
    if args.only in (None, "wide"):
        wide_inputs()
    if args.only in (None, "memory"):
        print("\nmemory of the Task tools' index (RSS growth, a fresh process per size)")
        for n in (10_000, 100_000):
            index_memory(n)


def calls_section(sizes: list[int], calls_per_op: int) -> None:
    """Per-call medians of every Task tool at each size, AgentScope's and ours."""
    args = argparse.Namespace(sizes=sizes, calls=calls_per_op)

    ours_at: dict[tuple[str, int], float] = {}
    print(f"{'operation':<12} {'n':>7} {'AgentScope µs':>14} {'planmode µs':>12} {'speed-up':>9}")
    for n in args.sizes:
        calls = args.calls if n <= 1_000 else max(50, args.calls // 4)
        for name, op in OPS.items():
            reps = max(5, calls // 20) if name == "list" else calls
            times = time_op(op, n, reps, seed=n)
            theirs, mine = times["AgentScope"], times["planmode"]
            ours_at[name, n] = mine
            print(f"{name:<12} {n:>7} {theirs:>14.1f} {mine:>12.1f} {theirs / mine:>8.1f}x")
        reps = 20 if n <= 1_000 else 5
        theirs, mine = time_reload("AgentScope", n, reps), time_reload("planmode", n, reps)
        print(f"{'reload':<12} {n:>7} {theirs:>14.1f} {mine:>12.1f} {theirs / mine:>8.1f}x")
    if 10 in args.sizes and 10_000 in args.sizes:
        print("\nplanmode per-call time at n=10,000 relative to n=10 (target: within 2x)")
        for name in ("create", "link (new)", "link (pair)", "get", "complete"):
            print(f"  {name:<12} {ours_at[name, 10_000] / ours_at[name, 10]:.2f}x")



def native_section() -> None:
    """The native TaskGraph: a 100,000-task build, and JSON / state-dict round trips."""
    print("\nnative TaskGraph")
    print(f"  100,000 tasks created, chained and completed: {native(100_000):.3f} s")
    g = TaskGraph.from_state_dict(chained_state(10_000).tasks_context.model_dump())
    ctx = TaskContext.model_validate(g.state_dict())
    js = g.to_json()
    # Best of 20: each side's least disturbed run (single runs vary a lot on a shared machine).
    mine = best(lambda: TaskGraph.from_json(g.to_json()), 20)
    pyd_json = best(lambda: TaskContext.model_validate_json(ctx.model_dump_json()), 20)
    pyd_py = best(lambda: TaskContext.model_validate(ctx.model_dump()), 20)
    assert js == ctx.model_dump_json()
    print(f"  JSON round trip, 10,000 tasks: TaskGraph to_json+from_json {mine * 1e3:.2f} ms")
    print(f"    pydantic TaskContext model_dump_json+model_validate_json {pyd_json * 1e3:.2f} ms ({pyd_json / mine:.1f}x)")
    print(f"    pydantic TaskContext model_dump+model_validate           {pyd_py * 1e3:.2f} ms ({pyd_py / mine:.1f}x)")
    # The hand-written reader takes the canonical layout; the same tasks with spaces after the
    # separators go through serde's general reader: what the fast reader earns.
    spaced = json.dumps(json.loads(js), ensure_ascii=False, separators=(", ", ": "))
    fast = best(lambda: TaskGraph.from_json(js), 20)
    general = best(lambda: TaskGraph.from_json(spaced), 20)
    print(f"  from_json, 10,000 tasks: canonical reader {fast * 1e3:.2f} ms, serde's general reader {general * 1e3:.2f} ms ({general / fast:.1f}x)")
    sd = best(lambda: TaskGraph.from_state_dict(g.state_dict()), 5)
    print(f"  state_dict()+from_state_dict(), 10,000 tasks: {sd * 1e3:.2f} ms ({pyd_py / sd:.1f}x vs pydantic dump+validate)")


if __name__ == "__main__":
    main()
