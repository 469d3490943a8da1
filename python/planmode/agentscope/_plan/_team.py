"""Plan mode inside AgentScope's app: a team worker follows its leader's plan mode.

AgentScope's app gives every session the team tools. A worker — started by the leader's
``AgentCreate`` or borrowed with ``AgentInvite`` — runs in a session of its own, in the
leader's workspace (``AgentCreate``) with the leader's permission mode and allow rules. While
the leader plans (or awaits approval), a worker is gated like a planning agent, per
``subagent_policy``, whenever it was created; once the leader's plan is approved it follows.

The leader's phase is read from the app's storage (the leader session's ``AgentState``) each
time a decision depends on it, so it holds across app nodes. The app persists a session's state
only when its run ends, so the leader's middleware writes its plan-mode state to storage as
soon as it starts or stops planning (before the next tool call, and right after the tool that
changed it): a worker created in the same run, or already running, sees it.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import AsyncGenerator, Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from agentscope.permission import PermissionDecision

from . import _state, _texts
from ._gate import PlanModeMiddleware
from ._identity import team_tool_base

if TYPE_CHECKING:
    from agentscope.agent import Agent
    from agentscope.state import AgentState

    from ._config import SubagentPolicy
    from ._host import PlanHost

_log = logging.getLogger("planmode")


@dataclass(frozen=True)
class AppSession:
    """The app session a middleware serves (what ``extra_agent_middlewares`` is called with)."""

    user_id: str
    agent_id: str
    session_id: str


class _Unknown(Exception):
    """The team or the leader cannot be read from storage (callers fail closed)."""


_UNRESOLVED = object()


def plans(state: AgentState) -> bool:
    """Whether the plan-mode state in ``state`` is planning or awaiting approval."""
    if _state.STATE_KEY not in state.middle_context:
        return False  # plan mode never used
    phase = _state.peek_phase(state) or _state.load(state).phase
    return phase in ("planning", "awaiting_approval")


class TeamPlanModeMiddleware(PlanModeMiddleware):
    """The plan-mode middleware of one app session: the gate, plus team inheritance."""

    parent_unknown_text = _texts.PARENT_UNKNOWN_TEAM

    def __init__(self, plan: PlanHost, session: AppSession) -> None:
        super().__init__(plan)
        self.session = session
        self._storage: Any = None
        self._leader: Any = _UNRESOLVED  # the leader's session id, None when not a worker
        self._published: bool | None = None
        self._leader_planning = False

    def __repr__(self) -> str:
        return f"TeamPlanModeMiddleware(session={self.session.session_id!r}, policy={self.plan.config.subagent_policy!r})"

    def _inherited_policy(self) -> SubagentPolicy | None:
        return self.plan.config.subagent_policy

    # ---- the app's storage, found through the session's own team tools ----------------------

    def _find_storage(self, agent: Agent) -> Any:
        """The storage the app bound into this session's team tools (None when there are none)."""
        base = team_tool_base()
        for group in getattr(agent.toolkit, "tool_groups", []):
            for tool in group.tools:
                if (base is not None and isinstance(tool, base)
                        and getattr(tool, "_session_id", None) == self.session.session_id
                        and getattr(tool, "_user_id", None) == self.session.user_id):
                    return cast(Any, tool)._storage
        return None

    async def _resolve_leader(self) -> str | None:
        """The leader's session id when this session is a team worker, else None."""
        s = self.session
        own = await self._storage.get_session(s.user_id, s.agent_id, s.session_id)
        if own is None:
            raise _Unknown(f"session {s.session_id} is not in storage")
        if own.team_id is None:
            return None
        team = await self._storage.get_team(s.user_id, own.team_id)
        if team is None or team.session_id == s.session_id:
            return None  # dissolved (the app runs it teamless), or this session leads
        return str(team.session_id)

    async def _parent_plans(self, agent: Agent) -> bool | None:
        """Whether this session's team leader plans now, read from storage; False when the
        session is no worker, None when that cannot be told (fail closed)."""
        if self._storage is None:
            return None
        try:
            if self._leader is _UNRESOLVED:
                self._leader = await self._resolve_leader()
            if self._leader is None:
                return False
            record = await self._storage.get_session(self.session.user_id, "", self._leader)
            if record is None:
                raise _Unknown(f"leader session {self._leader} is not in storage")
            self._leader_planning = plans(record.state)
        except Exception as exc:  # storage down, records gone: fail closed
            _log.warning("plan mode: cannot read the team leader of session %s: %s", self.session.session_id, exc)
            return None
        return self._leader_planning

    def _parent_plans_hint(self, agent: Agent) -> bool:
        return self._leader_planning

    # ---- publishing this session's phase for its workers --------------------------------------

    async def _publish(self, agent: Agent) -> None:
        """Writes this session's plan-mode state to storage when it started or stopped planning."""
        now = plans(agent.state)
        if now == self._published or self._storage is None:
            return
        s = self.session
        try:
            record = await self._storage.get_session(s.user_id, s.agent_id, s.session_id)
            if record is None:
                return
            record.state.middle_context[_state.STATE_KEY] = copy.deepcopy(
                agent.state.middle_context.get(_state.STATE_KEY))
            await self._storage.update_session_state(s.user_id, s.agent_id, s.session_id, record.state)
        except Exception as exc:  # retried before the next tool call
            _log.warning("plan mode: cannot publish the phase of session %s: %s", s.session_id, exc)
            return
        self._published = now

    # ---- hooks ------------------------------------------------------------------------------

    async def on_reply(self, agent: Agent, input_kwargs: dict[str, Any],
                       next_handler: Callable[..., AsyncGenerator[Any, None]]) -> AsyncGenerator[Any, None]:
        """Finds the app's storage, then replies as the plan-mode middleware does."""
        self._storage = self._find_storage(agent)
        self._published = plans(agent.state)  # what storage holds: the app loaded it
        async for event in super().on_reply(agent, input_kwargs, next_handler):
            yield event

    async def on_reasoning(self, agent: Agent, input_kwargs: dict[str, Any],
                           next_handler: Callable[..., AsyncGenerator[Any, None]]) -> AsyncGenerator[Any, None]:
        """Refreshes the leader's phase for the model's note, then adds the note."""
        if self.plan.config.subagent_policy == "enforce" and not self._active(agent):
            await self._parent_plans(agent)
        async for event in super().on_reasoning(agent, input_kwargs, next_handler):
            yield event

    async def on_check_permission(self, agent: Agent, input_kwargs: dict[str, Any],
                                  next_handler: Callable[..., Awaitable[PermissionDecision]]) -> PermissionDecision:
        """Publishes a phase change made outside a tool call, then gates the call."""
        await self._publish(agent)
        return await super().on_check_permission(agent, input_kwargs, next_handler)

    async def on_acting(self, agent: Agent, input_kwargs: dict[str, Any],
                        next_handler: Callable[..., AsyncGenerator[Any, None]]) -> AsyncGenerator[Any, None]:
        """Runs the tool, then publishes the phase if the tool changed it (plan_enter, plan_exit)."""
        async for item in next_handler(**input_kwargs):
            yield item
        await self._publish(agent)
