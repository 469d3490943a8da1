"""The planmode exception hierarchy.

Every error planmode raises derives from :class:`PlanModeError` and also from the
builtin a Python user would already catch (``ValueError`` or ``KeyError``), so
existing ``except ValueError`` handlers keep working.
"""

from __future__ import annotations

__all__ = [
    "PlanModeError",
    "InvalidInputError",
    "StateLoadError",
    "TaskNotFoundError",
    "CycleError",
    "PlanStateError",
    "PathEscapeError",
    "UnknownModeError",
    "SandboxUnavailableError",
]


class PlanModeError(Exception):
    """Base class of every error raised by planmode."""


class InvalidInputError(PlanModeError, ValueError):
    """An argument has the wrong type or value; nothing was changed."""


class StateLoadError(InvalidInputError):
    """Saved state (a state dict or JSON) is malformed; the target was left as it was."""


class TaskNotFoundError(PlanModeError, KeyError):
    """A task id that does not exist was named."""

    def __str__(self) -> str:  # KeyError would otherwise repr() the message
        return str(self.args[0]) if self.args else ""


class CycleError(InvalidInputError):
    """A dependency edge would close a cycle (or make a task block itself)."""


class PlanStateError(PlanModeError, ValueError):
    """The operation is not valid in the agent's current plan-mode phase."""


class PathEscapeError(InvalidInputError):
    """A configured path would place a file outside the workspace."""


class UnknownModeError(InvalidInputError):
    """A permission mode that does not exist was named."""


class SandboxUnavailableError(PlanModeError, RuntimeError):
    """The kernel sandbox (Landlock) cannot be applied here, so nothing was run; the message
    says why (old kernel, Landlock not enabled, a container blocking it) and how to fix it."""
