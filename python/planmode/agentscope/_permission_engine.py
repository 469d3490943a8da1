"""``PermissionEngine``: AgentScope's permission engine with the evaluation in Rust.

A drop-in for ``agentscope.permission.PermissionEngine`` (same constructor, ``add_rule`` and
``async check_permission(tool, tool_input)``, same decisions, messages and suggestions). The rule
lists are compiled once per change (``planmode._core.RuleCache``); the rules of AgentScope's Bash,
Read, Write, Edit, Glob and Grep are matched natively, every other rule by the tool's own
``match_rule``. The tool's ``check_read_only``, ``check_permissions``, ``match_rule`` and
``generate_suggestions`` may be coroutines or plain functions.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import os
import posixpath
import types
from collections.abc import Callable
from typing import Any, NamedTuple, cast

from agentscope.permission import (
    PermissionBehavior,
    PermissionContext,
    PermissionDecision,
    PermissionMode,
    PermissionRule,
)
from agentscope.permission import PermissionEngine as _AgentScopeEngine
from agentscope.tool import Bash, Edit, Glob, Grep, Read, ToolBase, Write

from .._core import RuleCache
from ..exceptions import InvalidInputError

__all__ = ["PermissionEngine"]

# Step codes of planmode._core.PermissionCheck.
_MATCH_RULES, _CHECK_READ_ONLY, _CHECK_PERMISSIONS = 0, 1, 2
_DONE, _DONE_SUGGEST = 3, 4
_BEHAVIORS = (PermissionBehavior.ALLOW, PermissionBehavior.DENY, PermissionBehavior.ASK)
_FINAL = (PermissionBehavior.ALLOW, PermissionBehavior.DENY)
_ASK = PermissionBehavior.ASK

# The native matcher (RuleCache kinds) that reproduces each AgentScope match_rule exactly (ToolBase's
# own matches no rule with content). The path matchers are fnmatch without case folding, which is
# what fnmatch does on POSIX only.
_NATIVE_KINDS: dict[Callable[..., Any], int] = {Bash.match_rule: 1, ToolBase.match_rule: 5}
if os.path is posixpath:
    _NATIVE_KINDS |= {Read.match_rule: 2, Write.match_rule: 2, Edit.match_rule: 2, Glob.match_rule: 3, Grep.match_rule: 4}


def _is_async(func: Any) -> bool:
    """AgentScope's ``_is_async_func`` (synchronous): how it decides whether to await a result."""
    return (
        inspect.iscoroutinefunction(func)
        or inspect.isasyncgenfunction(func)
        or isinstance(func, types.CoroutineType)
        or (isinstance(func, types.GeneratorType) and asyncio.iscoroutine(func))
        or (isinstance(func, functools.partial) and _is_async(func.func))
    )


class _Traits(NamedTuple):
    """What the engine knows about a tool class."""

    kind: int
    """RuleCache matcher kind (0 = only the tool's own match_rule)."""
    read_only_attr: bool
    """``check_read_only`` is ToolBase's: the answer is ``tool.is_read_only``."""
    match_async: bool
    suggest_async: bool


def _traits_of(methods: tuple[Any, ...]) -> _Traits:
    match_rule, check_read_only, generate_suggestions = methods
    return _Traits(
        kind=_NATIVE_KINDS.get(match_rule, 0),
        read_only_attr=check_read_only is ToolBase.check_read_only,
        match_async=_is_async(match_rule),
        suggest_async=_is_async(generate_suggestions),
    )


_TRAITS: dict[type, tuple[tuple[Any, ...], _Traits]] = {}


def _traits(tool: Any) -> _Traits:
    """The traits of ``tool``'s class (re-derived if its methods were replaced since), unless the
    instance overrides one of the methods."""
    own = getattr(tool, "__dict__", None)
    if own and ("match_rule" in own or "check_read_only" in own or "generate_suggestions" in own):
        return _Traits(kind=0, read_only_attr=False, match_async=_is_async(tool.match_rule),
                       suggest_async=_is_async(tool.generate_suggestions))
    cls = type(tool)
    methods = (cls.match_rule, cls.check_read_only, cls.generate_suggestions)
    cached = _TRAITS.get(cls)
    if cached is None or cached[0] != methods:
        cached = _TRAITS[cls] = (methods, _traits_of(methods))
    return cached[1]


async def _resolve(value: Any) -> Any:
    """Awaits ``value`` when it is awaitable (a coroutine method), else returns it (a plain one)."""
    return await value if inspect.isawaitable(value) else value


class PermissionEngine(_AgentScopeEngine):
    """AgentScope's permission engine with the evaluation order, rule matching and messages run
    by the Rust core; decisions are identical to ``agentscope.permission.PermissionEngine``'s.

    >>> engine = PermissionEngine(PermissionContext(mode=PermissionMode.ACCEPT_EDITS))
    """

    def __init__(self, context: PermissionContext) -> None:
        super().__init__(context)
        self._rules = RuleCache(tuple(PermissionMode), [PermissionRule, PermissionContext])

    async def check_permission(self, tool: ToolBase, tool_input: dict[str, Any]) -> PermissionDecision:
        """Decides whether ``tool`` may run with ``tool_input`` under ``self.context`` (read now)."""
        context = self.context
        traits = _traits(tool)
        name = tool.name
        if not isinstance(name, str):
            raise InvalidInputError(f"tool {tool!r} has a name that is not a string: {name!r}")
        read_only = tool.is_read_only if traits.read_only_attr else None
        check = self._rules.begin(
            context, name, traits.kind, tool_input, read_only if type(read_only) is bool else None
        )
        step = check.step
        tool_decision: Any = None
        while step < _DONE:
            if step == _MATCH_RULES:
                found = -1
                for position, content in enumerate(check.pending_contents):
                    if not content:
                        hit: Any = True
                    elif traits.match_async:
                        hit = await tool.match_rule(content, tool_input)
                    else:
                        hit = tool.match_rule(content, tool_input)
                    if hit:
                        found = position
                        break
                step = check.matched(found)
            elif step == _CHECK_READ_ONLY:
                if traits.read_only_attr:
                    verdict = tool.is_read_only
                else:
                    verdict = await _resolve(tool.check_read_only(tool_input))
                step = check.read_only(bool(verdict))
            else:
                tool_decision = await _resolve(tool.check_permissions(tool_input, context))
                behavior = tool_decision.behavior
                final = behavior in _FINAL
                step = check.tool_decision(final, not final and bool(behavior == _ASK and tool_decision.bypass_immune))
        suggestions: list[PermissionRule] | None = None
        if step == _DONE_SUGGEST:
            if traits.suggest_async:
                suggestions = await tool.generate_suggestions(tool_input)
            else:  # a plain-function override, which AgentScope still supports
                suggestions = cast("list[PermissionRule] | None", tool.generate_suggestions(tool_input))
            if check.tool_safety_ask:
                tool_decision.suggested_rules = suggestions
        made = check.decision(tool_decision)
        if made is None:
            return tool_decision  # type: ignore[no-any-return]
        behavior_code, message, reason, echoes_input = made
        return PermissionDecision(
            _BEHAVIORS[behavior_code], message, reason, tool_input if echoes_input else None, suggestions
        )
