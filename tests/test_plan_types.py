"""PlanBook's typed boundary: the stub's words are the core's, and every dict the core returns
has exactly the keys (and value types) of the TypedDict its method declares in ``_core.pyi``.

The expected shape of each result is read from the stub itself (the method's return
annotation), so the stub and the core cannot drift apart without this test failing.
"""

from __future__ import annotations

import ast
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import planmode
from planmode import _core
from planmode._core import PlanBook, PlanWorkspace, check_actor
from planmode.exceptions import InvalidInputError

STUB = ast.parse((Path(planmode.__file__).parent / "_core.pyi").read_text())
BUILTINS: dict[str, type] = {"str": str, "int": int, "bool": bool}


def literal_aliases() -> dict[str, tuple[str, ...]]:
    """Every ``Name: TypeAlias = Literal[...]`` of the stub."""
    found = {}
    for node in STUB.body:
        if not (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
                and isinstance(node.value, ast.Subscript)):
            continue
        if isinstance(node.value.value, ast.Name) and node.value.value.id == "Literal":
            s = node.value.slice
            elts = s.elts if isinstance(s, ast.Tuple) else [s]
            found[node.target.id] = tuple(e.value for e in elts if isinstance(e, ast.Constant) and isinstance(e.value, str))
    return found


def typed_dicts() -> dict[str, dict[str, tuple[ast.expr, bool]]]:
    """Every TypedDict of the stub: field -> (annotation, required), inherited fields included."""
    classes = {n.name: n for n in STUB.body if isinstance(n, ast.ClassDef)}
    out: dict[str, dict[str, tuple[ast.expr, bool]]] = {}

    def fields(name: str) -> dict[str, tuple[ast.expr, bool]] | None:
        if name in out:
            return out[name]
        node = classes[name]
        bases = [b.id for b in node.bases if isinstance(b, ast.Name)]
        if bases == ["TypedDict"]:
            mine: dict[str, tuple[ast.expr, bool]] = {}
        elif len(bases) == 1 and bases[0] in classes and (inherited := fields(bases[0])) is not None:
            mine = dict(inherited)
        else:
            return None
        for item in node.body:
            if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                ann = item.annotation
                required = not (isinstance(ann, ast.Subscript) and isinstance(ann.value, ast.Name) and ann.value.id == "NotRequired")
                mine[item.target.id] = (ann if required else ann.slice, required)  # type: ignore[attr-defined]
        out[name] = mine
        return mine

    for name in classes:
        fields(name)
    return out


WORDS = literal_aliases()
SHAPES = typed_dicts()


def returns() -> dict[str, ast.expr]:
    """PlanBook's methods and properties -> their return annotation."""
    book = next(n for n in STUB.body if isinstance(n, ast.ClassDef) and n.name == "PlanBook")
    return {f.name: f.returns for f in book.body if isinstance(f, ast.FunctionDef) and f.returns is not None}


def check(value: Any, ann: ast.expr, where: str, seen: dict[str, set[frozenset[str]]]) -> None:
    """Fails unless `value` has the shape `ann` spells; records the key sets seen per TypedDict."""
    if isinstance(ann, ast.BinOp) and isinstance(ann.op, ast.BitOr):  # X | None
        alternatives = [ann.left, ann.right]
        if value is None and any(isinstance(a, ast.Constant) and a.value is None for a in alternatives):
            return
        rest = [a for a in alternatives if not (isinstance(a, ast.Constant) and a.value is None)]
        assert len(rest) == 1, ast.unparse(ann)
        return check(value, rest[0], where, seen)
    if isinstance(ann, ast.Subscript) and isinstance(ann.value, ast.Name) and ann.value.id == "list":
        assert isinstance(value, list), (where, value)
        for i, item in enumerate(value):
            check(item, ann.slice, f"{where}[{i}]", seen)
        return
    assert isinstance(ann, ast.Name), (where, ast.unparse(ann))
    name = ann.id
    if name in BUILTINS:
        assert type(value) is BUILTINS[name], (where, value, name)
    elif name in WORDS:
        assert value in WORDS[name], (where, value, name)
    elif name in SHAPES:
        assert type(value) is dict, (where, value)
        shape = SHAPES[name]
        required = {k for k, (_, r) in shape.items() if r}
        assert required <= value.keys() <= shape.keys(), (where, name, sorted(value), sorted(shape))
        seen.setdefault(name, set()).add(frozenset(value))
        for key, item in value.items():
            check(item, shape[key][0], f"{where}.{key}", seen)
    else:
        raise AssertionError(f"{where}: the stub names {name}, which this test cannot check")


