"""Who may write, and who is acting: the admin token and the actor header."""

from __future__ import annotations

import hmac
from collections.abc import Awaitable, Callable

from fastapi import HTTPException, Request, status

from ..._core import check_actor
from ...exceptions import InvalidInputError

ACTOR_KINDS = ("model", "user", "api", "admin", "lead", "policy", "system")
"""The actor kinds plan mode's audit log knows; any other name is qualified as ``admin:<name>``."""

MAX_ACTOR_CHARS = 128
"""Longest actor accepted (after qualification)."""


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


def actor_from(request: Request, header: str) -> str:
    """The audit-log actor for an admin request: ``admin`` when ``header`` is absent, the header as given
    when it already names a kind (``user:alice``, ``lead:ci``), else ``admin:<header>``. 422 when invalid."""
    given = request.headers.get(header)
    if given is None:
        return "admin"
    actor = given if given.split(":", 1)[0] in ACTOR_KINDS else f"admin:{given}"
    if len(actor) > MAX_ACTOR_CHARS or not actor.isprintable():
        raise HTTPException(
            status_code=status.HTTP_422_UNPROCESSABLE_CONTENT,
            detail=f"the {header} header must name an actor of at most {MAX_ACTOR_CHARS} printable characters "
            f"(got {given[:40]!r})",
        )
    try:
        check_actor(actor)
    except InvalidInputError as exc:
        raise HTTPException(status_code=status.HTTP_422_UNPROCESSABLE_CONTENT, detail=f"{header}: {exc}") from None
    return actor
