"""planmode.TaskGraph: AgentScope's task semantics in Rust, checked against a plain-Python model."""

from __future__ import annotations

import collections
import copy
import json
import math
import pickle
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import settings, strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule
from tasks_reference import RefGraph, Refused

from planmode import TaskGraph
from planmode.exceptions import CycleError, InvalidInputError, StateLoadError, TaskNotFoundError


def chain(n: int) -> TaskGraph:
    g = TaskGraph()
    for i in range(1, n + 1):
        g.create(f"task {i}", f"do {i}", created_at="2026-01-01T00:00:00")
        if i > 1:
            g.update(str(i), add_blocked_by=[str(i - 1)])
    return g


def without_times(state: dict[str, Any]) -> list[dict[str, Any]]:
    return [{k: v for k, v in t.items() if k != "created_at"} for t in state["tasks"]]


class TaskGraphMachine(RuleBasedStateMachine):
    """Random create/update streams: TaskGraph must match the model, call by call."""

    def __init__(self) -> None:
        super().__init__()
        self.graph = TaskGraph()
        self.model = RefGraph()

    def pick(self, data: st.DataObject) -> str:
        ids = [t["id"] for t in self.model.tasks]
        return data.draw(st.sampled_from(ids) if ids and data.draw(st.integers(0, 9)) else st.sampled_from(["77", "x"]))

    @rule(subject=st.text(max_size=5), meta=st.none() | st.dictionaries(st.sampled_from("abc"), st.integers(-1000, 1000)))
    def create(self, subject: str, meta: dict[str, int] | None) -> None:
        assert self.graph.create(subject, "d", meta) == self.model.create(subject, "d", meta)

    @precondition(lambda self: bool(self.model.tasks))
    @rule(data=st.data())
    def update(self, data: st.DataObject) -> None:

        def ids() -> list[str] | None:
            count = data.draw(st.integers(-1, 3))
            return None if count < 0 else [self.pick(data) for _ in range(count)]

        kw: dict[str, Any] = {
            "subject": data.draw(st.none() | st.sampled_from(["", "renamed"])),
            "description": data.draw(st.none() | st.just("new")),
            "add_blocks": ids(),
            "add_blocked_by": ids(),
            "status": data.draw(st.none() | st.sampled_from(["pending", "in_progress", "completed", "deleted"])),
            "owner": data.draw(st.none() | st.sampled_from(["", "me"])),
            "metadata": data.draw(st.none() | st.dictionaries(st.sampled_from("ab"), st.none() | st.integers(-1000, 1000))),
        }
        task_id = self.pick(data)
        before = self.graph.state_dict()
        try:
            expected = self.model.update(task_id, **kw)
        except KeyError:
            with pytest.raises(TaskNotFoundError):
                self.graph.update(task_id, **kw)
        except Refused as refused:
            error = InvalidInputError if refused.kind == "unknown" else CycleError
            with pytest.raises(error):
                self.graph.update(task_id, **kw)
            assert self.graph.state_dict() == before, "a refused update changed the graph"
        else:
            assert self.graph.update(task_id, **kw) == expected

    @invariant()
    def same_tasks(self) -> None:
        assert without_times(self.graph.state_dict()) == self.model.tasks
        assert self.graph.ready() == self.model.ready()
        order = self.graph.topological_order()
        seen: set[str] = set()
        for tid in order:
            assert all(b in seen or b not in order for b in self.graph.get(tid)["blocked_by"])
            seen.add(tid)
        # Only AgentScope's quirk may show: a task completed and then reopened keeps its `blocks`.
        assert {p["kind"] for p in self.graph.validate()} <= {"one_sided_edge"}


TestTaskGraphMachine = TaskGraphMachine.TestCase
TestTaskGraphMachine.settings = settings(max_examples=60, stateful_step_count=30, deadline=None)


def test_create_get_list_update() -> None:
    g = TaskGraph()
    assert g.create("Design", "the API", {"prio": 1}) == "1"
    assert g.create("Build", "it") == "2"
    assert len(g) == 2 and "1" in g and "3" not in g and 1 not in g
    assert g.update("2", add_blocked_by=["1"], owner="ann", metadata={"prio": None, "x": [1, 2]}) == [
        "add_blocked_by",
        "owner",
        "metadata",
    ]
    task = g.get("2")
    assert list(task) == ["subject", "description", "metadata", "created_at", "state", "id", "owner", "blocks", "blocked_by"]
    assert (task["owner"], task["blocked_by"], task["metadata"]) == ("ann", ["1"], {"x": [1, 2]})
    assert g.get("1")["blocks"] == ["2"]
    assert [t["id"] for t in g.list()] == ["1", "2"]
    assert g.ready() == ["1"]
    assert g.update("1", status="completed") == ["status"]
    assert g.ready() == ["2"]
    assert g.get("1")["blocks"] == ["2"], "AgentScope's quirk: a completed task keeps its blocks"
    assert g.update("2", status="deleted") == ["status"]
    assert g.get("1")["blocks"] == [] and len(g) == 1


