"""``PlanHost``: what the gate, the plan tools and the checks share of one ``PlanMode`` — its
configuration (``config``), its plan files (``files``) and the agents it serves. ``PlanMode``
adds the factory (tools, middleware, sub-agents) on top, so none of those modules imports it."""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING

from agentscope.state import AgentState

from ._config import PlanModeConfig
from ._plan_files import PlanFiles

if TYPE_CHECKING:
    from agentscope.agent import Agent


class PlanHost:
    """One plan mode's configuration, plan files and served agents (in this process)."""

    def __init__(self, config: PlanModeConfig) -> None:
        self.config = config
        self.files = PlanFiles(config)
        self._gated: weakref.WeakValueDictionary[int, AgentState] = weakref.WeakValueDictionary()
        self._primary: weakref.ref[Agent] | None = None

    def note_gated(self, state: AgentState) -> None:
        """Records that this PlanMode's gate serves the agent owning ``state`` (in this process)."""
        self._gated[id(state)] = state

    def is_gated(self, state: AgentState) -> bool:
        """Whether this PlanMode's gate has served the agent owning ``state``."""
        return self._gated.get(id(state)) is state

    def note_primary(self, agent: Agent) -> None:
        """Remembers the first agent served by the main middleware (default parent of children)."""
        if self._primary is None or self._primary() is None:
            self._primary = weakref.ref(agent)

    def primary(self) -> Agent | None:
        """The agent the main middleware serves, if known."""
        return self._primary() if self._primary is not None else None