def scenario(workspace_dir: Path) -> list[tuple[str, Any]]:
    """Real outputs of every typed PlanBook result, with their optional keys present and absent."""
    out: list[tuple[str, Any]] = []
    book = PlanBook()
    ws = PlanWorkspace(workspace_dir)

    unset = object()

    def note(name: str, value: Any = unset) -> None:
        out.append((name, getattr(book, name) if value is unset else value))

    def snapshot() -> None:
        for name in ("phase", "outcome", "pending", "live_claim", "grants", "todos", "audit", "revisions", "trimmed"):
            note(name)
        if book.revisions:
            note("steps", book.steps())
        note("approved_scope", book.approved_scope())
        note("inspect_file", book.inspect_file(ws))

    note("inspect_file", book.inspect_file(ws))  # None: no plan path bound yet
    snapshot()
    book.bind("agent", ".plans/agent.md", str(workspace_dir))
    book.enter()
    plan = "# Plan\n\n1. read the code\n2. change it\n\n## Scope\n- `src/*.py`\n- `pytest`\n"
    note("write", book.write("# Plan\n\nno steps yet\n"))
    note("write", book.write(plan))
    note("write", book.write(plan))  # unchanged
    ws.write(".plans/agent.md", plan + "\nedited by hand\n")
    note("inspect_file", book.inspect_file(ws))
    note("record_file_edit", book.record_file_edit(plan + "3. test it\n"))
    note("step_diff", book.step_diff())
    book.request_exit("reply-1", "call-1", None)
    snapshot()
    note("decide", book.decide("request_changes", feedback="split step 2", revision=book.revision))
    book.record_exit_refused("no human available")
    book.record_exit_refused("no human available")  # folded into the entry before: count
    book.request_exit("reply-2", "call-2", "the plan")
    note(
        "claim",
        book.claim(
            "approve_with_edits",
            "admin:alice",
            edited_plan=plan + "4. ship\n",
            revision=book.revision,
            next_mode="accept_edits",
            grants=[{"tool_name": "Bash", "rule_content": "pytest*"}, {"tool_name": "Write"}],
        ),
    )
    snapshot()
    note("apply_claim", book.apply_claim("call-2"))
    book.set_todos([{"content": "read", "status": "in_progress", "priority": "high", "step_id": "s1"}, {"content": "x", "status": "pending"}])
    book.record_drift("wrote /etc/passwd")
    book.record_mode_change("user", "accept_edits", "default")
    snapshot()
    book.enter("user")
    note("write", book.write(plan))
    book.request_exit("reply-3", "call-3", None)
    note("decide", book.decide("approve"))
    book.seed_todos_from_plan()
    snapshot()
    book.force_exit("admin")
    book.record_restored()
    snapshot()
    return out


def test_the_words_are_the_cores_run_time_aliases() -> None:
    for name in ("PlanPhase", "PlanOutcome", "PlanDecision", "ActorKind"):
        alias = getattr(_core, name)  # Union[Literal["a"], Literal["b"], ...]
        assert tuple(typing.get_args(arg)[0] for arg in typing.get_args(alias)) == WORDS[name], name
    assert WORDS["PlanPhase"] == _core.PLAN_PHASES


def test_every_word_is_accepted_and_nothing_else() -> None:
    for kind in WORDS["ActorKind"]:
        check_actor(kind)
        check_actor(f"{kind}:someone")
    with pytest.raises(InvalidInputError, match="use one of " + ", ".join(WORDS["ActorKind"])):
        check_actor("robot")
    with pytest.raises(InvalidInputError, match="unknown decision"):
        PlanBook().decide("maybe")
    for decision in WORDS["PlanDecision"]:
        with pytest.raises(Exception) as refused:  # never entered: each is refused by phase, not by name
            PlanBook().decide(decision, feedback="f")
        assert "unknown decision" not in str(refused.value), decision


def test_every_result_has_exactly_its_typed_dicts_keys(tmp_path: Path) -> None:
    declared = returns()
    seen: dict[str, set[frozenset[str]]] = {}
    results = scenario(tmp_path)
    for i, (method, value) in enumerate(results):
        check(value, declared[method], f"{method}#{i}", seen)
    # Every result the brief types was produced, and its annotation is a typed one.
    typed = {"write", "decide", "claim", "apply_claim", "pending", "live_claim", "grants", "todos", "audit",
             "revisions", "steps", "step_diff", "approved_scope", "inspect_file", "trimmed", "record_file_edit"}
    assert typed <= {m for m, _ in results}
    assert not [m for m in typed if "dict[" in ast.unparse(declared[m])], "an untyped dict is left in the stub"
    # No key of a TypedDict is one the core never produces, and each optional key was seen
    # both present and absent (so the NotRequired markers are right too).
    for name, key_sets in seen.items():
        shape = SHAPES[name]
        produced = set().union(*key_sets)
        assert produced == set(shape), (name, sorted(set(shape) - produced))
        for key, (_, required) in shape.items():
            if not required:
                assert any(key not in ks for ks in key_sets), (name, key, "never absent")


def test_the_checker_can_fail() -> None:
    """A key too many, a key missing and a wrong word are each caught."""
    ann = returns()["write"]
    good: dict[str, Any] = {"revision": 1, "sha256": "x", "unchanged": False}
    check(good, ann, "write", {})
    bad_cases: list[Callable[[dict[str, Any]], None]] = [
        lambda d: d.update(extra=1),
        lambda d: d.pop("sha256"),
        lambda d: d.update(unchanged=1),
    ]
    for spoil in bad_cases:
        d = dict(good)
        spoil(d)
        with pytest.raises(AssertionError):
            check(d, ann, "write", {})
    with pytest.raises(AssertionError):
        check("thinking", returns()["phase"], "phase", {})