def test_refusals_are_atomic_and_name_the_problem() -> None:
    g = chain(3)
    before = g.state_dict()
    with pytest.raises(CycleError, match=r"task 3 already waits on task 1 \(3 is blocked by 2, 2 is blocked by 1\)"):
        g.update("3", add_blocks=["1"], subject="changed", owner="me")
    with pytest.raises(CycleError, match="cannot block itself"):
        g.update("2", add_blocked_by=["2"], status="completed")
    with pytest.raises(InvalidInputError, match="do not exist: 8, 9"):
        g.update("1", add_blocks=["2", "8", "9"], description="x")
    with pytest.raises(TaskNotFoundError, match=r"The task \(id=7\) does not exist"):
        g.update("7", owner="me")
    with pytest.raises(InvalidInputError, match="status must be one of"):
        g.update("1", status="done")
    with pytest.raises(InvalidInputError, match="add_blocks must be a list of task ids, got str"):
        g.update("1", add_blocks="2")
    with pytest.raises(InvalidInputError, match="metadata.x: NaN is not a valid JSON number"):
        g.update("1", metadata={"x": math.nan})
    with pytest.raises(InvalidInputError, match="subject must be a string, got int"):
        g.create(5, "d")  # type: ignore[arg-type]
    with pytest.raises(TaskNotFoundError):
        g.get("nope")
    assert g.state_dict() == before


def test_topological_order_validate_repair() -> None:
    state = {
        "tasks": [
            {"subject": "a", "description": "", "metadata": {}, "id": "1", "blocks": ["2", "9"], "blocked_by": ["3"]},
            {"subject": "b", "description": "", "metadata": {}, "id": "2", "blocked_by": ["1", "2"]},
            {"subject": "c", "description": "", "metadata": {}, "id": "3", "blocked_by": ["2"]},
            {"subject": "legacy", "description": "", "metadata": {}, "id": "a1b2"},
        ]
    }
    g = TaskGraph.from_state_dict(state)
    kinds = {p["kind"] for p in g.validate()}
    assert kinds == {"dangling_edge", "self_loop", "one_sided_edge", "cycle"}
    with pytest.raises(CycleError):
        g.topological_order()
    fixed = g.repair()
    assert {p["kind"] for p in fixed} == kinds
    assert g.validate() == []
    assert g.topological_order() == ["1", "2", "3", "a1b2"]
    assert g.create("next", "") == "4", "legacy non-numeric ids are ignored for the next id"


def test_validate_state_dict_reports_duplicates_without_loading() -> None:
    dup = {"tasks": [{"subject": "", "description": "", "metadata": {}, "id": "1"}] * 2}
    assert [p["kind"] for p in TaskGraph.validate_state_dict(dup)] == ["duplicate_id"]
    with pytest.raises(StateLoadError, match=r'duplicate task id "1": tasks\[0\] and tasks\[1\]'):
        TaskGraph.from_state_dict(dup)


@pytest.mark.parametrize(
    ("state", "message"),
    [
        ([], "state must be a dict"),
        ({"tasks": 3}, "tasks: unexpected type: 'int' object is not an instance of 'Sequence'"),
        ({"tasks": [{"subject": 1, "description": "", "metadata": {}}]}, r"tasks\[0\]\.subject"),
        ({"tasks": [{"subject": "", "description": "", "metadata": {}, "state": "done"}]}, "unknown variant `done`"),
        ({"tasks": [{"subject": "", "description": ""}]}, "missing field `metadata`"),
        ({"tasks": [{"subject": "", "description": "", "metadata": {"x": math.nan}}]}, "not a valid JSON number"),
        ({"tasks": [{"subject": "", "description": "", "metadata": {"x": b"raw"}}]}, r"tasks\[0\]\.metadata\.x: invalid type: byte array"),
        ({"tasks": [{"subject": "", "description": "", "metadata": {"x": 2**70}}]}, "JSON number out of range"),
        ({"tasks": [{"subject": "", "description": "", "metadata": {1: "x"}}]}, "'int' object is not an instance of 'str'"),
        ({"tasks": [{"subject": "", "description": "", "metadata": {}, "blocks": [1]}]}, r"tasks\[0\]\.blocks\[0\]"),
    ],
)
def test_bad_state_raises_and_keeps_the_graph(state: Any, message: str) -> None:
    g = chain(2)
    before = g.to_json()
    with pytest.raises(StateLoadError, match=message) as info:
        g.load_state_dict(state)
    assert isinstance(info.value, ValueError)
    assert g.to_json() == before


def test_bad_json_raises_state_load_error() -> None:
    for text in ["", "{", '{"tasks": [1]}', '{"tasks":[{"subject":"","description":"","metadata":{},"id":"1"},'
                 '{"subject":"","description":"","metadata":{},"id":"1"}]}']:
        with pytest.raises(StateLoadError):
            TaskGraph.from_json(text)


