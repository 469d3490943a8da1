"""The approved plan's scope in the build phase: a write outside it asks the human (denied under
DONT_ASK or scope_enforcement="deny") and is recorded as drift; inside it the normal rules apply."""

from __future__ import annotations

from pathlib import Path

import pytest
from _plan_support import confirm_request, make_agent, results, run, text_of
from agentscope.event import ConfirmResult, RequireUserConfirmEvent, UserConfirmResultEvent
from agentscope.permission import PermissionMode

from planmode.agentscope import PlanMode, answer_plan, call_tool, enter_plan_mode, plan_status, say
from planmode.exceptions import InvalidInputError
from planmode.report import report_from_states

PLAN = ("# Plan\n\n## Steps\n1. Write the notes\n2. Touch the code\n\n"
        "## Scope\n- `notes/*.md`\n- `$ make docs`\n")
MODES = [PermissionMode.DEFAULT, PermissionMode.ACCEPT_EDITS, PermissionMode.EXPLORE, PermissionMode.BYPASS,
         PermissionMode.DONT_ASK]


async def _approved(tmp_path: Path, mode: PermissionMode, enforcement: str = "ask", plan_text: str = PLAN):
    tmp_path.mkdir(parents=True, exist_ok=True)
    plan = PlanMode(workspace_dir=tmp_path, scope_enforcement=enforcement)  # type: ignore[arg-type]
    agent, model, _ = make_agent(tmp_path, [call_tool("plan_enter", {}), call_tool("plan_write", {"content": plan_text}),
                                            call_tool("plan_exit", {})], plan=plan)  # fmt: skip
    request = confirm_request(await run(agent))
    model.extend([call_tool("write_file", {"path": "src/app.py", "content": "x"}, "out"), say("done")])
    events = await run(agent, answer_plan(request, "approve", next_mode=mode))
    return agent, model, events


def _drifts(agent) -> list[dict]:
    return [a for a in plan_status(agent).audit if a["kind"] == "drift"]


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.value)
async def test_a_write_outside_the_scope_asks_and_is_drift(tmp_path: Path, mode: PermissionMode) -> None:
    agent, _, events = await _approved(tmp_path, mode)
    ask = confirm_request(events)
    [drift] = _drifts(agent)
    assert drift["detail"] == "write_file: path 'src/app.py' is outside the approved scope (step s1 in progress)"
    assert not (tmp_path / "src" / "app.py").exists()
    assert report_from_states([agent.state])["drift_events_per_run"]["total"] == 1
    if mode == PermissionMode.DONT_ASK:
        assert ask is None
        res = results(agent)["out"]
        assert res.state == "denied" and "no human can be asked (DONT_ASK)" in text_of(res)
    else:
        assert isinstance(ask, RequireUserConfirmEvent) and ask.tool_calls[0].name == "write_file"


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.value)
async def test_deny_refuses_in_every_mode_and_off_leaves_the_normal_rules(tmp_path: Path, mode: PermissionMode) -> None:
    agent, _, events = await _approved(tmp_path / "deny", mode, "deny")
    assert confirm_request(events) is None
    assert "scope_enforcement is 'deny'" in text_of(results(agent)["out"]) and len(_drifts(agent)) == 1
    agent, _, events = await _approved(tmp_path / "off", mode, "off")
    assert _drifts(agent) == []
    if mode == PermissionMode.BYPASS:
        assert (tmp_path / "off" / "src" / "app.py").read_text() == "x"


async def test_confirmed_drift_runs_and_inside_the_scope_is_not_drift(tmp_path: Path) -> None:
    agent, model, events = await _approved(tmp_path, PermissionMode.BYPASS)
    ask = confirm_request(events)
    assert ask is not None
    model.extend([call_tool("write_file", {"path": "notes/a.md", "content": "n"}, "in"),
                  call_tool("write_file", {"path": "notes/../src/b.py", "content": "n"}, "sneaky"), say("ok")])
    await run(agent, UserConfirmResultEvent(reply_id=ask.reply_id,
                                            confirm_results=[ConfirmResult(confirmed=True, tool_call=ask.tool_calls[0])]))
    assert (tmp_path / "src" / "app.py").read_text() == "x"
    sneaky = confirm_request(await run(agent, "more"))
    assert (tmp_path / "notes" / "a.md").read_text() == "n"
    assert sneaky is not None and not (tmp_path / "src" / "b.py").exists()  # `..` is normalised first
    assert [d["detail"].split(" is ")[0] for d in _drifts(agent)] == [
        "write_file: path 'src/app.py'", "write_file: path 'src/b.py'"]


async def test_no_scope_declared_or_plan_mode_reentered_means_no_scope(tmp_path: Path) -> None:
    agent, _, events = await _approved(tmp_path / "none", PermissionMode.BYPASS, plan_text="# Plan\n1. Anything\n")
    assert confirm_request(events) is None and _drifts(agent) == []
    agent, model, _ = await _approved(tmp_path / "again", PermissionMode.BYPASS)
    enter_plan_mode(agent)
    from planmode._core import PlanBook

    assert PlanBook(agent.state.middle_context["planmode"]).approved_scope() is None


def test_unknown_enforcement_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError, match="unknown scope_enforcement 'warn'"):
        PlanMode(workspace_dir=tmp_path, scope_enforcement="warn")  # type: ignore[arg-type]


@pytest.mark.parametrize("mode", [PermissionMode.BYPASS, PermissionMode.DONT_ASK], ids=lambda m: m.value)
async def test_shell_commands_are_held_to_the_command_patterns(tmp_path: Path, mode: PermissionMode) -> None:
    from agentscope.tool import Bash

    plan_text = PLAN.replace("`$ make docs`", "`$ touch notes/*`")
    plan = PlanMode(workspace_dir=tmp_path)
    agent, model, _ = make_agent(tmp_path, [call_tool("plan_enter", {}), call_tool("plan_write", {"content": plan_text}),
                                            call_tool("plan_exit", {})], plan=plan, tools=[Bash(cwd=str(tmp_path))])  # fmt: skip
    request = confirm_request(await run(agent))
    (tmp_path / "notes").mkdir()
    model.extend([call_tool("Bash", {"command": "touch notes/in.md"}, "in"),
                  call_tool("Bash", {"command": "ls notes"}, "read"),
                  call_tool("Bash", {"command": "touch notes/x.md; touch outside.txt"}, "chained"), say("done")])
    events = await run(agent, answer_plan(request, "approve", next_mode=mode))
    assert (tmp_path / "notes" / "in.md").exists() and results(agent)["read"].state != "denied"
    assert not (tmp_path / "outside.txt").exists()
    [drift] = _drifts(agent)
    assert drift["detail"].startswith("Bash: command 'touch notes/x.md; touch outside.txt' is outside")
    if mode == PermissionMode.DONT_ASK:
        assert results(agent)["chained"].state == "denied"
    else:
        assert confirm_request(events) is not None
