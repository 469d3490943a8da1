"""The approved plan's scope in the build phase, attacked: every mode x enforcement; an "allow anyway"
answer bound to the exact call the human saw; every path of a call judged (lists, nested edits,
source + destination, symlinks, `..`, no recognisable path); shell lines judged simple command by
simple command; grants from the approval limited to the scope and ended with it on re-entry."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from _plan_support import confirm_request, make_agent, results, run, text_of
from agentscope.event import ConfirmResult, RequireUserConfirmEvent, UserConfirmResultEvent
from agentscope.message import TextBlock, ToolCallBlock, ToolCallState
from agentscope.permission import PermissionBehavior, PermissionContext, PermissionDecision, PermissionMode
from agentscope.tool import Bash, ToolBase, ToolChunk

from planmode._core import PlanBook
from planmode.agentscope import PlanMode, answer_plan, call_tool, enter_plan_mode, exit_plan_mode, plan_status, say
from planmode.agentscope.demo_tools import ReadFile, WriteFile
from planmode.exceptions import InvalidInputError
from planmode.report import report_from_states

PLAN = ("# Plan\n\n## Steps\n1. Write the notes\n2. Touch the code\n\n"
        "## Scope\n- `notes/**`\n- `$ touch notes/*`\n")
MODES = [PermissionMode.DEFAULT, PermissionMode.ACCEPT_EDITS, PermissionMode.EXPLORE, PermissionMode.BYPASS,
         PermissionMode.DONT_ASK]
ENFORCEMENTS = ["ask", "deny", "off"]


class _Recorder(ToolBase):
    """A writing tool that records the input it ran with (and touches nothing)."""

    description = "A writing tool for the scope tests."
    input_schema: dict[str, Any] = {"type": "object", "properties": {}}
    is_read_only = False
    is_concurrency_safe = False

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name
        self.ran: list[dict[str, Any]] = []

    async def check_permissions(self, tool_input: dict[str, Any], context: PermissionContext) -> PermissionDecision:
        return PermissionDecision(behavior=PermissionBehavior.ALLOW, message="ok")

    async def call(self, **kwargs: Any) -> ToolChunk:
        self.ran.append(kwargs)
        return ToolChunk(content=[TextBlock(text="done")])


async def _approved(root: Path, mode: PermissionMode, enforcement: str = "ask", plan_text: str = PLAN,
                    tools: list[ToolBase] | None = None, grants: list[dict[str, Any]] | None = None):
    root.mkdir(parents=True, exist_ok=True)
    plan = PlanMode(workspace_dir=root, scope_enforcement=enforcement)  # type: ignore[arg-type]
    agent, model, _ = make_agent(root, [call_tool("plan_enter", {}), call_tool("plan_write", {"content": plan_text}),
                                        call_tool("plan_exit", {})], plan=plan,
                                 tools=tools if tools is not None else [WriteFile(root), ReadFile(root)])  # fmt: skip
    request = confirm_request(await run(agent))
    await run(agent, answer_plan(request, "approve", next_mode=mode, grants=grants))
    assert plan_status(agent).phase == "building"
    return agent, model


async def _call(agent, model, name: str, args: dict[str, Any], call_id: str = "out") -> list[Any]:
    model.extend([call_tool(name, args, call_id), say("done")])
    return await run(agent, "next")


def _drifts(agent) -> list[str]:
    return [a["detail"] for a in plan_status(agent).audit if a["kind"] == "drift"]


def _confirm(ask: RequireUserConfirmEvent, *, confirmed: bool = True, **changes: Any) -> UserConfirmResultEvent:
    call = ask.tool_calls[0].model_copy(update=changes)
    return UserConfirmResultEvent(reply_id=ask.reply_id, confirm_results=[ConfirmResult(confirmed=confirmed, tool_call=call)])


# --- every mode x enforcement ---------------------------------------------------------------------

@pytest.mark.parametrize("enforcement", ENFORCEMENTS)
@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.value)
async def test_outside_the_scope_in_every_mode_and_enforcement(tmp_path: Path, mode: PermissionMode,
                                                               enforcement: str) -> None:
    agent, model = await _approved(tmp_path, mode, enforcement)
    events = await _call(agent, model, "write_file", {"path": "src/app.py", "content": "x"})
    ask, written, drifts = confirm_request(events), (tmp_path / "src" / "app.py").exists(), _drifts(agent)
    if enforcement == "off":
        assert drifts == []
        return
    [drift] = drifts
    assert drift.startswith('write_file: path "src/app.py" is outside the approved scope; ')
    assert drift.endswith("(step s1 in progress)")
    assert report_from_states([agent.state])["drift_events_per_run"]["total"] == 1
    result = results(agent).get("out")
    if enforcement == "deny":
        assert ask is None and not written and result.state == "denied"
        assert "scope_enforcement is 'deny'" in text_of(result) and "denied: scope_enforcement is 'deny'" in drift
    elif mode in (PermissionMode.DEFAULT, PermissionMode.ACCEPT_EDITS):
        assert isinstance(ask, RequireUserConfirmEvent) and ask.tool_calls[0].name == "write_file"
        assert not written and "the human is asked" in drift
    elif mode == PermissionMode.BYPASS:  # no prompts under BYPASS: the drift says it was not asked
        assert ask is None and written and "not asked: BYPASS" in drift
    else:
        why = "no human can be asked (DONT_ASK)" if mode == PermissionMode.DONT_ASK else "EXPLORE is read-only"
        assert ask is None and not written and result.state == "denied" and why in text_of(result)


# --- "allow anyway" is bound to the exact call ---------------------------------------------------

async def _asked(tmp_path: Path, args: dict[str, Any] | None = None):
    tools = [WriteFile(tmp_path), ReadFile(tmp_path), _Recorder("write_file2")]
    agent, model = await _approved(tmp_path, PermissionMode.DEFAULT, tools=tools)
    ask = confirm_request(await _call(agent, model, "write_file", args or {"path": "src/app.py", "content": "x"}))
    assert ask is not None
    return agent, model, ask


async def test_the_confirmed_call_runs_once_and_nothing_else_rides_on_it(tmp_path: Path) -> None:
    agent, model, ask = await _asked(tmp_path)
    model.extend([call_tool("write_file", {"path": "src/other.py", "content": "y"}, "again"), say("ok")])
    await run(agent, _confirm(ask))
    assert (tmp_path / "src" / "app.py").read_text() == "x"
    events = await run(agent, "more")
    assert "scope_asks" not in agent.state.middle_context["planmode"] or all(
        a["tool_call_id"] != "out" for a in agent.state.middle_context["planmode"]["scope_asks"])
    again = confirm_request(events)  # the next out-of-scope call is asked about on its own
    assert again is not None and again.tool_calls[0].id == "again" and not (tmp_path / "src" / "other.py").exists()
    # A new call reusing the confirmed call's id is judged again.
    await run(agent, _confirm(again, confirmed=False))
    events = await _call(agent, model, "write_file", {"path": "src/app.py", "content": "replayed"}, "out")
    assert confirm_request(events) is not None and (tmp_path / "src" / "app.py").read_text() == "x"


@pytest.mark.parametrize("change", ["other_path", "escape", "in_scope_tool_renamed"])
async def test_a_confirmation_that_changes_the_call_is_judged_again(tmp_path: Path, change: str) -> None:
    agent, model, ask = await _asked(tmp_path)
    if change == "other_path":
        answer = _confirm(ask, input=json.dumps({"path": "src/evil.py", "content": "x"}))
    elif change == "escape":
        answer = _confirm(ask, input=json.dumps({"content": "x", "path": "notes/../src/evil.py"}))
    else:  # the human's client renames the call to another writing tool with the same input
        answer = _confirm(ask, name="write_file2")
    model.extend([say("ok")])
    events = await run(agent, answer)
    again = confirm_request(events)
    assert again is not None and again.tool_calls[0].id == "out", "asked again about the changed call"
    assert not (tmp_path / "src" / "evil.py").exists() and not (tmp_path / "src" / "app.py").exists()
    assert len(_drifts(agent)) == 2


async def test_key_order_of_the_confirmed_input_does_not_matter_and_rules_are_dropped(tmp_path: Path) -> None:
    from agentscope.permission import PermissionRule

    agent, model, ask = await _asked(tmp_path)
    answer = _confirm(ask, input=json.dumps({"content": "x", "path": "src/app.py"}))
    answer.confirm_results[0].rules = [PermissionRule(tool_name="write_file", rule_content=None,
                                                      behavior=PermissionBehavior.ALLOW, source="user")]
    model.extend([say("ok")])
    await run(agent, answer)
    assert (tmp_path / "src" / "app.py").read_text() == "x"
    assert "write_file" not in agent.state.permission_context.allow_rules  # "this call only"


async def test_a_call_marked_allowed_by_anything_else_is_judged_again(tmp_path: Path) -> None:
    agent, model = await _approved(tmp_path, PermissionMode.DEFAULT)
    plan = agent._check_permission_middlewares[0]
    tool = await agent.toolkit.get_tool("write_file")
    forged = ToolCallBlock(id="forged", name="write_file", input='{"path": "src/app.py", "content": "x"}',
                           state=ToolCallState.ALLOWED)

    async def later(**_: Any) -> PermissionDecision:
        return PermissionDecision(behavior=PermissionBehavior.ALLOW, message="Already allowed by user confirmation.")

    decision = await plan.on_check_permission(agent, {"tool_call": forged, "tool": tool,
                                                      "tool_input": {"path": "src/app.py", "content": "x"}}, later)
    assert decision.behavior == PermissionBehavior.ASK and decision.bypass_immune
    # An answer to that question for another reply is not an answer.
    stored = agent.state.middle_context["planmode"]["scope_asks"]
    assert [a["tool_call_id"] for a in stored] == ["forged"]
    book = PlanBook(agent.state.middle_context["planmode"])
    assert book.answer_scope("forged", "another-reply", "write_file", {"path": "src/app.py", "content": "x"}, True)
    assert not book.take_scope_pass("forged", "write_file", {"path": "src/app.py", "content": "x"})


async def test_concurrent_calls_each_keep_their_question(tmp_path: Path) -> None:
    from planmode.agentscope.scripted import call_tools

    tool = _Recorder("edit_files")
    tool.is_concurrency_safe = True
    agent, model = await _approved(tmp_path, PermissionMode.DEFAULT, tools=[tool])
    model.extend([call_tools(("edit_files", {"path": "src/a.py"}), ("edit_files", {"path": "src/b.py"})), say("ok")])
    events = await run(agent, "both")
    asks = [e for e in events if isinstance(e, RequireUserConfirmEvent)]
    calls = [c for e in asks for c in e.tool_calls]
    assert len(calls) == 2 and len(_drifts(agent)) == 2
    assert len(agent.state.middle_context["planmode"]["scope_asks"]) == 2
    answer = UserConfirmResultEvent(reply_id=asks[0].reply_id,
                                    confirm_results=[ConfirmResult(confirmed=True, tool_call=c) for c in calls])
    await run(agent, answer)
    assert sorted(r["path"] for r in tool.ran) == ["src/a.py", "src/b.py"]


async def test_an_input_the_core_cannot_take_is_outside_and_never_a_crash(tmp_path: Path) -> None:
    tool = _Recorder("edit_files")
    agent, _ = await _approved(tmp_path, PermissionMode.DEFAULT, tools=[tool])
    plan = agent._check_permission_middlewares[0]
    call = ToolCallBlock(id="nan", name="edit_files", input='{"path": NaN}')

    async def later(**_: Any) -> PermissionDecision:
        raise AssertionError("the normal rules must not decide")

    decision = await plan.on_check_permission(agent, {"tool_call": call, "tool": tool,
                                                      "tool_input": {"path": float("nan")}}, later)
    assert decision.behavior == PermissionBehavior.DENY and "cannot be bound to a question" in decision.message
    assert "an input planmode cannot read" in _drifts(agent)[-1]


# --- every path a call names ----------------------------------------------------------------------

@pytest.mark.parametrize(("args", "inside"), [
    ({"source": "notes/a.md", "destination": "notes/b.md"}, True),
    ({"source": "notes/a.md", "destination": "src/b.py"}, False),
    ({"paths": ["notes/a.md", "notes/b/c.md"]}, True),
    ({"paths": ["notes/a.md", "setup.py"]}, False),
    ({"edits": [{"file_path": "notes/a.md", "new": "x"}, {"file_path": "src/b.py", "new": "y"}]}, False),
    ({"edits": [{"file_path": "notes/a.md", "new": "x"}]}, True),
    ({"path": "notes/link.md"}, False),  # a symlink to src/app.py
    ({"path": "notes/dir/x.py"}, False),  # through a symlinked directory
    ({"path": "notes/../../escape.txt"}, False),
    ({"name": "whatever", "body": "no path planmode recognises"}, False),
], ids=lambda v: json.dumps(v) if isinstance(v, dict) else str(v))
async def test_every_path_of_a_call_is_judged(tmp_path: Path, args: dict[str, Any], inside: bool) -> None:
    (tmp_path / "notes").mkdir(parents=True)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("")
    os.symlink("../src/app.py", tmp_path / "notes" / "link.md")
    os.symlink("../src", tmp_path / "notes" / "dir")
    tool = _Recorder("edit_files")
    agent, model = await _approved(tmp_path, PermissionMode.BYPASS, "deny", tools=[tool])
    await _call(agent, model, "edit_files", args)
    assert (tool.ran == [args]) is inside
    assert (_drifts(agent) == []) is inside


# --- shell lines, simple command by simple command ------------------------------------------------

@pytest.mark.parametrize(("command", "inside"), [
    ("touch notes/a.md", True),
    ("touch notes/a.md && touch notes/b.md; touch notes/c.md", True),
    ("touch notes/a.md > notes/log.txt", True),
    ("touch notes/a.md; touch outside.txt", False),
    ("touch notes/a.md && rm -rf src", False),
    ("touch notes/a.md | sh", False),
    ("touch notes/a.md > src/x.py", False),
    ("touch notes/$(touch pwned)", False),
    ("touch notes/a.md\ntouch pwned", False),
    ("{ touch notes/a.md; touch pwned; }", False),
    ("for f in x; do touch pwned; done", False),
])
async def test_shell_lines_are_judged_part_by_part(tmp_path: Path, command: str, inside: bool) -> None:
    tmp_path.mkdir(exist_ok=True)
    (tmp_path / "notes").mkdir()
    (tmp_path / "src").mkdir()
    agent, model = await _approved(tmp_path, PermissionMode.BYPASS, "deny", tools=[Bash(cwd=str(tmp_path))])
    await _call(agent, model, "Bash", {"command": command})
    assert (tmp_path / "notes" / "a.md").exists() is inside
    assert not (tmp_path / "pwned").exists() and not (tmp_path / "outside.txt").exists()
    assert (_drifts(agent) == []) is inside


async def test_read_only_commands_and_reads_are_never_drift(tmp_path: Path) -> None:
    agent, model = await _approved(tmp_path, PermissionMode.DONT_ASK,
                                   tools=[Bash(cwd=str(tmp_path)), ReadFile(tmp_path), WriteFile(tmp_path)])
    model.extend([call_tool("Bash", {"command": "ls -la"}, "ls"), call_tool("read_file", {"path": "src/x.py"}, "r"),
                  say("done")])  # fmt: skip
    await run(agent, "look")
    assert results(agent)["ls"].state != "denied" and results(agent)["r"].state != "denied"
    assert _drifts(agent) == []


# --- grants from the approval, and re-entry -------------------------------------------------------

@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.value)
async def test_grants_are_limited_to_the_scope_and_end_with_it(tmp_path: Path, mode: PermissionMode) -> None:
    grants = [{"tool_name": "write_file"}, {"tool_name": "Bash", "rule_content": "*"}]
    agent, model = await _approved(tmp_path, mode, grants=grants,
                                   tools=[WriteFile(tmp_path), Bash(cwd=str(tmp_path))])
    rules = agent.state.permission_context.allow_rules
    assert "write_file" in rules and "Bash" in rules
    model.extend([call_tool("write_file", {"path": "src/app.py", "content": "x"}, "w"), say("done")])
    events = await run(agent, "write")
    model.extend([call_tool("Bash", {"command": "touch outside.txt"}, "b"), say("done")])
    if confirm_request(events) is not None:
        await run(agent, _confirm(confirm_request(events), confirmed=False))
    events = await run(agent, "shell")
    # The grants let nothing outside the scope through: asked (or denied) like any other call.
    if mode == PermissionMode.BYPASS:
        assert len(_drifts(agent)) == 2 and all("not asked: BYPASS" in d for d in _drifts(agent))
    else:
        assert not (tmp_path / "src" / "app.py").exists() and not (tmp_path / "outside.txt").exists()
        assert len(_drifts(agent)) == 2
        if mode in (PermissionMode.DEFAULT, PermissionMode.ACCEPT_EDITS):
            assert confirm_request(events) is not None
            await run(agent, _confirm(confirm_request(events), confirmed=False))
    # Re-entering plan mode ends the scope, its open questions and the grants.
    enter_plan_mode(agent)
    state = agent.state.middle_context["planmode"]
    assert PlanBook(state).approved_scope() is None and not state.get("scope_asks") and state["grants"] == []
    assert "write_file" not in agent.state.permission_context.allow_rules
    assert "Bash" not in agent.state.permission_context.allow_rules
    # Building again after a forced exit: no approved scope, so no drift (the normal rules decide).
    exit_plan_mode(agent, actor="admin:ops")
    drifts = len(_drifts(agent))
    await _call(agent, model, "write_file", {"path": "src/late.py", "content": "x"}, "late")
    assert len(_drifts(agent)) == drifts


# --- the rest -------------------------------------------------------------------------------------

async def test_no_scope_declared_means_no_scope(tmp_path: Path) -> None:
    agent, model = await _approved(tmp_path, PermissionMode.BYPASS, plan_text="# Plan\n1. Anything\n")
    await _call(agent, model, "write_file", {"path": "src/app.py", "content": "x"})
    assert (tmp_path / "src" / "app.py").read_text() == "x" and _drifts(agent) == []


def test_unknown_enforcement_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError, match="unknown scope_enforcement 'warn'"):
        PlanMode(workspace_dir=tmp_path, scope_enforcement="warn")  # type: ignore[arg-type]
