"""Catches the newcomer's ``Toolkit(tools=[ReadFile, TaskGet])``: tool *classes* where AgentScope needs
instances. AgentScope accepts them and fails much later, inside the permission engine, with
``check_read_only() missing 1 required positional argument``; planmode says what to write instead."""

from __future__ import annotations

from typing import Any

from ..exceptions import InvalidInputError


def check_toolkit(agent: Any) -> None:
    """Raises :class:`InvalidInputError` naming the first tool registered as a class, not an instance."""
    toolkit = getattr(agent, "toolkit", None)
    for group in getattr(toolkit, "tool_groups", None) or []:
        for tool in getattr(group, "tools", None) or []:
            if isinstance(tool, type):
                raise InvalidInputError(
                    f"agent {getattr(agent, 'name', '?')!r}: the toolkit holds the class {tool.__name__}, not a "
                    f"tool: register an instance, {tool.__name__}(...) (for planmode's Task tools: "
                    "[tool() for tool in TASK_TOOLS], or plan.tools() which already includes them)"
                )
