"""planmode's PermissionEngine against agentscope.permission.PermissionEngine: same decisions."""

from __future__ import annotations

import pickle
import random
from typing import Any

import pytest
from agentscope.permission import (
    PermissionContext,
    PermissionDecision,
    PermissionEngine as AgentScopeEngine,
    PermissionMode,
    PermissionRule,
)
from agentscope.tool import Bash, Glob, Read, ToolBase, Write
from hypothesis import HealthCheck, given, settings, strategies as st
from permission_tools import B, Deploy, Gate, Legacy, LoudBash, Nuke, all_tools, random_context, random_input

from planmode._core import RuleCache
from planmode.agentscope import PermissionEngine
from planmode.exceptions import UnknownModeError


async def outcome(engine: Any, tool: ToolBase, tool_input: dict[str, Any]) -> Any:
    """The decision (as comparable fields) or the exception an engine produces."""
    try:
        d: PermissionDecision = await engine.check_permission(tool, tool_input)
    except Exception as exc:  # noqa: BLE001 - both engines must fail the same way
        return ("raised", ValueError if isinstance(exc, ValueError) else type(exc), str(exc))
    return (
        d.behavior,
        d.message,
        d.decision_reason,
        d.updated_input is tool_input,
        d.updated_input,
        d.suggested_rules,
        d.bypass_immune,
    )


async def assert_same(context: PermissionContext, tool: ToolBase, tool_input: dict[str, Any]) -> Any:
    theirs = await outcome(AgentScopeEngine(context), tool, tool_input)
    ours = await outcome(PermissionEngine(context), tool, tool_input)
    assert ours == theirs, (context.mode, tool.name, tool_input)
    return ours


TOOLS = all_tools()


async def test_random_workloads_decide_like_agentscope() -> None:
    rng = random.Random(20261130)
    behaviors = set()
    for round_ in range(120):
        context = random_context(rng, rng.choice([0, 3, 10, 40]))
        ours = PermissionEngine(context)
        theirs = AgentScopeEngine(context)
        for _ in range(25):
            tool = rng.choice(TOOLS)
            tool_input = random_input(rng, tool)
            expected = await outcome(theirs, tool, tool_input)
            assert await outcome(ours, tool, tool_input) == expected, (round_, context, tool.name, tool_input)
            behaviors.add((context.mode, expected[0]))
    # The stream reaches every behavior each mode can produce.
    assert len(behaviors) >= 11, behaviors


@pytest.mark.parametrize("mode", list(PermissionMode))
@pytest.mark.parametrize("target", ["/", "/srv", "elsewhere"])
@pytest.mark.parametrize("with_allow", [False, True])
async def test_safety_ask_per_mode(mode: PermissionMode, target: str, with_allow: bool) -> None:
    context = PermissionContext(mode=mode)
    if with_allow:
        AgentScopeEngine(context).add_rule(PermissionRule(tool_name="nuke", rule_content=None, behavior=B.ALLOW, source="t"))
    got = await assert_same(context, Nuke(), {"target": target})
    if mode in (PermissionMode.DEFAULT, PermissionMode.ACCEPT_EDITS) and target.startswith("/"):
        assert got[0] is B.ASK and got[6] is True, "a safety ASK survives allow rules"


@pytest.mark.parametrize("mode", list(PermissionMode))
@pytest.mark.parametrize(
    "command",
    ["ls -la", "git status", "rm -rf /", "echo $(rm -rf ~)", "npm install", "sed -i s/a/b/ ~/.bashrc", ""],
)
async def test_real_bash_per_mode_with_prefix_rules(mode: PermissionMode, command: str) -> None:
    context = PermissionContext(mode=mode)
    engine = AgentScopeEngine(context)
    engine.add_rule(PermissionRule(tool_name="Bash", rule_content="npm:*", behavior=B.ALLOW, source="t"))
    engine.add_rule(PermissionRule(tool_name="Bash", rule_content="sed *", behavior=B.ASK, source="t"))
    await assert_same(context, Bash(), {"command": command})


