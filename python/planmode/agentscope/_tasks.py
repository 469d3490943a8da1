"""Drop-in replacements for AgentScope's Task tools, backed by the Rust task index.

``TaskCreate``, ``TaskGet``, ``TaskList`` and ``TaskUpdate`` subclass AgentScope's own tools, so
they share their ``name``, ``description``, ``input_schema``, ``is_state_injected`` and
``check_permissions``; registering them replaces the built-ins. They work on
``_agent_state.tasks_context.tasks`` (real ``agentscope.state.Task`` objects) and return, for
every valid call, the same ``ToolChunk`` and leave the same ``tasks_context`` as AgentScope's.
Unlike AgentScope's, ``TaskUpdate`` refuses an edge to an unknown id, a self-loop or an edge
that closes a cycle with an ERROR result and changes nothing.

The list stays the truth. Each context gets a :class:`planmode._core.TaskStateIndex` that is
checked in O(1) before every call (same list, same length, same last task, and the identity,
id and edge lists of every task the call touches) and rebuilt when that check fails; a call that
adds an edge first re-checks every task's identity, id and ``blocked_by`` (one pass), so every
cycle is refused whatever was edited directly. All other fields are read from the ``Task``
objects at call time. Call :func:`resync_tasks` after direct edits the other calls cannot see
(see ``docs/tasks.md``). The index is safe to share between threads: calls take turns.
"""

from __future__ import annotations

import weakref
from typing import Any

from agentscope.exception import DeveloperOrientedException
from agentscope.message import TextBlock, ToolResultState
from agentscope.state import AgentState, Task, TaskContext
from agentscope.tool import (
    TaskCreate as _TaskCreate,
    TaskGet as _TaskGet,
    TaskList as _TaskList,
    TaskUpdate as _TaskUpdate,
    ToolChunk,
)

from .._core import TaskStateIndex, render_task_list

__all__ = ["TASK_TOOLS", "TaskCreate", "TaskGet", "TaskList", "TaskUpdate", "resync_tasks"]

_INDEXES: dict[int, tuple[weakref.ref[TaskContext], TaskStateIndex]] = {}


def _index_of(ctx: TaskContext) -> TaskStateIndex:
    """The index for one ``tasks_context`` (created on first use, dropped with the context)."""
    key = id(ctx)
    entry = _INDEXES.get(key)
    if entry is not None and entry[0]() is ctx:
        return entry[1]

    def _forget(ref: weakref.ref[TaskContext], key: int = key) -> None:
        current = _INDEXES.get(key)
        if current is not None and current[0] is ref:
            del _INDEXES[key]

    index = TaskStateIndex(Task)
    _INDEXES[key] = (weakref.ref(ctx, _forget), index)
    return index


def _context(state: Any, tool: str) -> TaskContext:
    """The task context of an injected agent state (AgentScope's check and message)."""
    if not isinstance(state, AgentState):
        raise DeveloperOrientedException(
            f"Error: {tool} requires AgentState to be provided, got {state} instead.",
        )
    return state.tasks_context


def _chunk(reply: tuple[str, bool]) -> ToolChunk:
    """The ``ToolChunk`` AgentScope builds for a result text (ERROR state when not ok)."""
    text, ok = reply
    if ok:
        return ToolChunk(content=[TextBlock(text=text)])
    return ToolChunk(content=[TextBlock(text=text)], state=ToolResultState.ERROR)


def resync_tasks(state: AgentState) -> None:
    """Makes the next Task tool call re-read ``state.tasks_context.tasks`` completely.

    Only needed after direct edits the O(1) check cannot see: replacing an item in place
    without changing the list's length, renaming a task the next call does not touch, or
    editing the edge list of a task the next completion or deletion does not touch. (A call
    that adds an edge re-checks every task first, so cycles are refused without it.)
    """
    _index_of(state.tasks_context).invalidate()


class _AgentStateTool:
    """Marks a Task tool read-only: it reads or changes only agent state, never the workspace,
    so the permission engine allows it in EXPLORE and plan mode (AgentScope's
    ``check_read_only`` returns ``is_read_only``)."""

    is_read_only = True


class TaskCreate(_AgentStateTool, _TaskCreate):
    """AgentScope's ``TaskCreate`` (same name, schema and results), with O(1) id assignment."""

    async def call(
        self,
        _agent_state: AgentState,
        subject: str,
        description: str,
        metadata: dict[str, Any] | None = None,
    ) -> ToolChunk:
        """Creates a pending task with the next numeric id."""
        ctx = _context(_agent_state, self.name)
        return _chunk(_index_of(ctx).create(ctx.tasks, subject, description, metadata))


class TaskGet(_AgentStateTool, _TaskGet):
    """AgentScope's ``TaskGet`` (same name, schema and results), with O(1) lookup."""

    async def call(self, task_id: str, _agent_state: AgentState) -> ToolChunk:
        """Shows one task's details."""
        ctx = _context(_agent_state, self.name)
        return _chunk(_index_of(ctx).get(ctx.tasks, task_id))


class TaskList(_AgentStateTool, _TaskList):
    """AgentScope's ``TaskList`` (same name, schema and results), rendered in Rust."""

    async def call(self, _agent_state: AgentState) -> ToolChunk:
        """Lists every task in one line each."""
        ctx = _context(_agent_state, self.name)
        return ToolChunk(content=[TextBlock(text=render_task_list(ctx.tasks))])


class TaskUpdate(_AgentStateTool, _TaskUpdate):
    """AgentScope's ``TaskUpdate`` (same name, schema and results for valid calls), refusing
    unknown ids, self-loops and cycles with an ERROR result that changes nothing."""

    async def call(
        self,
        _agent_state: AgentState,
        task_id: str,
        subject: str | None = None,
        description: str | None = None,
        add_blocks: list[str] | None = None,
        status: str | None = None,
        add_blocked_by: list[str] | None = None,
        owner: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> ToolChunk:
        """Updates fields and dependencies of one task, completes or deletes it."""
        ctx = _context(_agent_state, self.name)
        reply = _index_of(ctx).update(
            ctx.tasks, task_id, subject, description, add_blocks, status, add_blocked_by, owner, metadata
        )
        return _chunk(reply)


TASK_TOOLS: tuple[type[TaskCreate], type[TaskGet], type[TaskList], type[TaskUpdate]] = (
    TaskCreate,
    TaskGet,
    TaskList,
    TaskUpdate,
)
"""The four Task tool classes, in AgentScope's order."""
