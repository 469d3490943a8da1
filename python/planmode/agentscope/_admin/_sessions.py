"""Session access as AgentScope's own session routes do it: 404 when missing, 409 while a run holds it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from agentscope.app._bus_ops import enqueue_run_trigger
from agentscope.app.message_bus import MessageBus, MessageBusKeys
from agentscope.app.storage import SessionRecord, StorageBase
from agentscope.event import UserConfirmResultEvent
from fastapi import HTTPException, status

ADMIN_LOCK_TTL_SECS = 60
"""Lease on the session lock while an admin write runs (released as soon as it is done)."""


async def load_session(storage: StorageBase, user_id: str, agent_id: str, session_id: str) -> SessionRecord:
    """The stored session, or 404 naming it (also when it belongs to another agent: storage looks sessions
    up by id alone, so the agent is checked here and a wrong ``agent_id`` changes nothing)."""
    record = await storage.get_session(user_id, agent_id, session_id)
    if record is None or record.agent_id != agent_id:
        raise HTTPException(
            status_code=status.HTTP_404_NOT_FOUND,
            detail=f"Session {session_id!r} not found for agent {agent_id!r}.",
        )
    return record


@asynccontextmanager
async def locked_session(
    storage: StorageBase, bus: MessageBus, user_id: str, agent_id: str, session_id: str
) -> AsyncIterator[SessionRecord]:
    """Holds the session's run lock (non-blocking claim: 409 when a run or another admin write has it),
    then yields the session record read under the lock."""
    await load_session(storage, user_id, agent_id, session_id)
    key = MessageBusKeys.session_lock(session_id)
    if not await bus.try_lock(key, ttl_secs=ADMIN_LOCK_TTL_SECS):
        raise HTTPException(
            status_code=status.HTTP_409_CONFLICT,
            detail=f"Session {session_id!r} is busy: a run (or another admin request) holds it; try again later.",
        )
    try:
        yield await load_session(storage, user_id, agent_id, session_id)
    finally:
        await bus.unlock(key)


async def save_state(storage: StorageBase, user_id: str, agent_id: str, record: SessionRecord) -> None:
    """Persists the record's agent state (call it while holding :func:`locked_session`)."""
    await storage.update_session_state(
        user_id=user_id, agent_id=agent_id, session_id=record.id, state=record.state
    )


async def resume(
    bus: MessageBus,
    user_id: str,
    agent_id: str,
    session_id: str,
    event: UserConfirmResultEvent,
) -> None:
    """Resumes the parked reply through the run-trigger queue exactly as ``POST /chat/`` does with a
    ``UserConfirmResultEvent``; whichever node's dispatcher is alive runs it."""
    await enqueue_run_trigger(
        bus,
        user_id=user_id,
        session_id=session_id,
        agent_id=agent_id,
        kind=MessageBusKeys.WAKEUP_KIND_RESUME,
        inputs=event,
    )
