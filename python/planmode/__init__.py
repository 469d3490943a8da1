"""planmode: plan, approve, then build — for AgentScope agents, with a Rust core.

The core types here work without AgentScope installed; the AgentScope tools,
middleware and programmatic API live in :mod:`planmode.agentscope`.
"""

from __future__ import annotations

from . import exceptions
from ._core import PlanBook, PlanWorkspace, __version__

__all__ = [
    "__version__",
    "exceptions",
    # ---- plan ----
    "PlanBook",
    "PlanWorkspace",
]
