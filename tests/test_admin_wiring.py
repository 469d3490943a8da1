"""PlanModeWiring: the create_app factories, called the way AgentScope's ChatService calls them."""

from __future__ import annotations

import inspect
from pathlib import Path

from agentscope.workspace import LocalWorkspace

from planmode.agentscope import PlanModeMiddleware, PlanModeWiring


async def test_tools_come_from_the_plan_mode_built_for_the_same_turn(tmp_path: Path) -> None:
    wiring = PlanModeWiring(plan_dir="plans", allow_shell_in_plan_mode=True)
    assert repr(wiring) == "PlanModeWiring(plan_dir='plans', per_agent_paths=True, allow_shell_in_plan_mode=True)"
    # ChatService passes the workspace only to factories that take four parameters
    assert len(inspect.signature(wiring.middlewares).parameters) == 4
    assert len(inspect.signature(wiring.tools).parameters) == 3
    workspace = LocalWorkspace(workdir=str(tmp_path))
    middlewares = await wiring.middlewares("u", "a", "s", workspace)
    assert [type(m) for m in middlewares] == [PlanModeMiddleware]
    names = {tool.name for tool in await wiring.tools("u", "a", "s")}
    assert {"plan_enter", "plan_write", "plan_exit", "todo_write", "TaskCreate", "TaskUpdate"} <= names
    assert await wiring.tools("u", "a", "s") == []  # handed out once per turn
    assert await wiring.tools("u", "a", "other") == []  # no middleware built: no ungated plan tools
