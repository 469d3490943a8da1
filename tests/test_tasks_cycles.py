"""Every cycle is refused, whatever was edited directly in ``tasks_context.tasks``.

A property test interleaves random direct edits of a real Agent's task list (append, remove,
replace in place, re-link, rename, edge lists mutated in place) with Task tool calls. The model
is AgentScope's own ``TaskUpdate`` run on a copy of the same state: a call planmode accepts must
leave exactly what AgentScope leaves, and no cycle; a call refused as a cycle must be one that
AgentScope would have turned into a cycle, and must change nothing.
"""

from __future__ import annotations

import copy
from typing import Any

import agentscope.tool as builtin
from _task_support import run, text
from agentscope.agent import Agent
from agentscope.state import AgentState, Task
from agentscope.tool import ToolChunk, Toolkit
from hypothesis import HealthCheck, given, settings, strategies as st

import planmode.agentscope as ours
from planmode.agentscope import TASK_TOOLS, ScriptedChatModel


def has_cycle(tasks: list[Task]) -> bool:
    """Whether the waits-on graph has a cycle: a task waits on every task holding an id in its
    ``blocked_by`` (all of them when an id is duplicated), a self-loop included."""
    holders: dict[str, list[int]] = {}
    for i, t in enumerate(tasks):
        holders.setdefault(t.id, []).append(i)
    colour = [0] * len(tasks)
    for root in range(len(tasks)):
        if colour[root]:
            continue
        stack = [(root, iter([j for dep in tasks[root].blocked_by for j in holders.get(dep, [])]))]
        colour[root] = 1
        while stack:
            node, children = stack[-1]
            for j in children:
                if colour[j] == 1:
                    return True
                if colour[j] == 0:
                    colour[j] = 1
                    stack.append((j, iter([k for dep in tasks[j].blocked_by for k in holders.get(dep, [])])))
                    break
            else:
                colour[node] = 2
                stack.pop()
    return False


def make_agent() -> Agent:
    return Agent(
        name="dev",
        system_prompt="You plan work as tasks.",
        model=ScriptedChatModel([]),
        toolkit=Toolkit(tools=[tool() for tool in TASK_TOOLS]),
    )


ids = st.sampled_from(["1", "2", "3", "4", "5", "6"])
id_lists = st.lists(ids, max_size=3)
positions = st.integers(0, 7)

# Edits that keep the list's length and last item (which no O(1) check can see) come three
# times as often as those that change it (which make the index rebuild).
in_place_edit = st.one_of(
    st.tuples(st.just("relink"), positions, id_lists, id_lists),
    st.tuples(st.just("rename"), positions, ids),
    # The pass compares id objects by address: an equal str that is another object, and writes
    # that bypass pydantic's __setattr__, must be seen for what they are.
    st.tuples(st.just("same_id_new_object"), positions),
    st.tuples(st.just("dict_rename"), positions, ids),
    st.tuples(st.just("dict_relink"), positions, id_lists),
    st.tuples(st.just("append_edge"), positions, ids),
    st.tuples(st.just("set_edge"), positions, st.integers(0, 2), ids),
    st.tuples(st.just("clear_edges"), positions),
)
structural_edit = st.one_of(
    st.tuples(st.just("replace"), positions, ids, id_lists),
    # A Task subclass with its own __getattribute__ is read the usual way, not the generic one.
    st.tuples(st.just("replace_subclass"), positions, ids, id_lists),
    st.tuples(st.just("append"), ids, id_lists, id_lists),
    st.tuples(st.just("remove"), positions),
)
direct_edit = st.one_of(in_place_edit, in_place_edit, in_place_edit, structural_edit)
single_link = st.tuples(st.just("link"), ids, st.lists(ids, min_size=1, max_size=1), st.just([]))
tool_call = st.one_of(
    single_link,
    single_link,
    single_link,
    st.tuples(st.just("link"), ids, id_lists, id_lists),
    st.tuples(st.just("status"), ids, st.sampled_from(["completed", "deleted", "in_progress"])),
    st.tuples(st.just("create")),
    st.tuples(st.just("get"), ids),
)


class HookedTask(Task):
    """A Task whose attribute reads run Python code (so the index cannot take the generic lookup)."""

    def __getattribute__(self, name: str) -> Any:
        return super().__getattribute__(name)


def apply_edit(tasks: list[Task], edit: tuple[Any, ...]) -> None:
    """One direct edit of the list, the way user code seeds or fixes tasks."""
    kind = edit[0]
    if kind == "append":
        _, tid, blocked_by, blocks = edit
        tasks.append(Task(id=tid, subject="seeded", description="", metadata={}, blocked_by=blocked_by, blocks=blocks))
        return
    if not tasks:
        return
    t = tasks[edit[1] % len(tasks)]
    if kind == "remove":
        tasks.remove(t)
    elif kind == "replace":
        _, at, tid, blocked_by = edit
        tasks[at % len(tasks)] = Task(id=tid, subject="replaced", description="", metadata={}, blocked_by=blocked_by)
    elif kind == "replace_subclass":
        _, at, tid, blocked_by = edit
        tasks[at % len(tasks)] = HookedTask(id=tid, subject="hooked", description="", metadata={}, blocked_by=blocked_by)
    elif kind == "same_id_new_object":
        t.id = "".join(list(t.id + " "))[:-1]  # equal text, a new str object
    elif kind == "dict_rename":
        t.__dict__["id"] = edit[2]  # no __setattr__ at all
    elif kind == "dict_relink":
        object.__setattr__(t, "blocked_by", list(edit[2]))
    elif kind == "relink":
        t.blocked_by, t.blocks = list(edit[2]), list(edit[3])
    elif kind == "rename":
        t.id = edit[2]
    elif kind == "append_edge":
        t.blocked_by.append(edit[2])  # in place: the list object stays the same
    elif kind == "set_edge":
        if t.blocked_by:
            t.blocked_by[edit[2] % len(t.blocked_by)] = edit[3]
        else:
            t.blocked_by.extend([edit[3]])
    elif kind == "clear_edges":
        t.blocked_by.clear()


