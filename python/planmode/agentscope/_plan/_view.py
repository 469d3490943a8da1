"""A validated in-memory view of each agent's stored plan state, so that an unchanged state is
not parsed (and re-hashed) into a new ``PlanBook`` on every model turn and plan tool call.

State stays the truth: the view is used only while the stored value still *equals* a private
skeleton of what the view was built from (the same containers, copied; the same leaf objects,
shared). Python's ``==`` on dicts and lists is C code that skips identical leaves, so this costs
one walk over the containers, not over the plan texts. Any change is seen: a replaced or
restored dict, an in-place edit at any depth (``middle_context["planmode"]["todos"][0]["status"]
= ...``, an appended revision), another state. Only a change to a value that Python counts as
equal (``1`` to ``1.0`` or ``True``) or an object with an ``__eq__`` of its own is not told apart.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

from agentscope.state import AgentState

from ..._core import PLAN_STATE_KEY, PlanBook

#: Copies handed out by a view that ``save`` recognises as built with its limits.
_HANDED_KEPT = 2


class _View:
    """One cached book, the skeleton of the stored value it was built from, and the copies of
    it handed out last."""

    __slots__ = ("skeleton", "book", "handed")

    def __init__(self, skeleton: Any, book: PlanBook, handed: list[PlanBook]) -> None:
        self.skeleton, self.book, self.handed = skeleton, book, handed


class _Views:
    """One state's views, by limits (callers load with their own limits)."""

    __slots__ = ("owner", "by_limits")

    def __init__(self, state: AgentState) -> None:
        key = id(state)
        self.owner = weakref.ref(state, lambda _ref: _VIEWS.pop(key, None))
        self.by_limits: dict[tuple[Any, ...], _View] = {}


#: Views by ``id(state)``; an entry leaves when its state is collected.
_VIEWS: dict[int, _Views] = {}


def _skeleton(value: Any) -> Any:
    """``value`` with every dict and list copied and every other object shared."""
    kind = type(value)
    if kind is dict:
        return {k: _skeleton(v) for k, v in value.items()}
    if kind is list:
        return [_skeleton(v) for v in value]
    return value


def _views_of(state: AgentState) -> _Views:
    views = _VIEWS.get(id(state))
    if views is None or views.owner() is not state:
        views = _VIEWS[id(state)] = _Views(state)
    return views


def book(state: AgentState, limits: tuple[Any, ...], build: Callable[[Any], PlanBook]) -> PlanBook:
    """A private copy of the book of ``state``'s stored value with ``limits``: the view's when the
    stored value still equals its skeleton, else ``build(stored)`` (which validates), cached."""
    raw = state.middle_context.get(PLAN_STATE_KEY)
    views = _views_of(state)
    view = views.by_limits.get(limits)
    if view is not None and raw == view.skeleton:
        return _hand_out(view)
    fresh = build(raw)
    if type(raw) is not dict:
        views.by_limits.pop(limits, None)
        return fresh
    view = views.by_limits[limits] = _View(_skeleton(raw), fresh, [])
    return _hand_out(view)


def _hand_out(view: _View) -> PlanBook:
    copy = view.book.copy()
    view.handed = [*view.handed[-(_HANDED_KEPT - 1):], copy]
    return copy


def stored(state: AgentState, book: PlanBook, value: dict[str, Any]) -> None:
    """Notes that ``value`` (``book.to_state()``) was just stored: the view that handed ``book``
    out follows (its limits are known); every other view of the state is dropped."""
    views = _views_of(state)
    limits = next((k for k, v in views.by_limits.items() if any(h is book for h in v.handed)), None)
    views.by_limits = {} if limits is None else {limits: _View(_skeleton(value), book.copy(), [book])}
