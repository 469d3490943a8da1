"""planmode: plan, approve, then build — for AgentScope agents, with a Rust core.

The core types here work without AgentScope installed; the AgentScope tools,
middleware and programmatic API live in :mod:`planmode.agentscope`.
"""

from __future__ import annotations

from . import exceptions
from ._core import PlanBook, PlanWorkspace, ShellVerdict, TaskGraph, __version__, classify_shell

__all__ = [
    "TaskGraph",
    "__version__",
    "exceptions",
    "ShellVerdict",
    "classify_shell",
    # ---- plan ----
    "PlanBook",
    "PlanWorkspace",
]
