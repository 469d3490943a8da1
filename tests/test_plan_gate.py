"""The gate: while planning, only plan tools, todo_write, Task tools, extra tools and
read-only calls pass, under EVERY permission mode and whatever the allow rules say."""

from __future__ import annotations

from pathlib import Path

import pytest
from _plan_support import PLAN, ReadFile, WriteFile, make_agent, results, run, text_of
from agentscope.permission import PermissionBehavior, PermissionMode, PermissionRule
from agentscope.tool import Bash, Edit, Write

from planmode.agentscope import PlanMode, call_tool, call_tools, enter_plan_mode, plan_status, say
from planmode.agentscope._plan._texts import DENIED

ALL_MODES = list(PermissionMode)
NOTES = "original notes\n"


def _workspace(tmp_path: Path) -> Path:
    (tmp_path / "notes.txt").write_text(NOTES)
    return tmp_path


def _snapshot(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): p.read_text(errors="replace") for p in sorted(root.rglob("*"))
            if p.is_file() and "plans" not in p.parts}


def _allow_everything(agent, names: list[str]) -> None:  # type: ignore[no-untyped-def]
    rules = agent.state.permission_context.allow_rules
    for name in names:
        rules[name] = [PermissionRule(tool_name=name, rule_content=None, behavior=PermissionBehavior.ALLOW,
                                      source="user")]


def _tools(root: Path) -> list:  # type: ignore[type-arg]
    return [WriteFile(root), ReadFile(root), Write(), Edit(), Bash(cwd=str(root))]


@pytest.mark.parametrize("mode", ALL_MODES, ids=[m.value for m in ALL_MODES])
async def test_writes_denied_reads_allowed_in_every_mode(tmp_path: Path, mode: PermissionMode) -> None:
    root = _workspace(tmp_path)
    plan = PlanMode(workspace_dir=root, allow_shell_in_plan_mode=True)
    agent, _, _ = make_agent(root, [
        call_tool("plan_enter", {}),
        call_tools(
            ("write_file", {"path": "new.txt", "content": "x"}),
            ("Write", {"file_path": str(root / "w.txt"), "content": "x"}),
            ("Edit", {"file_path": str(root / "notes.txt"), "old_string": "original", "new_string": "hacked"}),
            ("Bash", {"command": "rm notes.txt"}),
            ("Bash", {"command": "echo hacked > notes.txt"}),
        ),
        call_tools(
            ("read_file", {"path": "notes.txt"}),
            ("Bash", {"command": "cat notes.txt"}),
            ("TaskCreate", {"subject": "Investigate", "description": "read the code"}),
            ("todo_write", {"todos": [{"content": "investigate", "status": "in_progress"}]}),
            ("plan_write", {"content": PLAN}),
        ),
        say("planned"),
    ], plan=plan, tools=_tools(root), mode=mode)
    _allow_everything(agent, ["write_file", "Write", "Edit", "Bash"])
    before = _snapshot(root)
    await run(agent)
    res = list(results(agent).values())
    denied = [r for r in res if r.state == "denied"]
    assert sorted(r.name for r in denied) == ["Bash", "Bash", "Edit", "Write", "write_file"], \
        [(r.name, r.state, text_of(r)) for r in res]
    assert all(text_of(r) == DENIED for r in denied)
    assert _snapshot(root) == before
    ok = {r.name: r for r in res if r.state == "success"}
    assert set(ok) >= {"read_file", "Bash", "TaskCreate", "todo_write", "plan_write", "plan_enter"}
    assert NOTES in text_of(ok["Bash"])
    assert agent.state.tasks_context.tasks[0].subject == "Investigate"


