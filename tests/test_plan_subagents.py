"""Sub-agents attached with PlanMode.attach_child: read-only while the parent plans
(enforce / ceiling / off), no plan tools unless asked, their own plan path."""

from __future__ import annotations

from pathlib import Path

import pytest
from _plan_support import PLAN, ReadFile, WriteFile, hints, make_agent, results, run, text_of
from agentscope.agent import Agent
from agentscope.permission import PermissionMode
from agentscope.tool import Toolkit

from planmode.agentscope import (
    PlanMode,
    ScriptedChatModel,
    call_tool,
    enter_plan_mode,
    exit_plan_mode,
    plan_status,
    say,
)
from planmode.agentscope._plan._texts import DENIED, PARENT_UNKNOWN
from planmode.exceptions import InvalidInputError


def _child(root: Path, plan: PlanMode, script: list, mode: PermissionMode = PermissionMode.DEFAULT) -> tuple[Agent, ScriptedChatModel]:  # type: ignore[type-arg]
    model = ScriptedChatModel(script)
    child = Agent(name="worker", system_prompt="You help.", model=model,
                  toolkit=Toolkit(tools=[WriteFile(root), ReadFile(root), *plan.tools()]))
    child.state.permission_context.mode = mode
    return child, model


async def test_enforce_child_is_read_only_while_parent_plans(tmp_path: Path) -> None:
    parent, _, plan = make_agent(tmp_path, [])
    enter_plan_mode(parent)
    child, model = _child(tmp_path, plan, [
        call_tool("write_file", {"path": "c.txt", "content": "x"}, "w"),
        call_tool("read_file", {"path": "c.txt"}, "r"),
        call_tool("TaskCreate", {"subject": "look", "description": "around"}, "t"),
        call_tool("plan_enter", {}, "e"),
        say("reported"),
    ], mode=PermissionMode.BYPASS)
    plan.attach_child(child, parent=parent)
    await run(child)
    res = results(child)
    assert res["w"].state == "denied" and text_of(res["w"]) == DENIED
    assert not (tmp_path / "c.txt").exists()
    assert res["r"].state == "success" and res["t"].state == "success"
    assert res["e"].state == "denied" and "not available to sub-agents" in text_of(res["e"])
    assert "Your parent agent is in PLAN mode" in hints(model)

    exit_plan_mode(parent, actor="user")
    model.extend([call_tool("write_file", {"path": "c.txt", "content": "now"}, "w2"), say("done")])
    await run(child, "go on")
    assert results(child)["w2"].state == "success" and (tmp_path / "c.txt").read_text() == "now"


@pytest.mark.parametrize("policy", ["enforce", "ceiling"])
async def test_ceiling_keeps_the_childs_own_rules(tmp_path: Path, policy: str) -> None:
    from agentscope.permission import PermissionBehavior, PermissionRule

    parent, _, plan = make_agent(tmp_path, [])
    enter_plan_mode(parent)
    child, _ = _child(tmp_path, plan, [
        call_tool("write_file", {"path": "c.txt", "content": "x"}, "w"),
        call_tool("TaskCreate", {"subject": "look", "description": "around"}, "t"),
        say("ok"),
    ], mode=PermissionMode.BYPASS)
    child.state.permission_context.deny_rules["TaskCreate"] = [
        PermissionRule(tool_name="TaskCreate", rule_content=None, behavior=PermissionBehavior.DENY, source="user")]
    plan.attach_child(child, parent=parent, policy=policy)  # type: ignore[arg-type]
    await run(child)
    res = results(child)
    assert res["w"].state == "denied" and text_of(res["w"]) == DENIED
    if policy == "ceiling":  # the child's own deny rule still applies
        assert res["t"].state == "denied" and text_of(res["t"]) != DENIED
    else:  # enforce: the child plans like its parent, Task tools included
        assert res["t"].state == "success"


async def test_off_does_not_restrict(tmp_path: Path) -> None:
    parent, _, plan = make_agent(tmp_path, [])
    enter_plan_mode(parent)
    child, _ = _child(tmp_path, plan, [call_tool("write_file", {"path": "c.txt", "content": "x"}, "w"), say("ok")],
                      mode=PermissionMode.BYPASS)
    plan.attach_child(child, parent=parent, policy="off")
    await run(child)
    assert results(child)["w"].state == "success"