def call_tools(mod: Any, state: AgentState, call: tuple[Any, ...]) -> ToolChunk:
    tools = {name: getattr(mod, name)() for name in ("TaskCreate", "TaskGet", "TaskUpdate")}
    kind = call[0]
    if kind == "link":
        _, tid, add_blocked_by, add_blocks = call
        return run(tools["TaskUpdate"](_agent_state=state, task_id=tid, add_blocked_by=add_blocked_by, add_blocks=add_blocks))
    if kind == "status":
        return run(tools["TaskUpdate"](_agent_state=state, task_id=call[1], status=call[2]))
    if kind == "create":
        return run(tools["TaskCreate"](_agent_state=state, subject="new", description=""))
    return run(tools["TaskGet"](_agent_state=state, task_id=call[1]))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(direct_edit.map(lambda e: ("edit", e)), tool_call.map(lambda c: ("call", c))), min_size=10, max_size=50))
def test_no_cycle_survives_direct_edits(steps: list[tuple[str, tuple[Any, ...]]]) -> None:
    agent = make_agent()
    state = agent.state
    tasks = state.tasks_context.tasks
    for _ in range(6):
        call_tools(ours, state, ("create",))
    for what, step in steps:
        if what == "edit":
            trial = copy.deepcopy(tasks)
            apply_edit(trial, step)
            if not has_cycle(trial):  # the model keeps the seeded data acyclic
                apply_edit(tasks, step)
            continue
        before = state.tasks_context.model_dump()
        theirs = AgentState.model_validate(state.model_dump())
        their_chunk = call_tools(builtin, theirs, step) if step[0] == "link" else None
        chunk = call_tools(ours, state, step)
        after = state.tasks_context.model_dump()
        assert not has_cycle(state.tasks_context.tasks), (step, text(chunk), after)
        if step[0] != "link":
            continue
        assert their_chunk is not None
        if chunk.state != "error":
            assert after == theirs.tasks_context.model_dump(), step
            assert text(chunk) == text(their_chunk)
        else:
            assert after == before, (step, text(chunk))
            if "would close a dependency cycle" in text(chunk):
                assert has_cycle(theirs.tasks_context.tasks), (step, text(chunk), before)


def test_the_issue_example_cycle_through_direct_edits_is_refused() -> None:
    """1 -> 4 -> 3 -> 2 -> 1 built from two calls and a direct edit of task 3 (which the closing
    call does not touch): the closing call is refused."""
    agent = make_agent()
    state = agent.state
    create = ours.TaskCreate()
    update = ours.TaskUpdate()
    for i in range(4):
        run(create(_agent_state=state, subject=f"task {i + 1}", description=""))
    tasks = state.tasks_context.tasks
    for task_id, blocker in (("2", "1"), ("4", "3")):
        ok = run(update(_agent_state=state, task_id=task_id, add_blocked_by=[blocker]))
        assert ok.state != "error", text(ok)
    # A direct edit of tasks the closing call does not touch (in place: same list objects).
    tasks[2].blocked_by.append("2")
    tasks[1].blocks.append("3")
    refused = run(update(_agent_state=state, task_id="1", add_blocked_by=["4"]))
    assert refused.state == "error"
    assert "CycleError: making task 4 block task 1 would close a dependency cycle" in text(refused)
    assert "4 is blocked by 3, 3 is blocked by 2, 2 is blocked by 1" in text(refused)
    assert not has_cycle(tasks)
    from planmode import TaskGraph

    assert TaskGraph.from_state_dict(state.tasks_context.model_dump()).validate() == []


def test_a_replaced_getattribute_on_the_task_class_is_obeyed() -> None:
    """The pass reads Task fields through Python's generic lookup only while the class has no
    __getattribute__ of its own; patched at run time, what getattr reports is what counts."""
    agent = make_agent()
    state = agent.state
    create, update = ours.TaskCreate(), ours.TaskUpdate()
    for i in range(3):
        run(create(_agent_state=state, subject=f"task {i + 1}", description=""))
    ok = run(update(_agent_state=state, task_id="2", add_blocked_by=["1"]))
    assert ok.state != "error", text(ok)
    original = Task.__getattribute__

    def reported(self: Task, name: str) -> Any:
        value = original(self, name)
        if name == "blocked_by" and original(self, "id") == "1":
            return [*value, "3"]  # task 1 reads as waiting on task 3
        return value

    Task.__getattribute__ = reported  # type: ignore[method-assign]
    try:
        refused = run(update(_agent_state=state, task_id="3", add_blocked_by=["2"]))
    finally:
        Task.__getattribute__ = original  # type: ignore[method-assign]
    assert refused.state == "error"
    assert "would close a dependency cycle" in text(refused), text(refused)
