"""Every way a permission context's rules can change is seen by the next decision, with a cost that
does not depend on the rules after the deciding one; the check protocol's words match the stub;
engines and checks shared by threads never fail with a borrow error."""

from __future__ import annotations

import ast
import asyncio
import random
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from agentscope.permission import (
    PermissionContext,
    PermissionDecision,
    PermissionEngine as AgentScopeEngine,
    PermissionMode,
    PermissionRule,
)
from agentscope.state import AgentState
from agentscope.tool import Bash, Write
from permission_tools import TOOL_NAMES, B, Deploy, all_tools, random_content, random_context, random_input

import planmode
from planmode._core import RuleCache
from planmode.agentscope import PermissionEngine
from planmode.exceptions import InvalidInputError

TOOLS = all_tools()


def rule(content: str | None, tool: str = "Bash", behavior: B = B.DENY) -> PermissionRule:
    return PermissionRule(tool_name=tool, rule_content=content, behavior=behavior, source="t")


def decision(d: PermissionDecision) -> tuple[Any, ...]:
    return (d.behavior, d.message, d.decision_reason, d.updated_input, d.suggested_rules, d.bypass_immune)


class Pair:
    """Our engine and AgentScope's on the same context; ``same`` checks they decide alike."""

    def __init__(self, context: PermissionContext) -> None:
        self.ours = PermissionEngine(context)
        self.theirs = AgentScopeEngine(context)

    @property
    def context(self) -> PermissionContext:
        return self.ours.context

    @context.setter
    def context(self, context: PermissionContext) -> None:
        self.ours.context = self.theirs.context = context

    async def same(self, tool: Any = None, tool_input: dict[str, Any] | None = None) -> tuple[Any, ...]:
        tool = tool or Bash()
        tool_input = tool_input if tool_input is not None else {"command": "git push"}
        theirs = decision(await self.theirs.check_permission(tool, tool_input))
        ours = decision(await self.ours.check_permission(tool, tool_input))
        assert ours == theirs
        return ours


def big_list(n: int) -> list[PermissionRule]:
    return [rule(f"tool{i}:*") for i in range(n)]


# ---- every way rules change -------------------------------------------------------------------

EDITS: dict[str, Callable[[PermissionContext, PermissionEngine], None]] = {
    "add_rule": lambda c, e: e.add_rule(rule("git:*")),
    "agentscope add_rule": lambda c, e: AgentScopeEngine(c).add_rule(rule("git:*")),
    "append": lambda c, e: c.deny_rules["Bash"].append(rule("git:*")),
    "extend": lambda c, e: c.deny_rules["Bash"].extend([rule("x"), rule("git")]),
    "insert at 0": lambda c, e: c.deny_rules["Bash"].insert(0, rule("git:*")),
    "setitem": lambda c, e: c.deny_rules["Bash"].__setitem__(500, rule("git:*")),
    "slice assignment": lambda c, e: c.deny_rules["Bash"].__setitem__(slice(10, 20), [rule(None)]),
    "delitem": lambda c, e: c.deny_rules["Bash"].__delitem__(0),
    "remove": lambda c, e: c.deny_rules["Bash"].remove(c.deny_rules["Bash"][0]),
    "pop": lambda c, e: c.deny_rules["Bash"].pop(),
    "clear": lambda c, e: c.deny_rules["Bash"].clear(),
    "reverse": lambda c, e: c.deny_rules["Bash"].reverse(),
    "sort": lambda c, e: c.deny_rules["Bash"].sort(key=lambda r: str(r.rule_content)),
    "list replaced": lambda c, e: c.deny_rules.__setitem__("Bash", [rule("git status")]),
    "dict replaced": lambda c, e: setattr(c, "deny_rules", {"Bash": [rule("*")]}),
    "dict key deleted": lambda c, e: c.deny_rules.pop("Bash"),
    "rule_content assigned": lambda c, e: setattr(c.deny_rules["Bash"][700], "rule_content", "git:*"),
    "rule_content in __dict__": lambda c, e: c.deny_rules["Bash"][0].__dict__.__setitem__("rule_content", "git"),
    "rule_content set to None": lambda c, e: setattr(c.deny_rules["Bash"][999], "rule_content", None),
    "behavior assigned (ignored by both)": lambda c, e: setattr(c.deny_rules["Bash"][0], "behavior", B.ALLOW),
    "moved to ask rules": lambda c, e: c.ask_rules.__setitem__("Bash", c.deny_rules.pop("Bash")),
    "mode assigned": lambda c, e: setattr(c, "mode", PermissionMode.BYPASS),
    "allow rules added": lambda c, e: c.allow_rules.setdefault("Bash", []).append(rule(None, behavior=B.ALLOW)),
}