async def test_tool_decisions_come_back_as_the_same_object() -> None:
    decision = PermissionDecision(behavior=B.ALLOW, message="mine")

    class Fixed(Gate):
        async def check_permissions(self, tool_input: dict[str, Any], context: PermissionContext) -> PermissionDecision:
            return decision

    assert await PermissionEngine(PermissionContext()).check_permission(Fixed(), {"target": "x"}) is decision


@pytest.mark.parametrize("tool", [Deploy(), Legacy(), LoudBash()], ids=lambda t: type(t).__name__)
async def test_tools_own_match_rule_is_used_when_not_agentscopes(tool: ToolBase) -> None:
    context = PermissionContext()
    AgentScopeEngine(context).add_rule(
        PermissionRule(tool_name=tool.name, rule_content="GIT", behavior=B.DENY, source="t")
    )
    AgentScopeEngine(context).add_rule(PermissionRule(tool_name=tool.name, rule_content="pro", behavior=B.DENY, source="t"))
    for value in ["git status", "GIT add", "prod", "dev"]:
        await assert_same(context, tool, {"command": value, "target": value})


async def test_plain_function_tool_methods_are_supported() -> None:
    """check_read_only / check_permissions as plain functions (AgentScope itself would fail to await them)."""

    class Plain(Legacy):
        def check_read_only(self, tool_input: dict[str, Any]) -> bool:  # type: ignore[override]
            return bool(tool_input.get("ro"))

        def check_permissions(self, tool_input: dict[str, Any], context: PermissionContext) -> PermissionDecision:  # type: ignore[override]
            return PermissionDecision(behavior=B.PASSTHROUGH, message="")

    engine = PermissionEngine(PermissionContext(mode=PermissionMode.DONT_ASK))
    assert (await engine.check_permission(Plain(), {"ro": True})).behavior is B.ALLOW
    denied = await engine.check_permission(Plain(), {"ro": False})
    assert denied.message == "Permission denied for legacy (dont_ask mode - user not available)"


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    pattern=st.text(alphabet="ab-]![*?/\\.^", max_size=9),
    path=st.text(alphabet="ab-]![*?/\\.^\n", min_size=0, max_size=9),
)
async def test_path_globs_match_like_fnmatch(pattern: str, path: str) -> None:
    context = PermissionContext()
    context.deny_rules["Read"] = [PermissionRule(tool_name="Read", rule_content=pattern, behavior=B.DENY, source="t")]
    await assert_same(context, Read(), {"file_path": path})
    context.deny_rules["Glob"] = [PermissionRule(tool_name="Glob", rule_content=pattern, behavior=B.DENY, source="t")]
    await assert_same(context, Glob(), {"pattern": path, "path": path[::-1] or None})


@settings(max_examples=400, deadline=None)
@given(
    rule=st.text(alphabet="git *:\\ab.\n\x1c(", min_size=1, max_size=8),
    command=st.text(alphabet="git *:\\ab.\n\x1c(", max_size=10),
)
async def test_bash_rules_match_like_agentscope(rule: str, command: str) -> None:
    context = PermissionContext(mode=PermissionMode.BYPASS)
    context.deny_rules["Bash"] = [PermissionRule(tool_name="Bash", rule_content=rule, behavior=B.DENY, source="t")]
    await assert_same(context, Bash(), {"command": command})


async def test_rule_changes_are_seen_however_they_are_made() -> None:
    context = PermissionContext(mode=PermissionMode.DONT_ASK)
    engine = PermissionEngine(context)
    reference = AgentScopeEngine(context)
    tool = Write()
    tool_input = {"file_path": "/srv/app/main.py", "content": ""}

    async def check() -> tuple[Any, str]:
        ours = await engine.check_permission(tool, tool_input)
        assert ours == await reference.check_permission(tool, tool_input)
        return ours.behavior, ours.message

    assert (await check())[0] is B.DENY
    engine.add_rule(PermissionRule(tool_name="Write", rule_content="/srv/**", behavior=B.ALLOW, source="t"))
    assert await check() == (B.ALLOW, "Permission granted for Write")
    rule = context.allow_rules["Write"][0]
    rule.rule_content = "/opt/**"  # edited in place
    assert (await check())[0] is B.DENY
    context.allow_rules["Write"][0] = PermissionRule(tool_name="Write", rule_content=None, behavior=B.ALLOW, source="t")
    assert (await check())[0] is B.ALLOW
    context.allow_rules["Write"] = []  # list replaced
    assert (await check())[0] is B.DENY
    context.deny_rules = {"Write": [PermissionRule(tool_name="Write", rule_content="*.py", behavior=B.DENY, source="t")]}
    assert await check() == (B.DENY, "Permission to use Write has been denied")
    engine.context = reference.context = PermissionContext(mode=PermissionMode.BYPASS)  # context replaced
    assert (await check())[0] is B.ALLOW


