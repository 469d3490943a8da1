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
    """One state's cached book, the skeleton it was built from, and its limits."""

    __slots__ = ("skeleton", "limits", "book", "handed", "owner")

    def __init__(self, state: AgentState, skeleton: Any, limits: tuple[Any, ...], book: PlanBook) -> None:
        self.skeleton, self.limits, self.book = skeleton, limits, book
        self.handed: list[PlanBook] = []
        key = id(state)
        self.owner = weakref.ref(state, lambda _ref: _VIEWS.pop(key, None))


#: Views by ``id(state)``; an entry leaves when its state is collected.
_VIEWS: dict[int, _View] = {}


def _skeleton(value: Any) -> Any:
    """``value`` with every dict and list copied and every other object shared."""
    kind = type(value)
    if kind is dict:
        return {k: _skeleton(v) for k, v in value.items()}
    if kind is list:
        return [_skeleton(v) for v in value]
    return value


def book(state: AgentState, limits: tuple[Any, ...], build: Callable[[Any], PlanBook]) -> PlanBook:
    """A private copy of the book of ``state``'s stored value with ``limits``: the view's when the
    stored value still equals its skeleton, else ``build(stored)`` (which validates), cached."""
    raw = state.middle_context.get(PLAN_STATE_KEY)
    view = _VIEWS.get(id(state))
    if view is not None and view.owner() is state and view.limits == limits and raw == view.skeleton:
        return _hand_out(view)
    fresh = build(raw)
    if type(raw) is not dict:
        _VIEWS.pop(id(state), None)
        return fresh
    view = _View(state, _skeleton(raw), limits, fresh)
    _VIEWS[id(state)] = view
    return _hand_out(view)


def _hand_out(view: _View) -> PlanBook:
    copy = view.book.copy()
    view.handed = [*view.handed[-(_HANDED_KEPT - 1):], copy]
    return copy


def stored(state: AgentState, book: PlanBook, value: dict[str, Any]) -> None:
    """Notes that ``value`` (``book.to_state()``) was just stored: the view follows when the book
    is one it handed out (its limits are then known), else it is dropped."""
    view = _VIEWS.get(id(state))
    if view is None or view.owner() is not state or not any(h is book for h in view.handed):
        _VIEWS.pop(id(state), None)
        return
    follow = _View(state, _skeleton(value), view.limits, book.copy())
    follow.handed = [book]
    _VIEWS[id(state)] = follow
