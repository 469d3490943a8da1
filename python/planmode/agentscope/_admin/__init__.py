"""Plan approval over HTTP on AgentScope's app: the admin router, the review page and the app wiring."""

from ._router import TOKEN_ENV, admin_router
from ._wiring import PlanModeWiring

__all__ = ["TOKEN_ENV", "PlanModeWiring", "admin_router"]
