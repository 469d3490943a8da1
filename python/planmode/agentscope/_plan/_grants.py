"""The allow rules a plan approval grants: added on approval, revoked when plan mode is
entered again (only the rules plan mode added)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from agentscope.permission import PermissionBehavior, PermissionRule
from agentscope.state import AgentState

#: The ``source`` of allow rules granted with a plan approval.
GRANT_SOURCE = "planmode:approval"


def add_grants(state: AgentState, grants: Sequence[Mapping[str, Any]]) -> None:
    """Adds the approval's grants as allow rules (in place: the engine reads this context)."""
    rules = state.permission_context.allow_rules
    for g in grants:
        existing = rules.setdefault(g["tool_name"], [])
        if not any(r.source == GRANT_SOURCE and r.rule_content == g.get("rule_content") for r in existing):
            existing.append(PermissionRule(tool_name=g["tool_name"], rule_content=g.get("rule_content"),
                                           behavior=PermissionBehavior.ALLOW, source=GRANT_SOURCE))


def revoke_grants(state: AgentState, grants: Sequence[Mapping[str, Any]]) -> None:
    """Removes expired grants (only the rules plan mode added) from the allow rules."""
    rules = state.permission_context.allow_rules
    for g in grants:
        kept = [r for r in rules.get(g["tool_name"], [])
                if not (r.source == GRANT_SOURCE and r.rule_content == g.get("rule_content"))]
        if kept:
            rules[g["tool_name"]] = kept
        else:
            rules.pop(g["tool_name"], None)