def test_state_json_and_pickle_round_trips() -> None:
    g = chain(5)
    g.update("2", status="completed", metadata={"k": {"nested": [1, 2.5, None, True]}}, owner="o")
    state = g.state_dict()
    assert TaskGraph.from_state_dict(state).state_dict() == state
    assert TaskGraph(state["tasks"]).state_dict() == state
    assert json.loads(g.to_json()) == state
    assert TaskGraph.from_json(g.to_json()) == g
    clone = pickle.loads(pickle.dumps(g))
    assert clone == g and clone is not g
    assert copy.deepcopy(g) == g and copy.copy(g) == g
    clone.create("more", "")
    assert clone != g
    other = TaskGraph()
    other.load_state_dict(state)
    assert other == g
    assert repr(TaskGraph()) == "TaskGraph(tasks=[])"
    assert repr(chain(1)).startswith("TaskGraph(tasks=[{'subject': 'task 1', 'description': 'do 1'")
    assert repr(chain(25)).endswith("... 5 more])")


def test_json_loads_what_pydantic_dumps_exactly() -> None:
    """The fast reader (pydantic's compact layout) and the general one (any other valid JSON)
    give the same tasks; floats come back bit for bit."""
    from agentscope.state import TaskContext

    g = chain(3)
    g.update("2", metadata={"f": -918756161.9163201, "tiny": 5e-324, "s": 'q"\\\n\u00e9\U0001f600'})
    text = g.to_json()
    ctx = TaskContext.model_validate_json(text)
    assert ctx.model_dump_json() == text
    loaded = TaskGraph.from_json(text)
    assert loaded.state_dict() == ctx.model_dump()
    assert loaded.get("2")["metadata"]["f"] == -918756161.9163201
    spaced = json.dumps(json.loads(text), indent=1)  # not the compact layout: the general reader
    assert TaskGraph.from_json(spaced) == loaded
    for broken in [text[:-1], text + " x", text.replace('"id":"2"', '"id":2'), text.replace("\\n", "\n")]:
        with pytest.raises(StateLoadError):
            TaskGraph.from_json(broken)


def test_plain_and_general_state_readers_agree() -> None:
    """Plain dicts/lists/strs take a direct path; tuples, dict subclasses and str subclasses go
    through pythonize. Both must load the same tasks."""

    class Text(str):
        pass

    g = chain(4)
    g.update("3", status="in_progress", metadata={"k": [1, {"x": 2.5}], "s": "v"}, owner="o")
    state = g.state_dict()
    variants: list[dict[str, Any]] = [
        {"extra": 1, "tasks": [dict(t, unknown=None) for t in state["tasks"]]},
        {"tasks": tuple(state["tasks"])},
        {"tasks": [collections.OrderedDict(t) for t in state["tasks"]]},
        {"tasks": [dict(t, blocks=tuple(t["blocks"]), subject=Text(t["subject"])) for t in state["tasks"]]},
        {"tasks": [dict(t, metadata=collections.OrderedDict(t["metadata"])) for t in state["tasks"]]},
    ]
    for variant in variants:
        assert TaskGraph.from_state_dict(variant).state_dict() == state
    with pytest.raises(StateLoadError, match="deleted"):
        TaskGraph.from_state_dict({"tasks": [dict(state["tasks"][0], state="deleted")]})


def test_defaults_and_legacy_ids_load_like_pydantic() -> None:
    g = TaskGraph.from_state_dict(
        {"tasks": [{"subject": "s", "description": "d", "metadata": {}}, {"subject": "t", "description": "", "metadata": {}, "id": "0012"}]}
    )
    first, second = g.list()
    assert len(first["id"]) == 32 and first["state"] == "pending" and first["created_at"]
    assert second["id"] == "0012"
    assert g.create("n", "") == "13"


def test_drawings() -> None:
    g = chain(3)
    g.update("1", status="completed", subject='say "hi" <now>')
    mermaid = g.to_mermaid()
    assert mermaid.startswith("flowchart TD\n")
    assert 't0["#1 say #quot;hi#quot; #lt;now#gt;"]:::completed' in mermaid
    assert "t0 -.-> t1" in mermaid and "t1 --> t2" in mermaid
    dot = g.to_dot()
    assert dot.startswith("digraph tasks {") and '"1" -> "2" [style=dashed];' in dot and '"2" -> "3";' in dot
    assert 'label="#1 say \\"hi\\" <now>"' in dot


def test_large_chain_stays_consistent() -> None:
    g = TaskGraph()
    for i in range(1, 2001):
        g.create("t", "")
        if i > 1:
            g.update(str(i), add_blocked_by=[str(i - 1)])
    with pytest.raises(CycleError):
        g.update("1", add_blocked_by=["2000"])
    for i in range(1, 2001):
        assert g.ready() == [str(i)] if i % 500 == 0 else True
        g.update(str(i), status="completed")
    assert g.ready() == [] and g.validate() == []


def test_works_without_agentscope() -> None:
    code = (
        "import sys; sys.modules['agentscope'] = None\n"
        "import planmode\n"
        "g = planmode.TaskGraph(); g.create('a', 'b'); print(g.to_json()[:10])\n"
        "try:\n    import planmode.agentscope\nexcept ImportError as e:\n    print('needs', 'agentscope' in str(e))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ['{"tasks":[', "needs", "True"]
