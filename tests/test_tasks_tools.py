"""planmode.agentscope Task tools against AgentScope's own, call by call and byte for byte."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import agentscope
import agentscope.tool as builtin
import pytest
from _task_support import run
from agentscope._utils import _common
from agentscope.exception import DeveloperOrientedException
from agentscope.permission import PermissionContext
from agentscope.state import AgentState, Task
from agentscope.tool import ToolChunk
from hypothesis import HealthCheck, given, settings, strategies as st
from tasks_reference import next_id, refusal

import planmode.agentscope as ours
from planmode import TaskGraph

TOOLS = ("TaskCreate", "TaskGet", "TaskList", "TaskUpdate")


def call(tool: builtin.ToolBase, **kwargs: Any) -> ToolChunk:
    """Calls a tool the way a toolkit does (through ``__call__``) and returns its one chunk."""
    chunk = run(tool(**kwargs))  # type: ignore[arg-type]
    assert isinstance(chunk, ToolChunk), chunk
    return chunk


@contextmanager
def factories(tag: str) -> Iterator[None]:
    """Deterministic AgentScope ids and timestamps, so chunks can be compared whole."""
    ids, times = itertools.count(), itertools.count()
    saved = (_common._id_factory, _common._timestamp_factory)
    agentscope.set_id_factory(lambda: f"{tag}-id{next(ids)}")
    agentscope.set_timestamp_factory(lambda: f"{tag}-ts{next(times)}")
    try:
        yield
    finally:
        _common._id_factory, _common._timestamp_factory = saved


class Pair:
    """The same calls on AgentScope's tools (theirs) and ours, each on its own AgentState."""

    def __init__(self) -> None:
        self.theirs, self.ours = AgentState(), AgentState()
        self.tools = {side: {n: getattr(mod, n)() for n in TOOLS} for side, mod in (("theirs", builtin), ("ours", ours))}

    def call(self, side: str, tool: str, tag: str, **kw: Any) -> ToolChunk:
        with factories(tag):
            state = self.theirs if side == "theirs" else self.ours
            return run(self.tools[side][tool](_agent_state=state, **kw))

    def both(self, tool: str, tag: str = "t", **kw: Any) -> ToolChunk:
        """Calls both and asserts identical chunks and identical task contexts."""
        theirs = self.call("theirs", tool, tag, **kw)
        mine = self.call("ours", tool, tag, **kw)
        assert mine.model_dump() == theirs.model_dump()
        assert mine.model_fields_set == theirs.model_fields_set
        self.assert_same()
        return mine

    def edit(self, fn: Callable[[list[Task]], None]) -> None:
        """Applies the same direct edit to both task lists."""
        fn(self.theirs.tasks_context.tasks)
        fn(self.ours.tasks_context.tasks)

    def assert_same(self) -> None:
        assert self.ours.tasks_context.model_dump_json() == self.theirs.tasks_context.model_dump_json()

    def text(self, chunk: ToolChunk) -> str:
        return chunk.content[0].text  # type: ignore[union-attr]


def test_tool_attributes_match_agentscope() -> None:
    for name in TOOLS:
        theirs, mine = getattr(builtin, name)(), getattr(ours, name)()
        assert isinstance(mine, type(theirs))
        for attr in ("name", "description", "input_schema", "is_state_injected", "is_concurrency_safe", "is_external_tool"):
            assert getattr(mine, attr) == getattr(theirs, attr), (name, attr)
        ctx = PermissionContext()
        assert run(mine.check_permissions({}, ctx)) == run(theirs.check_permissions({}, ctx))  # type: ignore[arg-type]
        assert run(mine.check_read_only({})) is True  # type: ignore[arg-type]
    assert (ours.TaskCreate, ours.TaskGet, ours.TaskList, ours.TaskUpdate) == ours.TASK_TOOLS


def test_a_session_matches_agentscope_byte_for_byte() -> None:
    p = Pair()
    p.both("TaskList")
    for i in range(4):
        p.both("TaskCreate", subject=f"step {i}", description="d", metadata={"n": i} if i % 2 else None)
    p.both("TaskUpdate", task_id="2", add_blocked_by=["1"], owner="me", metadata={"n": None, "z": [1]})
    p.both("TaskUpdate", task_id="1", add_blocks=["3", "4", "3"], subject="first")
    p.both("TaskUpdate", task_id="1", add_blocks=["3"], add_blocked_by=[])
    for tid in ("1", "2", "9", 5):
        p.both("TaskGet", task_id=tid)
    p.both("TaskList")
    p.both("TaskUpdate", task_id="1", status="completed")
    p.both("TaskUpdate", task_id="1", owner="", subject="")
    p.both("TaskUpdate", task_id="3", status="in_progress", description="")
    p.both("TaskUpdate", task_id="4", status="deleted", add_blocked_by=["3"])
    p.both("TaskUpdate", task_id="9", status="deleted")
    p.both("TaskUpdate", task_id="2")
    p.both("TaskList")
    chunk = p.both("TaskCreate", subject=5, description="d")
    assert chunk.state == "error" and p.text(chunk).startswith("CreateTaskError: 1 validation error for Task")


