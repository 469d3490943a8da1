"""``PermissionEngine``: AgentScope's permission engine with the evaluation in Rust.

A drop-in for ``agentscope.permission.PermissionEngine`` (same constructor, ``add_rule`` and
``async check_permission(tool, tool_input)``, same decisions, messages and suggestions). A check
reads the live rule lists only up to the deciding rule, each rule compiled once and re-validated by
identity as it is read (``planmode._core.RuleCache``); the rules of AgentScope's Bash, Read, Write,
Edit, Glob and Grep are matched natively, every other rule by the tool's own ``match_rule``. The
tool's ``check_read_only``, ``check_permissions``, ``match_rule`` and ``generate_suggestions`` may
be coroutines or plain functions.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import os
import posixpath
import types
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple, cast

from agentscope.permission import (
    PermissionBehavior,
    PermissionContext,
    PermissionDecision,
    PermissionEngine as _AgentScopeEngine,
    PermissionMode,
    PermissionRule,
)
from agentscope.tool import Bash, Edit, Glob, Grep, Read, ToolBase, Write

from .._core import RuleCache
from ..exceptions import InvalidInputError

if TYPE_CHECKING:
    from .._core import MatcherKind

__all__ = ["PermissionEngine"]

_BEHAVIORS = {b.value: b for b in PermissionBehavior}
_FINAL = (PermissionBehavior.ALLOW, PermissionBehavior.DENY)
_ASK = PermissionBehavior.ASK
_DONE = ("done", "done_suggest")

# The native matcher that reproduces each AgentScope match_rule exactly (ToolBase's own matches no
# rule with content). The path matchers are fnmatch without case folding, which is what fnmatch
# does on POSIX only.
_NATIVE_KINDS: dict[Callable[..., Any], MatcherKind] = {Bash.match_rule: "bash", ToolBase.match_rule: "default"}
if os.path is posixpath:
    _NATIVE_KINDS |= {
        Read.match_rule: "file", Write.match_rule: "file", Edit.match_rule: "file",
        Glob.match_rule: "glob", Grep.match_rule: "grep",
    }


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

    kind: MatcherKind
    """The native matcher (``"tool"``: only the tool's own match_rule)."""
    read_only_attr: bool
    """``check_read_only`` is ToolBase's: the answer is ``tool.is_read_only``."""
    match_async: bool
    suggest_async: bool


def _traits_of(methods: tuple[Any, ...]) -> _Traits:
    match_rule, check_read_only, generate_suggestions = methods
    return _Traits(
        kind=_NATIVE_KINDS.get(match_rule, "tool"),
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
        return _Traits(kind="tool", read_only_attr=False, match_async=_is_async(tool.match_rule),
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
        self._rules = RuleCache(tuple(PermissionMode))

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
        while step not in _DONE:
            if step == "match_rules":
                found = None
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
            elif step == "check_read_only":
                if traits.read_only_attr:
                    verdict = tool.is_read_only
                else:
                    verdict = await _resolve(tool.check_read_only(tool_input))
                step = check.read_only(bool(verdict))
            else:
                tool_decision = await _resolve(tool.check_permissions(tool_input, context))
                behavior = tool_decision.behavior
                if behavior in _FINAL:
                    step = check.tool_decision("final")
                elif behavior == _ASK and tool_decision.bypass_immune:
                    step = check.tool_decision("safety_ask")
                else:
                    step = check.tool_decision("continue")
        suggestions: list[PermissionRule] | None = None
        if step == "done_suggest":
            if traits.suggest_async:
                suggestions = await tool.generate_suggestions(tool_input)
            else:  # a plain-function override, which AgentScope still supports
                suggestions = cast("list[PermissionRule] | None", tool.generate_suggestions(tool_input))
            if check.tool_safety_ask:
                tool_decision.suggested_rules = suggestions
        made = check.decision(tool_decision)
        if made is None:
            return tool_decision  # type: ignore[no-any-return]
        behavior_value, message, reason, echoes_input = made
        return PermissionDecision(
            _BEHAVIORS[behavior_value], message, reason, tool_input if echoes_input else None, suggestions
        )
