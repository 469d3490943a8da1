"""Who may write, and who is acting: the admin token and the actor header."""

from __future__ import annotations

import hmac
from collections.abc import Awaitable, Callable

from fastapi import HTTPException, Request, status

MAX_ACTOR_CHARS = 128
"""Longest actor name accepted in the actor header."""


def token_guard(expected: str, header: str) -> Callable[[Request], Awaitable[None]]:
    """A FastAPI dependency refusing requests without the admin token (401) or with a wrong one (403)."""
    expected_bytes = expected.encode()

    async def guard(request: Request) -> None:
        given = request.headers.get(header)
        if not given:
            raise HTTPException(
                status_code=status.HTTP_401_UNAUTHORIZED,
                detail=f"the {header} header is required for this request",
                headers={"WWW-Authenticate": header},
            )
        if not hmac.compare_digest(given.encode(), expected_bytes):
            raise HTTPException(status_code=status.HTTP_403_FORBIDDEN, detail=f"the {header} header is wrong")

    return guard


def actor_from(request: Request, header: str, user_id: str) -> str:
    """The actor named in ``header`` (else ``user:<id>``); 422 when it is too long or has control characters."""
    actor = request.headers.get(header)
    if actor is None:
        return f"user:{user_id}"
    if not actor or len(actor) > MAX_ACTOR_CHARS or not actor.isprintable():
        raise HTTPException(
            status_code=status.HTTP_422_UNPROCESSABLE_CONTENT,
            detail=f"the {header} header must be 1..{MAX_ACTOR_CHARS} printable characters (got {actor[:40]!r})",
        )
    return actor
