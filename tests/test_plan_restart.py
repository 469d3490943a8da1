"""Restart mid-plan and mid-approval through model_dump_json(): a new Agent resumes in the
same phase with the same plan file, revisions, pending approval and todos."""

from __future__ import annotations

import json
from pathlib import Path

from _plan_support import PLAN, confirm_request, hints, make_agent, results, run, text_of
from agentscope.state import AgentState

from planmode.agentscope import PlanMode, answer_plan, call_tool, plan_status, say


def reload(agent) -> AgentState:  # type: ignore[no-untyped-def]
    dumped = agent.state.model_dump_json()
    json.loads(dumped)  # plain JSON all the way down
    return AgentState.model_validate_json(dumped)


async def test_restart_mid_plan(tmp_path: Path) -> None:
    agent, _, _ = make_agent(tmp_path, [
        call_tool("plan_enter", {}), call_tool("plan_write", {"content": PLAN}),
        call_tool("todo_write", {"todos": [{"content": "investigate", "status": "in_progress"}]}),
        say("paused"),
    ])
    await run(agent)
    before = plan_status(agent)
    state = reload(agent)

    # a new process: new PlanMode, new Agent, same workspace
    agent2, model2, _ = make_agent(tmp_path, [
        call_tool("write_file", {"path": "x.py", "content": "x"}, "w1"),
        call_tool("plan_exit", {}, "x1"),
    ], plan=PlanMode(workspace_dir=tmp_path), state=state)
    after = plan_status(agent2)
    assert (after.phase, after.revision, after.sha256, after.plan_path, after.todos) == \
           (before.phase, before.revision, before.sha256, before.plan_path, before.todos)
    assert after.plan_path == str(tmp_path / "plans" / "PLAN.md")
    events = await run(agent2, "continue")
    assert results(agent2)["w1"].state == "denied"
    assert confirm_request(events) is not None
    assert "PLAN MODE is active" in hints(model2)


async def test_restart_mid_approval_then_approve(tmp_path: Path) -> None:
    agent, _, _ = make_agent(tmp_path, [
        call_tool("plan_enter", {}), call_tool("plan_write", {"content": PLAN}), call_tool("plan_exit", {}, "x1"),
    ])
    request = confirm_request(await run(agent))
    assert request is not None
    state = reload(agent)
    agent2, model2, _ = make_agent(tmp_path, [call_tool("write_file", {"path": "a.py", "content": "ok"}, "w1"),
                                              say("done")], plan=PlanMode(workspace_dir=tmp_path), state=state)
    status = plan_status(agent2)
    assert status.awaiting_approval and status.pending["tool_call_id"] == "x1"
    # the admin API path: answer from the stored state, no event object needed
    await run(agent2, answer_plan(agent2.state, "approve", revision=1))
    assert plan_status(agent2).phase == "building"
    assert (tmp_path / "a.py").read_text() == "ok"
    assert "Plan approved" in text_of(results(agent2)["x1"])


async def test_missing_plan_file_is_restored_from_state(tmp_path: Path) -> None:
    agent, _, _ = make_agent(tmp_path, [
        call_tool("plan_enter", {}), call_tool("plan_write", {"content": PLAN}), call_tool("plan_exit", {}),
    ])
    request = confirm_request(await run(agent))
    state = reload(agent)
    machine_b = tmp_path / "machine-b"
    machine_b.mkdir()
    agent2, model2, _ = make_agent(machine_b, [say("ok")], plan=PlanMode(workspace_dir=machine_b), state=state)
    await run(agent2, answer_plan(request, "approve"))
    assert (machine_b / "plans" / "PLAN.md").read_text() == PLAN
    assert plan_status(agent2).plan_path == str(machine_b / "plans" / "PLAN.md")
    status = plan_status(agent2)
    assert status.phase == "building" and status.approved_revision == 1
    assert "restored" in [a["kind"] for a in status.audit]


async def test_corrupt_state_is_a_clear_error(tmp_path: Path) -> None:
    import pytest

    from planmode.agentscope import is_plan_mode_active
    from planmode.exceptions import StateLoadError

    state = AgentState()
    state.middle_context["planmode"] = {"version": 1, "phase": "awaiting_approval"}
    with pytest.raises(StateLoadError, match="plan-mode state"):
        is_plan_mode_active(state)


_PROCESS_A = """
import asyncio, sys
sys.path.insert(0, {tests!r})
from pathlib import Path
from planmode.agentscope import call_tool
from _plan_support import PLAN, confirm_request, make_agent, run
async def main():
    agent, _, _ = make_agent(Path({ws!r}), [call_tool("plan_enter", {{}}, "a-e1"), call_tool("plan_write", {{"content": PLAN}}, "a-p1"),
                                            call_tool("plan_exit", {{"summary": "ship"}}, "x1")])
    assert confirm_request(await run(agent)) is not None
    Path({out!r}).write_text(agent.state.model_dump_json())
asyncio.run(main())
"""

_PROCESS_B = """
import asyncio, sys
sys.path.insert(0, {tests!r})
from pathlib import Path
from agentscope.state import AgentState
from planmode.agentscope import answer_plan, call_tool, plan_status, say
from _plan_support import make_agent, run
async def main():
    state = AgentState.model_validate_json(Path({out!r}).read_text())
    agent, _, _ = make_agent(Path({ws!r}), [call_tool("write_file", {{"path": "done.txt", "content": "built"}}, "b-w1"), say("ok")],
                             state=state)
    assert plan_status(agent).awaiting_approval
    await run(agent, answer_plan(agent, "approve", revision=1, actor="admin:ops"))
    status = plan_status(agent)
    print(status.outcome, status.exited_by, Path({ws!r}, "done.txt").read_text())
asyncio.run(main())
"""


def test_restart_mid_approval_in_another_process(tmp_path: Path) -> None:
    import subprocess
    import sys

    tests = str(Path(__file__).resolve().parent)
    out = str(tmp_path / "state.json")
    ws_a, ws_b = tmp_path / "a", tmp_path / "b"
    ws_a.mkdir(), ws_b.mkdir()
    subprocess.run([sys.executable, "-c", _PROCESS_A.format(tests=tests, ws=str(ws_a), out=out)], check=True,
                   timeout=120)
    done = subprocess.run([sys.executable, "-c", _PROCESS_B.format(tests=tests, ws=str(ws_b), out=out)],
                          check=True, capture_output=True, text=True, timeout=120)
    assert done.stdout.split() == ["exited_with_plan", "admin:ops", "built"]
    assert (ws_b / "plans" / "PLAN.md").read_text() == PLAN  # restored on the second machine
