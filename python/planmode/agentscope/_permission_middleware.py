"""``PermissionMiddleware``: an agent's permission checks on planmode's engine, with no Agent subclass.

AgentScope's Agent binds its engine to the ``PermissionContext`` object it had when it was built,
so replacing ``agent.state`` or ``agent.state.permission_context`` later leaves its decisions (and
the rules a user approves at a confirmation) on the old context. This middleware reads
``agent.state.permission_context`` on every check and keeps AgentScope's engine pointed at it too.
"""

from __future__ import annotations

import weakref
from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import Any

from agentscope.message import ToolCallState
from agentscope.middleware import MiddlewareBase
from agentscope.permission import PermissionBehavior, PermissionDecision

from ._permission_engine import PermissionEngine
from ._permission_mode import rebind_agentscope_engine

__all__ = ["PermissionMiddleware", "guard_replies"]

#: Checks run at the start of every reply that PermissionMiddleware serves; each raises to
#: refuse it. Plan mode registers one (a planning state that nothing gates fails closed), so the
#: permission modules need not import plan mode.
ReplyGuard = Callable[[Any], None]
_GUARDS: list[ReplyGuard] = []


def guard_replies(guard: ReplyGuard) -> ReplyGuard:
    """Registers ``guard`` to run before every reply PermissionMiddleware serves (a decorator)."""
    if guard not in _GUARDS:
        _GUARDS.append(guard)
    return guard


class PermissionMiddleware(MiddlewareBase):
    """Decides every tool call with :class:`PermissionEngine` against ``agent.state.permission_context``.

    It answers the check itself (calls already confirmed by the user are allowed, as AgentScope
    does), so place it last in ``middlewares``: middlewares after it would not run for permission
    checks. One instance may serve several agents.

    >>> agent = Agent(..., middlewares=[PermissionMiddleware()])
    """

    def __init__(self) -> None:
        self._engines: weakref.WeakKeyDictionary[Any, PermissionEngine] = weakref.WeakKeyDictionary()

    def _engine_for(self, agent: Any) -> PermissionEngine:
        """This agent's engine, pointed at its current permission context."""
        context = agent.state.permission_context
        engine = self._engines.get(agent)
        if engine is None:
            engine = self._engines[agent] = PermissionEngine(context)
        else:
            engine.context = context
        return engine

    async def on_reply(
        self,
        agent: Any,
        input_kwargs: dict[str, Any],
        next_handler: Callable[..., AsyncGenerator[Any, None]],
    ) -> AsyncGenerator[Any, None]:
        """Points AgentScope's engine at the live context before a reply (rules approved at a
        confirmation are added through it), then passes every event through. Refuses an agent
        whose state is in plan mode without the plan-mode middleware (``PlanStateError``)."""
        for guard in _GUARDS:
            guard(agent)
        rebind_agentscope_engine(agent)
        async for event in next_handler(**input_kwargs):
            yield event

    async def on_check_permission(
        self,
        agent: Any,
        input_kwargs: dict[str, Any],
        next_handler: Callable[..., Awaitable[PermissionDecision]],
    ) -> PermissionDecision:
        """The decision for one tool call, as AgentScope's own ``_check_permission_impl`` makes it."""
        rebind_agentscope_engine(agent)
        if input_kwargs["tool_call"].state == ToolCallState.ALLOWED:
            return PermissionDecision(
                behavior=PermissionBehavior.ALLOW,
                message="Already allowed by user confirmation.",
            )
        engine = self._engine_for(agent)
        return await engine.check_permission(input_kwargs["tool"], input_kwargs["tool_input"])
