"""AgentScope integration: drop-in Task tools, plan mode, permission modes.

Importing this module needs ``agentscope`` (``pip install planmode[agentscope]``).
"""

from __future__ import annotations

try:
    import agentscope as _agentscope  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "planmode.agentscope needs AgentScope: pip install 'planmode[agentscope]'"
    ) from exc

from typing import TYPE_CHECKING, Any

from . import _plan
from ._permission_engine import PermissionEngine
from ._permission_middleware import PermissionMiddleware
from ._permission_mode import get_permission_mode, set_permission_mode
from ._plan import *  # noqa: F403 - the plan-mode names, listed once in _plan.__all__
from ._plan_repair import PlanStateReport, inspect_plan_state, reset_plan_state
from ._tasks import TASK_TOOLS, TaskCreate, TaskGet, TaskList, TaskUpdate, resync_tasks
from ._tracing import PlanTracingMiddleware
from .scripted import ScriptedChatModel, call_tool, call_tools, say

# ---- admin (HTTP): needs planmode[service], so imported on first use ----
_SERVICE_NAMES = ("admin_router", "PlanModeWiring")
if TYPE_CHECKING:
    from ._admin import PlanModeWiring, admin_router


def __getattr__(name: str) -> Any:
    """Imports the admin (HTTP) names on first use."""
    if name in _SERVICE_NAMES:
        try:
            from . import _admin
        except ModuleNotFoundError as exc:
            raise ModuleNotFoundError(
                f"planmode.agentscope.{name} needs the [service] extra (AgentScope's app, Redis storage, "
                f"uvicorn, httpx): pip install 'planmode[agentscope,service]' (missing module: {exc.name})",
                name=exc.name,
            ) from exc
        return getattr(_admin, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    # ---- permission ----
    "PermissionEngine",
    "PermissionMiddleware",
    "get_permission_mode",
    "set_permission_mode",
    # ---- admin (HTTP) ----
    "PlanModeWiring",
    "admin_router",
    # ---- tasks ----
    "TASK_TOOLS",
    "TaskCreate",
    "TaskGet",
    "TaskList",
    "TaskUpdate",
    "resync_tasks",
    # ---- plan state repair ----
    "PlanStateReport",
    "inspect_plan_state",
    "reset_plan_state",
    # ---- tracing ----
    "PlanTracingMiddleware",
    # ---- scripted model ----
    "ScriptedChatModel",
    "call_tool",
    "call_tools",
    "say",
]
__all__ += _plan.__all__  # ---- plan ----