@pytest.mark.parametrize(
    ("kw", "expected"),
    [
        ({"task_id": "3", "add_blocks": ["1"]}, "CycleError: making task 3 block task 1 would close a dependency cycle"),
        ({"task_id": "2", "add_blocked_by": ["2"]}, "CycleError: the task (id=2) cannot block itself"),
        ({"task_id": "1", "add_blocks": ["2", "42"], "subject": "x"}, "InvalidInputError: add_blocks names task id(s) that do not exist: 42"),
        ({"task_id": "1", "status": "done"}, "InvalidInputError: status must be one of"),
        ({"task_id": "1", "owner": 3}, "InvalidInputError: owner must be a string, got int"),
        ({"task_id": "1", "metadata": [1]}, "InvalidInputError: metadata must be a dict, got list"),
        ({"task_id": "1", "subject": "\ud800"}, "InvalidInputError: subject is not valid UTF-8 text"),
        (
            {"task_id": "1", "add_blocks": [str(i) for i in range(100, 20_100)]},
            "InvalidInputError: add_blocks names task id(s) that do not exist: 100, 101, 102, 103, 104, 105, 106, "
            "107, 108, 109 and 19990 more. The task (id=1) was not changed",
        ),
    ],
)
def test_bad_updates_are_refused_and_change_nothing(kw: dict[str, Any], expected: str) -> None:
    p = Pair()
    for i in range(3):
        p.both("TaskCreate", subject=f"s{i}", description="")
    p.both("TaskUpdate", task_id="2", add_blocked_by=["1"])
    p.both("TaskUpdate", task_id="3", add_blocked_by=["2"])
    before = p.ours.tasks_context.model_dump_json()
    chunk = p.call("ours", "TaskUpdate", "x", **kw)
    assert chunk.state == "error" and p.text(chunk).startswith(expected), p.text(chunk)
    assert p.ours.tasks_context.model_dump_json() == before


def test_agentscope_silently_accepts_what_we_refuse() -> None:
    p = Pair()
    p.both("TaskCreate", subject="a", description="")
    p.both("TaskCreate", subject="b", description="")
    p.both("TaskUpdate", task_id="2", add_blocked_by=["1"])
    theirs = p.call("theirs", "TaskUpdate", "x", task_id="1", add_blocked_by=["2"])
    mine = p.call("ours", "TaskUpdate", "x", task_id="1", add_blocked_by=["2"])
    assert theirs.state == "running" and p.theirs.tasks_context.tasks[0].blocked_by == ["2"]  # a cycle
    assert mine.state == "error" and p.ours.tasks_context.tasks[0].blocked_by == []


def test_direct_edits_between_calls_are_honoured() -> None:
    p = Pair()
    for i in range(3):
        p.both("TaskCreate", subject=f"s{i}", description="")
    p.both("TaskUpdate", task_id="3", add_blocked_by=["1", "2"])

    def seed(tasks: list[Task]) -> None:  # the documented import path: append Task objects
        tasks.append(Task(id="10", subject="imported", description="", metadata={}, created_at="t", blocked_by=["3"]))
        tasks.append(Task(id="legacy-uuid", subject="old", description="", metadata={}, created_at="t"))
        tasks[2].blocks.append("10")

    p.edit(seed)
    p.both("TaskCreate", subject="after import", description="")  # id 11
    p.both("TaskGet", task_id="10")
    p.both("TaskUpdate", task_id="3", status="completed")  # unblocks 10
    p.both("TaskUpdate", task_id="legacy-uuid", add_blocked_by=["11"])

    def change_fields(tasks: list[Task]) -> None:
        tasks[0].subject, tasks[0].state, tasks[0].owner = "renamed", "in_progress", "bob"
        tasks[1].metadata["k"] = "v"

    p.edit(change_fields)
    p.both("TaskGet", task_id="1")
    p.both("TaskUpdate", task_id="2", metadata={"k": None, "j": 1})
    p.both("TaskList")

    def remove_with_edges(tasks: list[Task]) -> None:
        gone = tasks.pop(2)
        for t in tasks:
            for lst in (t.blocks, t.blocked_by):
                while gone.id in lst:
                    lst.remove(gone.id)

    p.edit(remove_with_edges)
    p.both("TaskUpdate", task_id="11", status="deleted")
    p.both("TaskCreate", subject="next", description="")
    p.edit(lambda tasks: tasks.clear())
    p.both("TaskCreate", subject="fresh start", description="")  # id 1 again

    def replace_list(state: AgentState) -> None:
        state.tasks_context.tasks = [Task(id="5", subject="new list", description="", metadata={}, created_at="t")]

    replace_list(p.theirs)
    replace_list(p.ours)
    p.both("TaskCreate", subject="six", description="")
    p.both("TaskUpdate", task_id="6", add_blocked_by=["5"])

    def rename(tasks: list[Task]) -> None:
        tasks[0].id = "50"

    p.edit(rename)
    p.both("TaskGet", task_id="5")
    p.both("TaskGet", task_id="50")
    p.both("TaskUpdate", task_id="50", status="completed")