@pytest.mark.parametrize("edit", list(EDITS))
async def test_every_kind_of_edit_is_seen_by_the_next_decision(edit: str) -> None:
    context = PermissionContext(deny_rules={"Bash": big_list(1000)})
    pair = Pair(context)
    inputs = [{"command": c} for c in ("git push", "git status", "tool999 x", "tool3", "ls")]
    for tool_input in inputs:  # warm the cache with every rule compiled
        await pair.same(Bash(), tool_input)
    EDITS[edit](context, pair.ours)
    for tool_input in inputs:
        await pair.same(Bash(), tool_input)


async def test_a_replaced_or_restored_context_decides_at_once() -> None:
    pair = Pair(PermissionContext(deny_rules={"Bash": big_list(300)}))
    assert (await pair.same())[0] is B.ASK
    state = AgentState(permission_context=PermissionContext(deny_rules={"Bash": [*big_list(300), rule("git:*")]}))
    restored = AgentState.model_validate_json(state.model_dump_json())
    pair.context = restored.permission_context
    assert (await pair.same())[0] is B.DENY
    restored.permission_context.deny_rules["Bash"][-1].rule_content = "hg:*"
    assert (await pair.same())[0] is B.ASK
    pair.context = PermissionContext(mode=PermissionMode.BYPASS)
    assert (await pair.same())[0] is B.ALLOW


async def test_shared_rule_objects_and_lists_are_judged_where_they_are() -> None:
    shared = rule("git:*")
    listed = [rule("x"), shared]
    context = PermissionContext(deny_rules={"Bash": listed}, ask_rules={"Bash": [shared]}, allow_rules={"Write": listed})
    pair = Pair(context)
    await pair.same()
    await pair.same(Write(), {"file_path": "git:*", "content": ""})
    shared.rule_content = "ls"
    await pair.same()
    await pair.same(Bash(), {"command": "ls"})
    await pair.same(Write(), {"file_path": "ls", "content": ""})


async def test_a_decision_reads_rules_only_up_to_the_deciding_one() -> None:
    context = PermissionContext(deny_rules={"Bash": big_list(10_000)})
    rules = context.deny_rules["Bash"]
    rules[0] = rule("git:*")
    pair = Pair(context)
    for _ in range(3):
        await pair.same()
    assert pair.ours._rules.compiled_rules == 1
    rules[5000] = rule("ls")  # beyond the deciding rule: nothing to read for git
    await pair.same()
    assert pair.ours._rules.compiled_rules == 1
    await pair.same(Bash(), {"command": "ls"})  # reads to rule 5000, compiling what it reads
    assert pair.ours._rules.compiled_rules == 5001


async def test_random_edits_interleaved_with_decisions_match_agentscope() -> None:
    rng = random.Random(1613)
    for _ in range(12):
        context = random_context(rng, rng.choice([5, 40, 200]))
        pair = Pair(context)
        for _ in range(60):
            _random_edit(rng, context, pair.ours)
            for _ in range(3):
                tool = rng.choice(TOOLS)
                await pair.same(tool, random_input(rng, tool))


