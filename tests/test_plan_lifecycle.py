"""The whole plan -> approve -> build lifecycle with a real Agent and a scripted model."""

from __future__ import annotations

from pathlib import Path

from _plan_support import PLAN, confirm_request, hints, make_agent, results, run, text_of
from agentscope.permission import PermissionMode

from planmode.agentscope import (
    answer_plan,
    call_tool,
    is_plan_mode_active,
    plan_status,
    say,
)
from planmode.agentscope._plan._texts import DENIED


async def test_whole_lifecycle(tmp_path: Path) -> None:
    agent, model, plan = make_agent(tmp_path, [
        call_tool("plan_enter", {}, "e1"),
        call_tool("write_file", {"path": "app.py", "content": "x"}, "w1"),
        call_tool("read_file", {"path": "app.py"}, "r1"),
        call_tool("plan_write", {"content": PLAN}, "p1"),
        call_tool("plan_exit", {"summary": "fix the check"}, "x1"),
    ])
    assert plan_status(agent).outcome == "never_entered"
    events = await run(agent, "fix the bug")
    res = results(agent)
    assert "Entered PLAN mode" in text_of(res["e1"])
    assert res["w1"].state == "denied" and text_of(res["w1"]) == DENIED
    assert not (tmp_path / "app.py").exists()
    assert res["r1"].state == "success"
    assert "revision 1" in text_of(res["p1"])
    plan_file = tmp_path / "plans" / "PLAN.md"
    assert plan_file.read_text() == PLAN
    assert "PLAN MODE is active" in hints(model) and str(plan_file) in hints(model)

    request = confirm_request(events)
    assert request is not None and request.tool_calls[0].name == "plan_exit"
    status = plan_status(agent)
    assert status.awaiting_approval and status.pending["revision"] == 1
    assert status.pending["summary"] == "fix the check"

    model.extend([
        call_tool("todo_write", {"todos": [{"content": "Read the code", "status": "completed"},
                                           {"content": "Change the check", "status": "in_progress"},
                                           {"content": "Run the tests", "status": "pending"}]}, "t1"),
        call_tool("write_file", {"path": "app.py", "content": "fixed"}, "w2"),
        say("done"),
    ])
    await run(agent, answer_plan(request, "approve", feedback="Go ahead."))
    res = results(agent)
    assert res["x1"].state == "success"
    assert "Plan approved (revision 1" in text_of(res["x1"]) and "Go ahead." in text_of(res["x1"])
    assert (tmp_path / "app.py").read_text() == "fixed"
    assert "BUILD mode" in hints(model) and "[~] Change the check" in hints(model)
    status = plan_status(agent)
    assert status.outcome == "exited_with_plan" and status.phase == "building"
    assert status.approved_revision == 1 and status.exited_by == "user"
    assert [t["status"] for t in status.todos] == ["completed", "in_progress", "pending"]
    kinds = [a["kind"] for a in status.audit]
    assert kinds == ["entered", "written", "exit_requested", "decision"]
    assert status.audit[-1]["decision"] == "approve" and status.audit[-1]["feedback"] == "Go ahead."
    assert not is_plan_mode_active(agent)
    assert "plan_write" in agent.injection_config.task_tool_names


async def test_next_mode_and_seeded_todos(tmp_path: Path) -> None:
    agent, model, _ = make_agent(tmp_path, [
        call_tool("plan_enter", {}), call_tool("plan_write", {"content": PLAN}),
        call_tool("plan_exit", {}, "x1"),
    ])
    request = confirm_request(await run(agent))
    model.extend([say("building")])
    await run(agent, answer_plan(request, "approve", next_mode="accept_edits", actor="user:alice"))
    assert agent.state.permission_context.mode == PermissionMode.ACCEPT_EDITS
    status = plan_status(agent)
    assert [t["content"] for t in status.todos] == ["Read the code", "Change the check", "Run the tests"]
    assert status.todos[0]["status"] == "in_progress"
    [change] = [a for a in status.audit if a["kind"] == "mode_change"]
    assert (change["from_mode"], change["to_mode"], change["actor"]) == ("default", "accept_edits", "user:alice")
    assert "permission mode is now accept_edits" in text_of(results(agent)["x1"])


async def test_reentry_keeps_file_and_starts_new_revision(tmp_path: Path) -> None:
    agent, model, _ = make_agent(tmp_path, [
        call_tool("plan_enter", {}), call_tool("plan_write", {"content": PLAN}), call_tool("plan_exit", {}),
    ])
    request = confirm_request(await run(agent))
    model.extend([say("ok")])
    await run(agent, answer_plan(request, "approve"))
    model.extend([call_tool("plan_enter", {}, "e2"), call_tool("plan_write", {"content": PLAN + "4. Ship\n"}, "p2"),
                  say("planned")])
    await run(agent, "next task")
    assert "previous plan (revision 1) is kept" in text_of(results(agent)["e2"])
    assert "revision 2" in text_of(results(agent)["p2"])
    status = plan_status(agent)
    assert status.phase == "planning" and status.revision == 2 and status.outcome == "planning_with_plan"
    assert (tmp_path / "plans" / "PLAN.md").read_text().endswith("4. Ship\n")


async def test_human_edit_during_planning_is_kept_as_its_own_revision(tmp_path: Path) -> None:
    agent, model, _ = make_agent(tmp_path, [call_tool("plan_enter", {}), call_tool("plan_write", {"content": PLAN}),
                                            say("drafted")])
    await run(agent)
    (tmp_path / "plans" / "PLAN.md").write_text(PLAN + "4. Human step\n")
    model.extend([call_tool("plan_write", {"content": PLAN + "4. Model step\n"}, "p2"), say("ok")])
    await run(agent, "continue")
    assert "user had edited the plan file" in text_of(results(agent)["p2"])
    revisions = plan_status(agent).revisions
    assert [(r["number"], r["author"], r["edited_by_user"]) for r in revisions] == \
        [(1, "model", False), (2, "user", True), (3, "model", False)]