def test_resync_after_edits_the_fast_check_cannot_see() -> None:
    p = Pair()
    for i in range(3):
        p.both("TaskCreate", subject=f"s{i}", description="")

    def link_untouched(tasks: list[Task]) -> None:  # 3 waits on 2, added directly on both sides
        tasks[2].blocked_by.append("2")
        tasks[1].blocks.append("3")

    p.edit(link_untouched)
    ours.resync_tasks(p.ours)
    chunk = p.call("ours", "TaskUpdate", "x", task_id="2", add_blocked_by=["3"])
    assert chunk.state == "error" and "cycle" in p.text(chunk)
    p.both("TaskUpdate", task_id="2", status="completed")


def test_duplicate_ids_and_malformed_state() -> None:
    p = Pair()
    p.both("TaskCreate", subject="a", description="")
    p.edit(lambda tasks: tasks.append(Task(id="1", subject="dup", description="", metadata={}, created_at="t")))
    p.both("TaskGet", task_id="1")  # AgentScope shows the first one; so do we
    p.both("TaskList")
    p.both("TaskCreate", subject="b", description="")
    chunk = p.call("ours", "TaskUpdate", "x", task_id="1", owner="me")
    assert chunk.state == "error" and "more than one task has the id 1" in p.text(chunk)

    state = AgentState()
    state.tasks_context.tasks.append({"id": "1"})  # type: ignore[arg-type]
    chunk = call(ours.TaskCreate(), _agent_state=state, subject="s", description="")
    assert chunk.state == "error" and p.text(chunk).startswith("TaskStateError:")
    state.tasks_context.tasks.clear()
    assert call(ours.TaskCreate(), _agent_state=state, subject="s", description="").state == "running"


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda t: t[1].blocked_by.append(7), "tasks_context.tasks[1].blocked_by[1] must be a string, got int"),
        (lambda t: setattr(t[2], "blocks", "x"), "tasks_context.tasks[2].blocks must be a list, got str"),
        (lambda t: object.__setattr__(t[0], "id", 5), "tasks_context.tasks[0].id must be a string, got int"),
    ],
)
def test_malformed_task_fields_are_named(damage: Callable[[list[Task]], object], message: str) -> None:
    state = AgentState()
    for _ in range(3):
        call(ours.TaskCreate(), _agent_state=state, subject="s", description="")
    call(ours.TaskUpdate(), _agent_state=state, task_id="2", add_blocked_by=["1"])
    damage(state.tasks_context.tasks)
    ours.resync_tasks(state)
    chunk = call(ours.TaskGet(), _agent_state=state, task_id="3")
    assert chunk.state == "error"
    assert Pair().text(chunk) == f"TaskStateError: {message}"


def test_needs_an_agent_state_like_agentscope() -> None:
    args = {"TaskCreate": {"subject": "", "description": ""}, "TaskGet": {"task_id": "1"}, "TaskList": {}, "TaskUpdate": {"task_id": "1"}}
    for name in TOOLS:
        with pytest.raises(DeveloperOrientedException) as theirs:
            run(getattr(builtin, name)().call(_agent_state=None, **args[name]))
        with pytest.raises(DeveloperOrientedException) as mine:
            run(getattr(ours, name)().call(_agent_state=None, **args[name]))
        assert str(mine.value) == str(theirs.value)


def test_state_dict_of_task_graph_equals_task_context_dump() -> None:
    p = Pair()
    for i in range(4):
        p.both("TaskCreate", subject=f"s{i}", description="d", metadata={"i": i})
    p.both("TaskUpdate", task_id="3", add_blocked_by=["1", "2"], owner="o")
    p.both("TaskUpdate", task_id="1", status="completed")
    p.edit(lambda tasks: tasks.append(Task(id="9f3a0c", subject="legacy", description="", metadata={}, created_at="t")))
    dump = p.ours.tasks_context.model_dump()
    graph = TaskGraph.from_state_dict(dump)
    assert graph.state_dict() == dump
    assert graph.to_json() == p.ours.tasks_context.model_dump_json()
    graph.update("4", add_blocked_by=["3"], status="in_progress")
    p.both("TaskUpdate", task_id="4", add_blocked_by=["3"], status="in_progress")
    assert graph.state_dict() == p.ours.tasks_context.model_dump()


