"""The request bodies of the admin routes, parsed with one clear 422 message per problem."""

from __future__ import annotations

import json
from typing import Literal, TypeVar

from agentscope.permission import PermissionMode
from fastapi import HTTPException, Request, status
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

Decision = Literal["approve", "approve_with_edits", "request_changes", "reject"]
"""The answers a human can give to a plan awaiting approval."""

M = TypeVar("M", bound=BaseModel)

MAX_BODY_BYTES = 4 * 1024 * 1024
"""Largest request body accepted (an edited plan travels in it)."""


class DecideRequest(BaseModel):
    """``POST .../plan:decide``: the human's answer to the pending ``plan_exit``."""

    model_config = ConfigDict(extra="forbid")

    decision: Decision
    revision: int = Field(ge=1, strict=True)
    feedback: str | None = None
    edited_plan: str | None = None
    next_mode: PermissionMode | None = None

    @model_validator(mode="after")
    def _fields_fit_the_decision(self) -> DecideRequest:
        if self.decision == "approve_with_edits" and not (self.edited_plan or "").strip():
            raise ValueError("approve_with_edits needs a non-empty edited_plan")
        if self.decision != "approve_with_edits" and self.edited_plan is not None:
            raise ValueError(f"edited_plan is only accepted with approve_with_edits (decision is {self.decision!r})")
        if self.decision == "request_changes" and not (self.feedback or "").strip():
            raise ValueError("request_changes needs a non-empty feedback")
        if self.next_mode is not None and self.decision not in ("approve", "approve_with_edits"):
            raise ValueError(f"next_mode only applies to an approval (decision is {self.decision!r})")
        return self


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