async def test_rules_are_compiled_once_and_only_as_far_as_a_decision_reads() -> None:
    context = PermissionContext()
    engine = PermissionEngine(context)
    for i in range(50):
        engine.add_rule(PermissionRule(tool_name="Bash", rule_content=f"tool{i}:*", behavior=B.ALLOW, source="t"))
    tool = Bash()
    await engine.check_permission(tool, {"command": "tool7 run"})
    assert engine._rules.compiled_rules == 8, "rules after the deciding one are never read"
    for _ in range(5):
        await engine.check_permission(tool, {"command": "tool49 run"})
    assert engine._rules.compiled_rules == 50
    engine.add_rule(PermissionRule(tool_name="Bash", rule_content="new:*", behavior=B.ALLOW, source="t"))
    assert (await engine.check_permission(tool, {"command": "new thing"})).behavior is B.ALLOW
    assert engine._rules.compiled_rules == 51, "an append compiles only the new rule"


@pytest.mark.parametrize("bad", ["bypass", None, 3])
async def test_unknown_mode_fails_like_agentscope(bad: Any) -> None:
    context = PermissionContext()
    context.mode = bad
    got = await assert_same(context, Read(), {"file_path": "x"})
    assert got == ("raised", ValueError, f"Unknown permission mode: {bad}")
    with pytest.raises(UnknownModeError):
        await PermissionEngine(context).check_permission(Read(), {"file_path": "x"})


async def test_odd_inputs_and_rule_containers_still_match_agentscope() -> None:
    context = PermissionContext(mode=PermissionMode.DEFAULT)
    context.allow_rules["Write"] = (  # type: ignore[assignment]  # a tuple, not a list
        PermissionRule(tool_name="Write", rule_content="src/**", behavior=B.ALLOW, source="t"),
    )
    context.deny_rules["Write"] = [PermissionRule(tool_name="Write", rule_content="[z-a-]x", behavior=B.DENY, source="t")]
    for file_path in ["src/x.py", "-x", "ax", None, 7]:
        await assert_same(context, Write(), {"file_path": file_path, "content": ""})
    await assert_same(context, Bash(), {"command": 42})


def test_rule_cache_pickles_and_names_itself() -> None:
    from agentscope.permission import PermissionMode as M

    cache = RuleCache(tuple(M))
    clone = pickle.loads(pickle.dumps(cache))
    assert repr(clone) == repr(cache)
    assert repr(cache).startswith("RuleCache((<PermissionMode.DEFAULT")
    with pytest.raises(ValueError, match="5 PermissionMode members"):
        RuleCache((M.DEFAULT,))


async def test_agentscope_engine_is_a_drop_in() -> None:
    engine = PermissionEngine(PermissionContext())
    assert isinstance(engine, AgentScopeEngine)
    engine.add_rule(PermissionRule(tool_name="Write", rule_content="a/**", behavior=B.ASK, source="t"))
    assert engine.context.ask_rules["Write"][0].rule_content == "a/**"
    d = await engine.check_permission(Write(), {"file_path": "a/b", "content": ""})
    assert (d.behavior, d.decision_reason) == (B.ASK, "Rule: a/**")
    assert d.suggested_rules == [PermissionRule(tool_name="Write", rule_content="a/**", behavior=B.ALLOW, source="suggested")]


