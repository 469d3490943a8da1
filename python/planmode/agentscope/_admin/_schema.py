"""The request bodies of the admin routes, parsed with one clear 422 message per problem."""

from __future__ import annotations

import json
from typing import TypeVar

from fastapi import HTTPException, Request, status
from pydantic import BaseModel, ConfigDict, Field, ValidationError

M = TypeVar("M", bound=BaseModel)

MAX_BODY_BYTES = 4 * 1024 * 1024
"""Largest request body accepted (an edited plan travels in it)."""


class GrantRequest(BaseModel):
    """An allow rule handed out with an approval (``Bash`` + ``npm test*``; no content: the whole tool)."""

    model_config = ConfigDict(extra="forbid")

    tool_name: str
    rule_content: str | None = None


class DecideRequest(BaseModel):
    """``POST .../plan:decide``: the human's answer to the pending ``plan_exit``. Only the shape is checked
    here; what each decision requires is the plan core's rule (its refusals are 422 / 409)."""

    model_config = ConfigDict(extra="forbid")

    decision: str
    revision: int = Field(ge=1, strict=True)
    feedback: str | None = None
    edited_plan: str | None = None
    next_mode: str | None = None
    grants: list[GrantRequest] | None = None


def _describe(error: ValidationError) -> str:
    problems = []
    for item in error.errors():
        where = ".".join(str(part) for part in item["loc"]) or "body"
        problems.append(f"{where}: {item['msg']}")
    return "; ".join(problems)


async def parse_body(request: Request, model: type[M]) -> M:
    """Reads a JSON object body into ``model``, answering 422 with a readable message when it does not fit."""
    raw = await request.body()
    if len(raw) > MAX_BODY_BYTES:
        raise HTTPException(
            status_code=status.HTTP_413_CONTENT_TOO_LARGE,
            detail=f"request body is {len(raw)} bytes; the limit is {MAX_BODY_BYTES}",
        )
    try:
        data = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise HTTPException(
            status_code=status.HTTP_422_UNPROCESSABLE_CONTENT, detail=f"body is not valid JSON: {exc}"
        ) from None
    if not isinstance(data, dict):
        raise HTTPException(
            status_code=status.HTTP_422_UNPROCESSABLE_CONTENT,
            detail=f"body must be a JSON object, got {type(data).__name__}",
        )
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise HTTPException(status_code=status.HTTP_422_UNPROCESSABLE_CONTENT, detail=_describe(exc)) from None
