"""PlanModeWiring: the create_app factories, called the way AgentScope's ChatService calls them."""

from __future__ import annotations

import inspect
import subprocess
import sys
from pathlib import Path

from agentscope.workspace import LocalWorkspace

from planmode.agentscope import PlanModeMiddleware, PlanModeWiring


async def test_one_middleware_per_turn_brings_the_plan_tools(tmp_path: Path) -> None:
    wiring = PlanModeWiring(plan_dir="plans", allow_shell_in_plan_mode=True)
    assert repr(wiring) == "PlanModeWiring(plan_dir='plans', per_agent_paths=True, allow_shell_in_plan_mode=True)"
    # ChatService passes the workspace only to factories that take four parameters
    assert len(inspect.signature(wiring.middlewares).parameters) == 4
    workspace = LocalWorkspace(workdir=str(tmp_path))
    middlewares = await wiring.middlewares("u", "a", "s", workspace)
    assert len(middlewares) == 1 and isinstance(middlewares[0], PlanModeMiddleware)
    # the app registers middleware tools in the toolkit itself (agentscope.app._service._toolkit)
    names = {tool.name for tool in await middlewares[0].list_tools()}
    assert {"plan_enter", "plan_write", "plan_exit", "todo_write", "TaskCreate", "TaskUpdate"} <= names
    again = await wiring.middlewares("u", "a", "s", workspace)
    assert again[0] is not middlewares[0]  # a fresh PlanMode per turn, nothing cached between turns


def test_plan_mode_imports_without_the_service_extra() -> None:
    code = (
        "import sys; sys.modules['fastapi'] = None\n"  # as if planmode[service] were not installed
        "import planmode.agentscope as pm\n"
        "assert pm.PlanMode and 'planmode.agentscope._admin' not in sys.modules\n"
        "try:\n    pm.admin_router\nexcept ImportError:\n    pass\nelse:\n    raise SystemExit('expected ImportError')\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
