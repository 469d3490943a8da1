"""The ``create_app`` factory that puts plan mode into every session the app runs."""

from __future__ import annotations

from typing import Any

from agentscope.middleware import MiddlewareBase
from agentscope.workspace import WorkspaceBase

from .._plan import PlanMode
from .._plan._team import AppSession, TeamPlanModeMiddleware


class PlanModeWiring:
    """Builds one ``PlanMode`` per chat turn, rooted in the session's workspace.

    Pass ``extra_agent_middlewares=wiring.middlewares`` to ``agentscope.app.create_app``. That is the
    whole wiring: the app registers the middleware's ``list_tools()`` (plan_enter, plan_write,
    plan_exit, todo_write and the Task tools) in the turn's toolkit, so no ``extra_agent_tools``
    factory is needed — one would only register every tool twice. A path that builds a toolkit
    without the middlewares (AgentScope's realtime voice path) therefore gets no plan tools rather
    than ungated ones. The app appends extra middlewares after its own (inbox, state change, tool
    offload), none of which decides permissions, so the plan-mode gate still runs before any tool.

    Team workers (``AgentCreate``, ``AgentInvite``) follow their leader: while the leader plans or
    awaits approval they are gated read-only per ``subagent_policy`` (``enforce`` by default,
    ``ceiling`` or ``off``), on whichever node they run; the leader's phase is read from the app's
    storage. Options are the ``PlanMode`` options (except ``workspace_dir``, which is each
    session's workspace) and are checked here: an unknown option or a bad value raises
    ``InvalidInputError`` at construction.

    Every session gets its own plan file (``per_agent_paths=True`` unless you pass otherwise): the app
    lets the sessions of one agent share a workspace, and which session got the plain ``PLAN.md`` first
    would otherwise depend on which process ran it first, so two sessions could meet on one file when
    they later run on the same node.
    """

    def __init__(self, *, plan_dir: str = "plans", **plan_mode_options: Any) -> None:
        options = {"per_agent_paths": True, **plan_mode_options}
        PlanMode.check_options(plan_dir=plan_dir, **options)
        self.plan_dir = plan_dir
        self.plan_mode_options = options

    def __repr__(self) -> str:
        options = "".join(f", {key}={value!r}" for key, value in self.plan_mode_options.items())
        return f"PlanModeWiring(plan_dir={self.plan_dir!r}{options})"

    async def middlewares(
        self, user_id: str, agent_id: str, session_id: str, workspace: WorkspaceBase
    ) -> list[MiddlewareBase]:
        """``extra_agent_middlewares`` factory: this turn's plan-mode middleware (it brings the tools)."""
        # A confirmation the session user sends through POST /chat/ is recorded as theirs.
        options = {"chat_actor": f"user:{user_id}", **self.plan_mode_options}
        plan = PlanMode(workspace_dir=workspace.workdir, plan_dir=self.plan_dir, **options)
        return [TeamPlanModeMiddleware(plan, AppSession(user_id, agent_id, session_id))]
