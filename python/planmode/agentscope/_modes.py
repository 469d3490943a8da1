"""Parsing a permission mode named by the enum, its value or its name: one rule for every entry point."""

from __future__ import annotations

from agentscope.permission import PermissionMode

from ..exceptions import UnknownModeError

__all__ = ["parse_permission_mode"]

_BY_TEXT: dict[str, PermissionMode] = {
    **{m.value: m for m in PermissionMode},
    **{m.name.lower(): m for m in PermissionMode},
}
_VALID = ", ".join(repr(m.value) for m in PermissionMode)


def parse_permission_mode(mode: object) -> PermissionMode:
    """Returns the ``PermissionMode`` named by ``mode``: the enum itself, its value (``"dont_ask"``)
    or its name (``"DONT_ASK"``), case-insensitively.

    Raises:
        UnknownModeError: anything else, naming the value and listing the valid modes.
    """
    if isinstance(mode, PermissionMode):
        return mode
    if isinstance(mode, str) and (found := _BY_TEXT.get(mode.lower())) is not None:
        return found
    raise UnknownModeError(f"unknown permission mode {mode!r}; valid modes: {_VALID}")