def _random_edit(rng: random.Random, context: PermissionContext, engine: PermissionEngine) -> None:
    """One random change of any kind to the context's rules (or mode)."""
    name = rng.choice(TOOL_NAMES)
    lists = rng.choice([context.deny_rules, context.ask_rules, context.allow_rules])
    rules = lists.setdefault(name, [])
    new = rule(random_content(rng, name), name, rng.choice([B.ALLOW, B.DENY, B.ASK]))
    kind = rng.randrange(9)
    if kind == 0:
        engine.add_rule(new)
    elif kind == 1:
        rules.insert(rng.randrange(len(rules) + 1), new)
    elif kind == 2 and rules:
        del rules[rng.randrange(len(rules))]
    elif kind == 3 and rules:
        rules[rng.randrange(len(rules))] = new
    elif kind == 4 and rules:
        rng.choice(rules).rule_content = random_content(rng, name)
    elif kind == 5:
        lists[name] = rng.sample(rules, len(rules))
    elif kind == 6:
        rng.shuffle(rules)
    elif kind == 7:
        context.mode = rng.choice(list(PermissionMode))
    else:
        rules.append(new)


# ---- the protocol's words come from one place --------------------------------------------------


def _stub_literals() -> dict[str, tuple[str, ...]]:
    """The Literal aliases of the permission section of ``planmode/_core.pyi``."""
    tree = ast.parse((Path(planmode.__file__).parent / "_core.pyi").read_text())
    found = {}
    for node in tree.body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and isinstance(node.value, ast.Subscript):
            value = node.value
            if isinstance(value.value, ast.Name) and value.value.id == "Literal":
                elts = value.slice.elts if isinstance(value.slice, ast.Tuple) else [value.slice]
                found[node.target.id] = tuple(e.value for e in elts if isinstance(e, ast.Constant))
    return found


def test_the_stubs_words_are_the_runtime_aliases() -> None:
    import typing

    from planmode import _core

    words = _stub_literals()
    assert set(words) >= {"MatcherKind", "CheckStep", "ToolVerdict", "BehaviorValue"}
    for name in ("MatcherKind", "CheckStep", "ToolVerdict", "BehaviorValue"):
        alias = getattr(_core, name)  # Union[Literal["a"], Literal["b"], ...]
        assert tuple(typing.get_args(arg)[0] for arg in typing.get_args(alias)) == words[name], name


def test_the_stubs_words_are_exactly_what_the_core_accepts_and_returns() -> None:
    words = _stub_literals()
    cache = RuleCache(tuple(PermissionMode))
    context = PermissionContext()
    for kind in words["MatcherKind"]:
        assert cache.begin(context, "Bash", kind, {"command": "ls"}).step in words["CheckStep"]
    with pytest.raises(InvalidInputError) as bad_kind:
        cache.begin(context, "Bash", "shell", {})
    assert str(bad_kind.value) == "unknown matcher kind \"shell\" (expected one of " + ", ".join(
        f'"{k}"' for k in words["MatcherKind"]
    ) + ")"
    with pytest.raises(InvalidInputError, match="matcher kind must be a str, got int"):
        cache.begin(context, "Bash", 5, {})
    check = cache.begin(context, "deploy", "tool", {"target": "x"}, False)
    assert check.step == "check_permissions"
    with pytest.raises(InvalidInputError, match="unknown tool verdict"):
        check.tool_decision("maybe")
    for verdict in words["ToolVerdict"]:
        step = cache.begin(context, "deploy", "tool", {"target": "x"}, False).tool_decision(verdict)
        assert step in words["CheckStep"]
    made = check.tool_decision("continue") and check.decision()
    assert made is not None and made[0] in words["BehaviorValue"]
    assert set(words["BehaviorValue"]) <= {b.value for b in B}