OPS = ["create", "get", "list", "update", "update", "update", "update", "append", "field", "unlink", "remove", "relist", "clear"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_streams_match_agentscope(data: st.DataObject) -> None:
    """Random calls and direct edits: every accepted call is byte-identical to AgentScope's;
    every refused one is a bad edge AgentScope would have accepted, and changes nothing."""
    p = Pair()
    for step in range(data.draw(st.integers(1, 40), label="steps")):
        tasks = p.theirs.tasks_context.tasks
        ids = [t.id for t in tasks]
        some_id = st.sampled_from(ids + ["404"]) if ids else st.just("404")
        op = data.draw(st.sampled_from(OPS if ids else ["create", "list", "append"]))
        tag = f"s{step}"
        if op == "create":
            meta = data.draw(st.none() | st.dictionaries(st.sampled_from("ab"), st.integers(0, 3)))
            p.both("TaskCreate", tag, subject=data.draw(st.sampled_from(["", "s", "ü"])), description="d", metadata=meta)
        elif op == "get":
            p.both("TaskGet", tag, task_id=data.draw(some_id))
        elif op == "list":
            p.both("TaskList", tag)
        elif op == "update":
            kw: dict[str, Any] = {
                "task_id": data.draw(some_id),
                "subject": data.draw(st.none() | st.sampled_from(["", "new"])),
                "description": data.draw(st.none() | st.just("")),
                "add_blocks": data.draw(st.none() | st.lists(some_id, max_size=3)),
                "status": data.draw(st.none() | st.sampled_from(["pending", "in_progress", "completed", "deleted"])),
                "add_blocked_by": data.draw(st.none() | st.lists(some_id, max_size=3)),
                "owner": data.draw(st.none() | st.sampled_from(["", "me"])),
                "metadata": data.draw(st.none() | st.dictionaries(st.sampled_from("ab"), st.none() | st.just(1))),
            }
            known = kw["task_id"] in ids
            reason = refusal(tasks, kw["task_id"], kw["add_blocks"], kw["add_blocked_by"]) if known else None
            if reason is None:
                p.both("TaskUpdate", tag, **kw)
            else:
                before = p.ours.tasks_context.model_dump_json()
                chunk = p.call("ours", "TaskUpdate", tag, **kw)
                prefixes = ("CycleError",) if reason == "cycle" else ("InvalidInputError", "CycleError")
                assert chunk.state == "error" and p.text(chunk).startswith(prefixes), (reason, p.text(chunk))
                assert p.ours.tasks_context.model_dump_json() == before
        elif op == "append":
            blockers = data.draw(st.lists(st.sampled_from(ids), max_size=2, unique=True)) if ids else []
            new_id = next_id(tasks) if data.draw(st.booleans()) else f"legacy-{step}"

            def append(ts: list[Task], new_id: str = new_id, blockers: list[str] = blockers) -> None:
                ts.append(Task(id=new_id, subject="seeded", description="", metadata={}, created_at="t", blocked_by=list(blockers)))
                for t in ts:
                    if t.id in blockers:
                        t.blocks.append(new_id)

            p.edit(append)
        elif op == "field":
            at = data.draw(st.integers(0, len(ids) - 1))
            field, value = data.draw(
                st.sampled_from(
                    [("subject", "edited"), ("description", "x"), ("owner", "z"), ("owner", None), ("state", "completed"),
                     ("state", "pending"), ("metadata", {"m": 1})]
                )
            )
            p.edit(lambda ts, at=at, field=field, value=value: setattr(ts[at], field, dict(value) if isinstance(value, dict) else value))
        elif op == "unlink":
            linked = [(t.id, b) for t in tasks for b in t.blocked_by]
            if linked:
                waiter, blocker = data.draw(st.sampled_from(linked))

                def unlink(ts: list[Task], waiter: str = waiter, blocker: str = blocker) -> None:
                    for t in ts:
                        if t.id == waiter and blocker in t.blocked_by:
                            t.blocked_by.remove(blocker)
                        if t.id == blocker and waiter in t.blocks:
                            t.blocks.remove(waiter)

                p.edit(unlink)
        elif op == "remove":
            at = data.draw(st.integers(0, len(ids) - 1))

            def remove(ts: list[Task], at: int = at) -> None:
                gone = ts.pop(at).id
                for t in ts:
                    for lst in (t.blocks, t.blocked_by):
                        while gone in lst:
                            lst.remove(gone)

            p.edit(remove)
        elif op == "relist":
            for state in (p.theirs, p.ours):
                state.tasks_context.tasks = list(state.tasks_context.tasks)
        elif op == "clear" and data.draw(st.integers(0, 3)) == 0:
            p.edit(lambda ts: ts.clear())
        p.assert_same()
