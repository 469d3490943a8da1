"""MCP tools in plan mode, through AgentScope's real MCP client and a real stdio MCP server
process: a server's readOnlyHint is not trusted while planning unless the user opts in, per
server or per tool."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from _plan_support import results, run, text_of
from agentscope.agent import Agent
from agentscope.mcp import MCPClient, StdioMCPConfig
from agentscope.permission import PermissionBehavior, PermissionMode, PermissionRule
from agentscope.tool import Toolkit

from planmode.agentscope import PlanMode, ScriptedChatModel, call_tools, say
from planmode.agentscope._plan._texts import DENIED

SERVER = Path(__file__).with_name("mcp_notes_server.py")
ALL_MODES = list(PermissionMode)
READ, SAVE, DELETE = "mcp__notes__read_note", "mcp__notes__save_note", "mcp__notes__delete_note"


@asynccontextmanager
async def notes_server(root: Path) -> AsyncIterator[MCPClient]:
    """AgentScope's MCP client connected to the notes server (a child process) on ``root``."""
    client = MCPClient(name="notes", is_stateful=True,
                       mcp_config=StdioMCPConfig(command=sys.executable, args=[str(SERVER), str(root)]))
    await client.connect()
    try:
        yield client
    finally:
        await client.close()


def _agent(root: Path, client: MCPClient, plan: PlanMode, mode: PermissionMode) -> Agent:
    model = ScriptedChatModel([
        call_tools((READ, {"name": "a.txt"}), (SAVE, {"name": "a.txt", "text": "changed"}),
                   (DELETE, {"name": "a.txt"})),
        say("done"),
    ])
    agent = Agent(name="dev", system_prompt="s", model=model, toolkit=Toolkit(tools=plan.tools(), mcps=[client]),
                  middlewares=[plan.middleware()])
    agent.state.permission_context.mode = mode
    for name in (READ, SAVE, DELETE):  # the user allowed all three: only plan mode stands in the way
        agent.state.permission_context.allow_rules[name] = [
            PermissionRule(tool_name=name, rule_content=None, behavior=PermissionBehavior.ALLOW, source="user")]
    return agent


def _notes(tmp_path: Path) -> Path:
    root = tmp_path / "notes"
    root.mkdir()
    (root / "a.txt").write_text("alpha")
    return root


def _by_name(agent: Agent) -> dict[str, tuple[str, str]]:
    return {r.name: (r.state, text_of(r)) for r in results(agent).values()}


@pytest.mark.parametrize("mode", ALL_MODES, ids=[m.value for m in ALL_MODES])
async def test_mcp_hints_are_not_trusted_while_planning(tmp_path: Path, mode: PermissionMode) -> None:
    root = _notes(tmp_path)
    plan = PlanMode(workspace_dir=tmp_path)
    async with notes_server(root) as client:
        tools = {t.name: t for t in await client.list_tools()}
        assert tools[READ].is_read_only and tools[SAVE].is_read_only  # what the server claims
        agent = _agent(tmp_path, client, plan, mode)
        from planmode.agentscope import enter_plan_mode

        enter_plan_mode(agent)
        await run(agent)
    got = _by_name(agent)
    assert got[READ] == ("denied", DENIED) and got[SAVE] == ("denied", DENIED) and got[DELETE] == ("denied", DENIED)
    assert (root / "a.txt").read_text() == "alpha"


@pytest.mark.parametrize("trusted", ["notes/read_note", "notes"])
async def test_trust_is_opt_in_per_tool_or_server(tmp_path: Path, trusted: str) -> None:
    root = _notes(tmp_path)
    plan = PlanMode(workspace_dir=tmp_path, trust_mcp_read_only=[trusted])
    async with notes_server(root) as client:
        agent = _agent(tmp_path, client, plan, PermissionMode.BYPASS)
        from planmode.agentscope import enter_plan_mode

        enter_plan_mode(agent)
        await run(agent)
    got = _by_name(agent)
    assert got[READ][0] == "success" and "alpha" in got[READ][1]
    assert got[DELETE] == ("denied", DENIED)  # no hint at all: trusting the server does not help
    if trusted == "notes/read_note":
        assert got[SAVE] == ("denied", DENIED) and (root / "a.txt").read_text() == "alpha"
    else:  # the whole server is trusted, and its save_note lies: that trust was the user's call
        assert got[SAVE][0] == "success" and (root / "a.txt").read_text() == "changed"


async def test_outside_plan_mode_mcp_tools_follow_the_normal_rules(tmp_path: Path) -> None:
    root = _notes(tmp_path)
    async with notes_server(root) as client:
        agent = _agent(tmp_path, client, PlanMode(workspace_dir=tmp_path), PermissionMode.BYPASS)
        await run(agent)
    got = _by_name(agent)
    assert got[READ][0] == got[SAVE][0] == got[DELETE][0] == "success"
    assert not (root / "a.txt").exists()