async def test_steps_and_behaviors_on_a_random_workload_are_the_stubs() -> None:
    words = _stub_literals()
    rng = random.Random(3)
    seen_steps, seen_behaviors = set(), set()
    original = RuleCache.begin

    for _ in range(20):
        context = random_context(rng, 30)
        cache = RuleCache(tuple(PermissionMode))
        for _ in range(20):
            tool = rng.choice(TOOLS)
            check = original(cache, context, tool.name, "tool", random_input(rng, tool), None)
            while (step := check.step) not in ("done", "done_suggest"):
                seen_steps.add(step)
                if step == "match_rules":
                    check.matched(rng.choice([None, 0]))
                elif step == "check_read_only":
                    check.read_only(rng.random() < 0.5)
                else:
                    check.tool_decision(rng.choice(words["ToolVerdict"]))
            seen_steps.add(step)
            made = check.decision()
            if made is not None:
                seen_behaviors.add(made[0])
    assert seen_steps == set(words["CheckStep"])
    assert seen_behaviors == set(words["BehaviorValue"])


# ---- threads ---------------------------------------------------------------------------------


def test_one_engine_decides_from_many_threads_while_rules_change() -> None:
    rng = random.Random(11)
    context = random_context(rng, 400)
    engine = PermissionEngine(context)
    calls = [(tool, random_input(rng, tool)) for tool in rng.choices(TOOLS, k=120)]
    errors: list[BaseException] = []
    stop = threading.Event()

    def decide() -> None:
        try:
            for _ in range(3):
                asyncio.run(_decide(engine, calls))
        except BaseException as exc:  # noqa: BLE001 - collected for the assertion
            errors.append(exc)

    def edit() -> None:
        edits = random.Random(12)
        while not stop.is_set():
            _random_edit(edits, context, engine)

    editor = threading.Thread(target=edit)
    workers = [threading.Thread(target=decide) for _ in range(3)]
    editor.start()
    for t in workers:
        t.start()
    for t in workers:
        t.join()
    stop.set()
    editor.join()
    assert errors == []
    expected = asyncio.run(_decide(AgentScopeEngine(context), calls))
    assert asyncio.run(_decide(engine, calls)) == expected


async def _decide(engine: Any, calls: list[tuple[Any, dict[str, Any]]]) -> list[Any]:
    return [decision(await engine.check_permission(tool, tool_input)) for tool, tool_input in calls]


def test_a_check_busy_with_one_call_refuses_another_clearly_and_is_not_torn() -> None:
    cache = RuleCache(tuple(PermissionMode))
    check = cache.begin(PermissionContext(mode=PermissionMode.DONT_ASK), "nuke", "tool", {"target": "/"}, False)
    assert check.step == "check_permissions"
    assert check.tool_decision("safety_ask") == "done_suggest"
    refused: list[BaseException] = []
    busy: list[str] = []

    def attempt(call: Callable[[], Any]) -> None:
        try:
            call()
        except BaseException as exc:  # noqa: BLE001 - collected for the assertion
            refused.append(exc)

    class Reason(str):
        def __format__(self, spec: str) -> str:
            other = threading.Thread(target=attempt, args=(lambda: check.step,))
            other.start()
            other.join()
            attempt(lambda: check.decision(None))  # re-entered from the same thread
            busy.append(repr(check))
            return str.__format__(self, spec)

    ask = PermissionDecision(behavior=B.ASK, message="m", decision_reason=Reason("root"), bypass_immune=True)
    made = check.decision(ask)
    assert made is not None and made[0] == "deny" and made[2] is not None and made[2].endswith("Original reason: root")
    assert len(refused) == 2
    for exc in refused:
        assert isinstance(exc, InvalidInputError) and "answering another call" in str(exc)
    assert check.step == "done_suggest" and check.decision(ask) == made
    assert busy and set(busy) == {"PermissionCheck(<answering a call>)"}
    assert repr(check).startswith("PermissionCheck(mode=\"dont_ask\", tool=\"nuke\", step=\"done_suggest\"")


async def test_deploy_rules_only_the_tool_can_judge_still_decide_in_order() -> None:
    context = PermissionContext(deny_rules={"deploy": [rule(f"t{i}", "deploy") for i in range(50)] + [rule("prod", "deploy")]})
    pair = Pair(context)
    await pair.same(Deploy(), {"target": "prod-eu"})
    context.deny_rules["deploy"].insert(3, rule("eu", "deploy"))
    assert (await pair.same(Deploy(), {"target": "prod-eu"}))[2] == "Rule: eu"
