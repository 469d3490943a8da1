"""The ``create_app`` factories that put plan mode into every session the app runs."""

from __future__ import annotations

from typing import Any

from agentscope.middleware import MiddlewareBase
from agentscope.tool import ToolBase
from agentscope.workspace import WorkspaceBase

from .._plan import PlanMode


class PlanModeWiring:
    """Builds one ``PlanMode`` per chat turn, rooted in the session's workspace.

    Pass ``extra_agent_middlewares=wiring.middlewares`` and ``extra_agent_tools=wiring.tools`` to
    ``agentscope.app.create_app``. The app calls the middleware factory first (it is the one that
    receives the workspace), then the tool factory for the same turn, so the tools handed out are
    those of the ``PlanMode`` whose middleware gates them. A tool request with no middleware built for
    that turn (AgentScope's realtime voice path) gets no plan tools rather than ungated ones.
    Every session gets its own plan file (``per_agent_paths=True`` unless you pass otherwise): the app
    lets the sessions of one agent share a workspace, and which session got the plain ``PLAN.md`` first
    would otherwise depend on which process ran it first, so two sessions could meet on one file when
    they later run on the same node.
    The app appends extra middlewares after its own (inbox, state-change, tool offload), none of
    which decides permissions, so the plan-mode gate still runs before any tool.
    """

    def __init__(self, *, plan_dir: str = "plans", **plan_mode_options: Any) -> None:
        self.plan_dir = plan_dir
        self.plan_mode_options = {"per_agent_paths": True, **plan_mode_options}
        self._turns: dict[tuple[str, str, str], PlanMode] = {}

    def __repr__(self) -> str:
        options = "".join(f", {key}={value!r}" for key, value in self.plan_mode_options.items())
        return f"PlanModeWiring(plan_dir={self.plan_dir!r}{options})"

    async def middlewares(
        self, user_id: str, agent_id: str, session_id: str, workspace: WorkspaceBase
    ) -> list[MiddlewareBase]:
        """``extra_agent_middlewares`` factory: the plan-mode middleware for this turn."""
        plan = PlanMode(
            workspace_dir=workspace.workdir, plan_dir=self.plan_dir, **self.plan_mode_options
        )
        self._turns[(user_id, agent_id, session_id)] = plan
        return [plan.middleware()]

    async def tools(self, user_id: str, agent_id: str, session_id: str) -> list[ToolBase]:
        """``extra_agent_tools`` factory: this turn's plan tools (plan_*, todo_write, Task*)."""
        plan = self._turns.pop((user_id, agent_id, session_id), None)
        return list(plan.tools()) if plan is not None else []