async def test_shell_is_denied_entirely_unless_allowed(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    agent, _, _ = make_agent(root, [call_tool("plan_enter", {}), call_tool("Bash", {"command": "ls"}, "b1"),
                                    say("ok")], tools=_tools(root))
    await run(agent)
    assert results(agent)["b1"].state == "denied"


async def test_same_batch_enter_then_write_is_denied(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    agent, _, _ = make_agent(root, [
        call_tools(("plan_enter", {}), ("write_file", {"path": "x.txt", "content": "x"})), say("ok")])
    await run(agent)
    assert [r.state for r in results(agent).values()] == ["success", "denied"]
    assert not (root / "x.txt").exists()


async def test_extra_allowed_tools_and_unknown_tools(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    plan = PlanMode(workspace_dir=root, extra_allowed_tools=["write_file"])
    agent, _, _ = make_agent(root, [call_tool("plan_enter", {}), call_tool("write_file", {"path": "ok.txt", "content": "1"}, "w"),
                                    call_tool("Edit", {"file_path": str(root / "notes.txt"), "old_string": "o",
                                                       "new_string": "x"}, "e"),
                                    say("ok")], plan=plan, tools=[WriteFile(root), Edit()],
                             mode=PermissionMode.BYPASS)
    await run(agent)
    assert results(agent)["w"].state == "success" and (root / "ok.txt").exists()
    assert results(agent)["e"].state == "denied"


async def test_build_phase_is_not_restricted(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    agent, _, _ = make_agent(root, [call_tool("write_file", {"path": "x.txt", "content": "x"}, "w"), say("ok")],
                             mode=PermissionMode.BYPASS)
    await run(agent)
    assert results(agent)["w"].state == "success"
    assert plan_status(agent).outcome == "never_entered"
    assert "planmode" not in agent.state.middle_context and not (root / "plans").exists()


async def test_middleware_must_be_first(tmp_path: Path) -> None:
    from agentscope.agent import Agent
    from agentscope.middleware import MiddlewareBase
    from agentscope.tool import Toolkit

    from planmode.agentscope import ScriptedChatModel
    from planmode.exceptions import PlanModeError

    class Other(MiddlewareBase):
        async def on_check_permission(self, agent, input_kwargs, next_handler):  # type: ignore[no-untyped-def]
            return await next_handler(**input_kwargs)

    plan = PlanMode(workspace_dir=tmp_path)
    agent = Agent(name="dev", system_prompt="s", model=ScriptedChatModel([say("hi")]),
                  toolkit=Toolkit(tools=plan.tools()), middlewares=[Other(), plan.middleware()])
    with pytest.raises(PlanModeError, match="FIRST"):
        await run(agent)
    bare = Agent(name="bare", system_prompt="s", model=ScriptedChatModel([]), toolkit=Toolkit(tools=plan.tools()))
    from planmode.exceptions import PlanStateError
    with pytest.raises(PlanStateError, match="no plan-mode middleware"):
        enter_plan_mode(bare)


async def test_agentscope_context_compression_still_works_while_planning(tmp_path: Path) -> None:
    from agentscope.agent import ContextConfig

    agent, _, _ = make_agent(tmp_path, [call_tool("plan_enter", {}), call_tool("CompressContext", {}, "cc"), say("ok")])
    agent.context_config = ContextConfig(compression_tool_enabled=True)
    await run(agent)
    assert results(agent)["cc"].state == "success"


@pytest.mark.parametrize("mode", ALL_MODES, ids=[m.value for m in ALL_MODES])
async def test_with_planmodes_permission_middleware_second(tmp_path: Path, mode: PermissionMode) -> None:
    from _plan_support import confirm_request
    from agentscope.agent import Agent
    from agentscope.tool import Toolkit

    from planmode.agentscope import PermissionMiddleware, ScriptedChatModel

    root = _workspace(tmp_path)
    plan = PlanMode(workspace_dir=root)
    model = ScriptedChatModel([call_tool("plan_enter", {}), call_tool("write_file", {"path": "x", "content": "1"}, "w"),
                               call_tool("read_file", {"path": "notes.txt"}, "r"),
                               call_tool("plan_write", {"content": PLAN}, "p"), call_tool("plan_exit", {}, "x"),
                               say("ok")])
    agent = Agent(name="dev", system_prompt="s", model=model,
                  toolkit=Toolkit(tools=[WriteFile(root), ReadFile(root), *plan.tools()]),
                  middlewares=[plan.middleware(), PermissionMiddleware()])
    agent.state.permission_context.mode = mode
    _allow_everything(agent, ["write_file"])
    events = await run(agent)
    res = results(agent)
    assert res["w"].state == "denied" and text_of(res["w"]) == DENIED and not (root / "x").exists()
    assert res["r"].state == "success" and res["p"].state == "success"
    if mode == PermissionMode.DONT_ASK:
        assert confirm_request(events) is None and res["x"].state == "denied"
    else:
        assert confirm_request(events) is not None and plan_status(agent).awaiting_approval