async def test_child_with_plan_tools_gets_its_own_plan_file(tmp_path: Path) -> None:
    parent, pmodel, plan = make_agent(tmp_path, [call_tool("plan_enter", {}), call_tool("plan_write", {"content": "# parent"}),
                                                 say("ok")])
    await run(parent)  # parent binds plans/PLAN.md and becomes the default parent
    child, _ = _child(tmp_path, plan, [call_tool("plan_enter", {}, "e"), call_tool("plan_write", {"content": PLAN}, "p"),
                                       call_tool("write_file", {"path": "c.txt", "content": "x"}, "w"), say("ok")],
                      mode=PermissionMode.BYPASS)
    plan.attach_child(child, plan_tools=True)
    await run(child)
    child_path = plan_status(child).plan_relpath
    assert child_path is not None and child_path.startswith("plans/worker-")
    assert (tmp_path / child_path).read_text() == PLAN
    assert (tmp_path / "plans" / "PLAN.md").read_text() == "# parent"
    assert results(child)["w"].state == "denied"


async def test_unknown_parent_fails_closed(tmp_path: Path) -> None:
    plan = PlanMode(workspace_dir=tmp_path)
    child, _ = _child(tmp_path, plan, [call_tool("write_file", {"path": "c.txt", "content": "x"}, "w"),
                                       call_tool("read_file", {"path": "c.txt"}, "r"), say("ok")],
                      mode=PermissionMode.BYPASS)
    plan.attach_child(child)
    await run(child)
    assert text_of(results(child)["w"]) == PARENT_UNKNOWN and results(child)["r"].state == "success"


def test_attach_child_validation(tmp_path: Path) -> None:
    plan = PlanMode(workspace_dir=tmp_path)
    child, _ = _child(tmp_path, plan, [])
    with pytest.raises(InvalidInputError, match="unknown policy"):
        plan.attach_child(child, policy="maybe")  # type: ignore[arg-type]
    plan.attach_child(child)
    with pytest.raises(InvalidInputError, match="already has a plan-mode middleware"):
        plan.attach_child(child)
    with pytest.raises(InvalidInputError, match="expects an agentscope Agent"):
        plan.attach_child(object())  # type: ignore[arg-type]


async def test_child_shell_is_sandboxed_only_while_the_parent_plans(tmp_path: Path) -> None:
    """With ``sandbox_unclassified`` a child's refused command runs in the sandbox while its parent
    plans (its write is blocked), and unsandboxed once the parent builds (the write happens)."""
    from agentscope.tool import Bash

    from planmode._core import sandbox_support

    assert sandbox_support()[0] is not None, "Landlock must be available on this machine"
    project = tmp_path / "project"
    project.mkdir()
    plan = PlanMode(workspace_dir=tmp_path, sandbox_unclassified=True)
    parent = Agent(name="lead", system_prompt="You plan.", model=ScriptedChatModel([]),
                   toolkit=Toolkit(tools=plan.tools()), middlewares=[plan.middleware()])
    enter_plan_mode(parent)
    write = "echo hi > made.txt; cat made.txt"
    model = ScriptedChatModel([call_tool("Bash", {"command": write}, "b1"), say("tried")])
    child = Agent(name="worker", system_prompt="You help.", model=model,
                  toolkit=Toolkit(tools=[Bash(cwd=str(project))]))
    child.state.permission_context.mode = PermissionMode.BYPASS
    plan.attach_child(child, parent=parent)
    await run(child)
    assert not (project / "made.txt").exists()
    assert "[planmode sandbox]" in text_of(results(child)["b1"])

    exit_plan_mode(parent, actor="user")
    model.extend([call_tool("Bash", {"command": write}, "b2"), say("done")])
    await run(child, "go on")
    assert (project / "made.txt").read_text() == "hi\n"
    assert "[planmode sandbox]" not in text_of(results(child)["b2"])