async def test_a_cache_in_use_is_bypassed_not_waited_for() -> None:
    """A check started while the cache is busy (here: re-entered from a rule's __format__)
    compiles its lists without the cache instead of failing or deadlocking."""
    inner: list[Any] = []
    context = PermissionContext(mode=PermissionMode.DONT_ASK)
    engine = PermissionEngine(context)

    class Chatty(str):
        def __format__(self, spec: str) -> str:
            check = engine._rules.begin(PermissionContext(), "Read", "file", {"file_path": "x"}, True)
            inner.append(check.step)
            return str.__format__(self, spec)

    context.deny_rules["deploy"] = [PermissionRule(tool_name="deploy", rule_content="zz", behavior=B.DENY, source="t")]
    context.deny_rules["deploy"][0].rule_content = Chatty("prod")  # not a plain str: compiled via format()
    got = await outcome(engine, Deploy(), {"target": "prod-eu"})
    assert inner == ["done"], "the nested check ran (and was decided) while the cache was busy"
    assert got[:3] == (B.DENY, "Permission to use deploy has been denied", "Rule: prod")
    assert got == await outcome(AgentScopeEngine(context), Deploy(), {"target": "prod-eu"})


def test_one_engine_shared_by_threads_decides_like_agentscope() -> None:
    import asyncio
    import threading

    rng = random.Random(5)
    context = random_context(rng, 300)
    engine = PermissionEngine(context)
    calls = [(tool, random_input(rng, tool)) for tool in rng.choices(TOOLS, k=150)]
    expected = asyncio.run(_decide(AgentScopeEngine(context), calls))
    results: list[Any] = []

    def worker() -> None:
        results.append(asyncio.run(_decide(engine, calls)))

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [expected] * 4


async def _decide(engine: Any, calls: list[tuple[ToolBase, dict[str, Any]]]) -> list[Any]:
    return [await outcome(engine, tool, tool_input) for tool, tool_input in calls]


async def test_a_tool_class_patched_after_first_use_is_rematched(monkeypatch: pytest.MonkeyPatch) -> None:
    context = PermissionContext()
    context.deny_rules["Bash"] = [PermissionRule(tool_name="Bash", rule_content="GIT", behavior=B.DENY, source="t")]
    engine = PermissionEngine(context)
    assert (await engine.check_permission(Bash(), {"command": "git status"})).behavior is B.ALLOW

    async def shouting(self: Bash, rule_content: str | None, tool_input: dict[str, Any]) -> bool:
        return rule_content is None or rule_content.lower() in tool_input["command"].lower()

    monkeypatch.setattr(Bash, "match_rule", shouting)
    got = await assert_same(context, Bash(), {"command": "git status"})
    assert got[0] is B.DENY


@pytest.mark.parametrize("mode", [PermissionMode.ACCEPT_EDITS, PermissionMode.DONT_ASK, PermissionMode.DEFAULT])
@pytest.mark.parametrize(
    ("tool", "tool_input"),
    [
        (Write(), {"file_path": "/srv/app/main.py", "content": ""}),
        (Write(), {"file_path": "/etc/app.conf", "content": ""}),
        (Bash(), {"command": "mkdir -p /srv/app/build"}),
        (Bash(), {"command": "cp /etc/hosts /srv/app/hosts"}),
        (Bash(), {"command": "rm -rf /srv/app/tmp"}),
    ],
    ids=lambda v: getattr(v, "name", None) or str(v),
)
async def test_working_directories_behave_like_agentscope(
    mode: PermissionMode, tool: ToolBase, tool_input: dict[str, Any]
) -> None:
    from agentscope.permission import AdditionalWorkingDirectory

    context = PermissionContext(
        mode=mode,
        working_directories={"/srv/app": AdditionalWorkingDirectory(path="/srv/app", source="session")},
    )
    await assert_same(context, tool, tool_input)


async def test_a_tool_name_that_is_not_a_string_is_refused_clearly() -> None:
    from planmode.exceptions import InvalidInputError

    tool = Deploy()
    tool.name = 5  # type: ignore[assignment]
    with pytest.raises(InvalidInputError, match="name that is not a string: 5"):
        await PermissionEngine(PermissionContext()).check_permission(tool, {})
