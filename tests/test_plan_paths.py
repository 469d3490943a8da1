"""Plan-file safety: path escapes refused, bad content refused with nothing changed, and
plan files namespaced so two agents never share one."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from _plan_support import PLAN, confirm_request, make_agent, results, run, text_of

from planmode.agentscope import PlanMode, answer_plan, call_tool, plan_status, say
from planmode.exceptions import InvalidInputError, PathEscapeError


@pytest.mark.parametrize("plan_dir", ["../outside", "plans/../../x", "/etc", "~/plans", "a\\..\\b"])
def test_escaping_plan_dirs_are_refused(tmp_path: Path, plan_dir: str) -> None:
    with pytest.raises(PathEscapeError, match="relative path inside the workspace"):
        PlanMode(workspace_dir=tmp_path, plan_dir=plan_dir)


def test_bad_configuration(tmp_path: Path) -> None:
    with pytest.raises(OSError, match="workspace_dir"):
        PlanMode(workspace_dir=tmp_path / "missing")
    with pytest.raises(InvalidInputError, match="subagent_policy"):
        PlanMode(workspace_dir=tmp_path, subagent_policy="sometimes")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="extra_allowed_tools"):
        PlanMode(workspace_dir=tmp_path, extra_allowed_tools="Write")  # type: ignore[arg-type]


async def _write_attempt(root: Path, content: str, plan: PlanMode | None = None) -> tuple[str, str]:
    agent, _, _ = make_agent(root, [call_tool("plan_enter", {}), call_tool("plan_write", {"content": content}, "p"),
                                    say("ok")], plan=plan)
    await run(agent)
    res = results(agent)["p"]
    return res.state, text_of(res)


@pytest.mark.parametrize("target", ["dir", "file"])
async def test_symlinks_pointing_outside_are_refused(tmp_path: Path, target: str) -> None:
    ws, outside = tmp_path / "ws", tmp_path / "outside"
    ws.mkdir(), outside.mkdir()
    if target == "dir":
        os.symlink(outside, ws / "plans")
    else:
        (ws / "plans").mkdir()
        os.symlink(outside / "PLAN.md", ws / "plans" / "PLAN.md")
    state, text = await _write_attempt(ws, PLAN)
    assert state == "error" and ("outside the workspace" in text or "is a symlink" in text), text
    assert list(outside.iterdir()) == []


async def test_symlinked_dir_inside_the_workspace_is_fine(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    os.symlink(tmp_path / "real", tmp_path / "plans")
    state, _ = await _write_attempt(tmp_path, PLAN)
    assert state == "success" and (tmp_path / "real" / "PLAN.md").read_text() == PLAN


@pytest.mark.parametrize(("content", "message"), [
    ("", "plan content is empty"),
    ("   \n\t", "plan content is empty"),
    ("x" * 101, "over the limit of 100 bytes"),
    ("a\x00b", "NUL character"),
    ("half \ud800 surrogate", "not valid UTF-8"),
])
async def test_bad_content_is_refused_and_changes_nothing(tmp_path: Path, content: str, message: str) -> None:
    plan = PlanMode(workspace_dir=tmp_path, max_plan_bytes=100)
    state, text = await _write_attempt(tmp_path, content, plan)
    assert state == "error" and message in text, text
    assert not (tmp_path / "plans" / "PLAN.md").exists()


async def test_non_utf8_human_edit_blocks_approval_clearly(tmp_path: Path) -> None:
    agent, model, _ = make_agent(tmp_path, [call_tool("plan_enter", {}), call_tool("plan_write", {"content": PLAN}),
                                            call_tool("plan_exit", {}, "x")])
    request = confirm_request(await run(agent))
    (tmp_path / "plans" / "PLAN.md").write_bytes(b"\xff\xfe bad")
    model.extend([say("ok")])
    await run(agent, answer_plan(request, "approve"))
    assert "not valid UTF-8" in text_of(results(agent)["x"])
    assert plan_status(agent).phase == "planning"


async def test_two_agents_never_share_a_plan_file(tmp_path: Path) -> None:
    shared = PlanMode(workspace_dir=tmp_path)
    a, _, _ = make_agent(tmp_path, [call_tool("plan_enter", {}), call_tool("plan_write", {"content": "# A"}), say("a")],
                         plan=shared, name="alice")
    b, _, _ = make_agent(tmp_path, [call_tool("plan_enter", {}), call_tool("plan_write", {"content": "# B"}), say("b")],
                         plan=shared, name="bob")
    await run(a)
    await run(b)
    pa, pb = plan_status(a).plan_relpath, plan_status(b).plan_relpath
    assert plan_status(a).plan_path == str(tmp_path / "plans" / "PLAN.md")
    assert pa == "plans/PLAN.md" and pb is not None and pb.startswith("plans/bob-") and pb.endswith("/PLAN.md")
    assert (tmp_path / pa).read_text() == "# A" and (tmp_path / pb).read_text() == "# B"
    # another PlanMode (e.g. another process) on the same workspace does not take alice's file
    c, _, _ = make_agent(tmp_path, [call_tool("plan_enter", {}), call_tool("plan_write", {"content": "# C"}), say("c")],
                         plan=PlanMode(workspace_dir=tmp_path), name="carol")
    await run(c)
    assert plan_status(c).plan_relpath != pa and (tmp_path / pa).read_text() == "# A"


async def test_per_agent_paths(tmp_path: Path) -> None:
    plan = PlanMode(workspace_dir=tmp_path, plan_dir="docs/plans", per_agent_paths=True)
    agent, _, _ = make_agent(tmp_path, [call_tool("plan_enter", {}), call_tool("plan_write", {"content": PLAN}),
                                        say("ok")], plan=plan, name="dev agent")
    await run(agent)
    path = plan_status(agent).plan_relpath
    assert path is not None and path.startswith("docs/plans/dev_agent-") and (tmp_path / path).read_text() == PLAN
