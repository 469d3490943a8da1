"""Glue for ``planmode._core.run_sandboxed``: completing its asyncio future on the loop's own
thread, and stopping deliveries at interpreter exit (before finalization, so no tokio thread
attaches to a finalizing interpreter)."""

from __future__ import annotations

import asyncio
import atexit
import contextlib
from typing import Any

from ._core import sandbox_shutdown


def _settle(future: asyncio.Future[Any], ok: bool, value: Any) -> None:
    if future.done():  # cancelled meanwhile
        return
    if ok:
        future.set_result(value)
    else:
        future.set_exception(value)


def deliver(future: asyncio.Future[Any], ok: bool, value: Any) -> None:
    """Called from a tokio thread: schedules the result (or exception) on the future's loop;
    a loop that is already closed has nobody waiting."""
    with contextlib.suppress(RuntimeError):  # RuntimeError: the event loop is closed
        future.get_loop().call_soon_threadsafe(_settle, future, ok, value)


atexit.register(sandbox_shutdown)
