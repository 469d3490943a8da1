"""Who may write, and who is acting: the admin token and the actor header (the core qualifies it)."""

from __future__ import annotations

import hmac
from collections.abc import Awaitable, Callable

from fastapi import HTTPException, Request, status

from ..._core import qualify_actor
from ...exceptions import InvalidInputError


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
    when it already names an actor kind (``user:alice``, ``lead:ci``), else ``admin:<header>``. 422 when
    the core refuses it."""
    try:
        return qualify_actor(request.headers.get(header), "admin")
    except InvalidInputError as exc:
        raise HTTPException(status_code=status.HTTP_422_UNPROCESSABLE_CONTENT, detail=f"{header}: {exc}") from None
