"""Plan mode in AgentScope's OpenTelemetry traces.

:class:`PlanTracingMiddleware` is AgentScope's own ``TracingMiddleware`` (agent, model and tool
spans, unchanged) plus the plan lifecycle on the agent's reply span: each new plan-mode audit
entry (entered, written, exit_requested, decision, forced_exit, mode_change, ...) becomes a
span event ``planmode.<kind>`` with its fields as ``planmode.*`` attributes, each plan-mode gate
denial becomes a ``planmode.gate_denied`` event naming the tool, a permission-mode change made
outside plan mode's audit becomes ``planmode.mode_change``, and the reply span ends with the
``planmode.phase`` / ``planmode.revision`` it left the agent in. Nothing here changes what the
agent does: the events are read from ``agent.state`` and the event stream after each step.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, Callable
from typing import TYPE_CHECKING, Any

from agentscope.event import ToolResultEndEvent, ToolResultStartEvent, ToolResultTextDeltaEvent
from agentscope.message import ToolResultState
from agentscope.middleware import TracingMiddleware
from opentelemetry import trace

from ._plan import _texts
from ._plan._state import STATE_KEY

if TYPE_CHECKING:
    from agentscope.agent import Agent

#: Texts the plan-mode gate denies with (the model receives them verbatim).
_GATE_TEXTS = (_texts.DENIED, _texts.PARENT_UNKNOWN, _texts.NO_HUMAN)
_GATE_PREFIXES = tuple(t.split("{", 1)[0] for t in (_texts.SUBAGENT_NO_PLAN_TOOLS, _texts.PLAN_EXIT_ARGS))


class PlanTracingMiddleware(TracingMiddleware):
    """AgentScope's ``TracingMiddleware`` that also records the plan lifecycle as span events.

    Use it instead of ``TracingMiddleware``, after the plan-mode middleware::

        Agent(..., middlewares=[plan.middleware(), PlanTracingMiddleware()])
    """

    async def on_reply(self, agent: Agent, input_kwargs: dict[str, Any],
                       next_handler: Callable[..., AsyncGenerator[Any, None]]) -> AsyncGenerator[Any, None]:
        """The reply span of AgentScope, with plan-mode events added as the reply goes."""
        watcher = _PlanWatcher(agent)

        async def observed(**kwargs: Any) -> AsyncGenerator[Any, None]:
            # Runs while AgentScope's reply span is the current span.
            watcher.catch_up(trace.get_current_span())
            try:
                async for item in next_handler(**kwargs):
                    watcher.see(item)
                    watcher.catch_up(trace.get_current_span())
                    yield item
            finally:
                span = trace.get_current_span()
                watcher.catch_up(span)
                watcher.finish(span)

        async for item in super().on_reply(agent, input_kwargs, observed):
            yield item


class _PlanWatcher:
    """What changed in one agent's plan-mode state since the last look."""

    def __init__(self, agent: Agent) -> None:
        self.agent = agent
        self.seen = len(self._audit())
        self.mode = self._mode()
        self.results: dict[str, list[str]] = {}
        self.names: dict[str, str] = {}

    def _audit(self) -> list[dict[str, Any]]:
        raw = self.agent.state.middle_context.get(STATE_KEY)
        audit = raw.get("audit") if isinstance(raw, dict) else None
        return [a for a in audit if isinstance(a, dict)] if isinstance(audit, list) else []

    def _mode(self) -> str:
        mode = self.agent.state.permission_context.mode
        return str(getattr(mode, "value", mode))

    def see(self, item: Any) -> None:
        """Collects tool results, to find the calls the plan-mode gate denied."""
        if isinstance(item, ToolResultStartEvent):
            self.names[item.tool_call_id] = item.tool_call_name
            self.results[item.tool_call_id] = []
        elif isinstance(item, ToolResultTextDeltaEvent) and item.tool_call_id in self.results:
            self.results[item.tool_call_id].append(item.delta)
        elif isinstance(item, ToolResultEndEvent):
            text = "".join(self.results.pop(item.tool_call_id, []))
            name = self.names.pop(item.tool_call_id, "")
            if item.state == ToolResultState.DENIED and (text in _GATE_TEXTS or text.startswith(_GATE_PREFIXES)):
                trace.get_current_span().add_event("planmode.gate_denied", {
                    "planmode.tool_name": name, "planmode.tool_call_id": item.tool_call_id,
                    "planmode.phase": self._phase(), "planmode.reason": text,
                })

    def catch_up(self, span: trace.Span) -> None:
        """Adds the audit entries and permission-mode changes that happened since the last look."""
        audit = self._audit()
        if len(audit) < self.seen:  # the log was trimmed: take the tail we have not seen
            self.seen = max(0, len(audit) - 1)
        new, self.seen = audit[self.seen:], len(audit)
        for entry in new:
            span.add_event(f"planmode.{entry.get('kind', 'unknown')}", _attributes(entry))
        mode = self._mode()
        if mode != self.mode:
            if not any(e.get("kind") == "mode_change" for e in new):
                span.add_event("planmode.mode_change", {"planmode.from_mode": self.mode, "planmode.to_mode": mode,
                                                         "planmode.actor": "unknown"})
            self.mode = mode

    def _phase(self) -> str:
        raw = self.agent.state.middle_context.get(STATE_KEY)
        phase = raw.get("phase") if isinstance(raw, dict) else None
        return phase if isinstance(phase, str) else "never_entered"

    def finish(self, span: trace.Span) -> None:
        """The phase and revision the reply leaves the agent in, as span attributes."""
        raw = self.agent.state.middle_context.get(STATE_KEY)
        if not isinstance(raw, dict):
            return
        span.set_attribute("planmode.phase", self._phase())
        revisions = raw.get("revisions")
        if isinstance(revisions, list) and revisions and isinstance(revisions[-1], dict):
            number = revisions[-1].get("number")
            if isinstance(number, int):
                span.set_attribute("planmode.revision", number)
        if raw.get("plan_path"):
            span.set_attribute("planmode.plan_path", str(raw["plan_path"]))


def _attributes(entry: dict[str, Any]) -> dict[str, Any]:
    """An audit entry's fields as OpenTelemetry attributes (scalars kept, the rest as JSON)."""
    out: dict[str, Any] = {}
    for key, value in entry.items():
        if key == "kind" or value is None:
            continue
        name = f"planmode.{key}"
        out[name] = value if isinstance(value, (str, bool, int, float)) else json.dumps(value, ensure_ascii=False)
    return out
