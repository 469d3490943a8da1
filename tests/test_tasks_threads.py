"""One TaskGraph / TaskStateIndex shared by many threads: callers take turns, never a borrow
error, never a torn state."""

from __future__ import annotations

import contextlib
import pickle
from collections.abc import Callable
from typing import Any

from _task_support import run
from _threads_support import in_threads
from agentscope.state import AgentState, Task
from agentscope.tool import ToolChunk

import planmode.agentscope as ours
from planmode import TaskGraph
from planmode._core import TaskStateIndex
from planmode.exceptions import PlanModeError


def test_thousands_of_creates_while_other_threads_read_the_graph() -> None:
    g = TaskGraph()
    snapshots: list[str] = []

    def creator() -> None:
        for _ in range(500):
            g.create("s", "d", {"k": [1, 2]})

    def reader() -> None:
        for _ in range(60):
            snapshots.append(g.to_json())
            g.validate()
            g.state_dict()
            len(g)

    errors = in_threads([creator] * 4 + [reader] * 2)
    assert errors == []
    assert len(g) == 2000
    # Every id was handed out once: no two creates saw the same "largest id".
    assert sorted(int(t["id"]) for t in g.list()) == list(range(1, 2001))
    # Every snapshot is a whole graph at some moment: it loads, with ids 1..n.
    for text in snapshots:
        loaded = TaskGraph.from_json(text)
        assert [t["id"] for t in loaded.list()] == [str(i) for i in range(1, len(loaded) + 1)]


def test_concurrent_links_keep_the_graph_acyclic() -> None:
    g = TaskGraph()
    for _ in range(40):
        g.create("s", "d")

    def linker(offset: int) -> Callable[[], None]:
        def job() -> None:
            for i in range(1, 41):
                j = (i + offset) % 40 + 1
                with contextlib.suppress(ValueError):  # refused (a cycle or a self-loop): changed nothing
                    g.update(str(i), add_blocked_by=[str(j)])

        return job

    errors = in_threads([linker(k) for k in range(1, 9)] + [lambda: [g.to_json() for _ in range(50)]])
    assert errors == []
    assert g.validate() == []
    g.topological_order()
    assert pickle.loads(pickle.dumps(g)) == g


def test_one_agent_state_shared_by_tool_calls_in_many_threads() -> None:
    state = AgentState()
    create, update, get = ours.TaskCreate(), ours.TaskUpdate(), ours.TaskGet()
    results: list[ToolChunk] = []

    def creator() -> None:
        for _ in range(150):
            results.append(run(create(_agent_state=state, subject="t", description="")))

    def linker() -> None:
        for i in range(2, 150):
            results.append(run(update(_agent_state=state, task_id=str(i), add_blocked_by=[str(i - 1)])))
            results.append(run(get(_agent_state=state, task_id=str(i))))

    errors = in_threads([creator] * 4 + [linker] * 2)
    assert errors == []
    assert not any("Already borrowed" in b.text for r in results for b in r.content)
    tasks = state.tasks_context.tasks
    assert sorted(int(t.id) for t in tasks) == list(range(1, 601))
    assert TaskGraph.from_state_dict(state.tasks_context.model_dump()).validate() == []


def test_a_reentrant_call_gets_a_planmode_error_not_a_deadlock() -> None:
    state = AgentState()
    index_holder: list[TaskStateIndex] = []

    class ReentrantTask(Task):
        def __init__(self, **kw: Any) -> None:
            super().__init__(**kw)
            # Calls back into the index that is building this very task.
            index_holder[0].create(state.tasks_context.tasks, "inner", "", None)

    index = TaskStateIndex(ReentrantTask)
    index_holder.append(index)
    text, ok = index.create(state.tasks_context.tasks, "outer", "", None)
    assert not ok
    assert "called again from inside one of its own calls" in text
    assert issubclass(PlanModeError, Exception)
    # The index is usable afterwards.
    index2 = TaskStateIndex(Task)
    assert index2.create(state.tasks_context.tasks, "after", "", None)[1]
