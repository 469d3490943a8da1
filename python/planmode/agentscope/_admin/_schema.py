"""The request bodies of the admin routes, parsed with one clear 422 message per problem, and the response
models that document each route in the app's OpenAPI schema."""

from __future__ import annotations

import json
from typing import Annotated, Any, TypeVar

from fastapi import HTTPException, Request, status
from pydantic import BaseModel, ConfigDict, Field, ValidationError, WithJsonSchema

M = TypeVar("M", bound=BaseModel)

MAX_BODY_BYTES = 4 * 1024 * 1024
"""Largest request body accepted (an edited plan travels in it)."""


class GrantRequest(BaseModel):
    """An allow rule handed out with an approval (``Bash`` + ``npm test*``; no content: the whole tool)."""

    model_config = ConfigDict(extra="forbid")

    tool_name: str
    rule_content: str | None = None


_SCOPE_LISTS = {
    "type": "object",
    "properties": {
        "paths": {"type": "array", "items": {"type": "string"}, "description": "Path globs, workspace-relative."},
        "commands": {"type": "array", "items": {"type": "string"}, "description": "Shell command patterns."},
    },
    "additionalProperties": False,
}

ScopeField = Annotated[
    Any,
    WithJsonSchema({"anyOf": [_SCOPE_LISTS, {"enum": ["declared", "none"]}, {"type": "null"}]}),
]
"""The scope chosen with an approval: ``{paths, commands}`` replaces the declared scope, ``"none"`` removes it,
``"declared"`` or null keeps it. The plan core validates it (422 naming the problem)."""


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
    scope: ScopeField = None


class ScopeView(BaseModel):
    """A plan scope: path globs and command patterns."""

    paths: list[str]
    commands: list[str]


class PlanView(BaseModel):
    """``GET .../plan``: a session's plan-mode status (``plan_status``), its tasks, the last audit entries, this
    node's plan file (``disk``) and what the review compares. Further fields may be added."""

    model_config = ConfigDict(extra="allow")

    session_id: str
    agent_id: str
    running: bool
    outcome: str
    phase: str
    active: bool
    awaiting_approval: bool
    revision: int | None
    sha256: str | None
    plan_path: str | None
    plan_content: str | None
    approved_revision: int | None
    exited_by: str | None
    pending: dict[str, Any] | None
    todos: list[dict[str, Any]]
    audit: list[dict[str, Any]]
    revisions: list[dict[str, Any]]
    grants: list[dict[str, Any]]
    plan_relpath: str | None
    decision_in_flight: dict[str, Any] | None
    trimmed: dict[str, int]
    steps: list[dict[str, Any]]
    step_changes: list[dict[str, Any]] | None
    shell_protection: str
    shell_sandbox_abi: int | None
    scope: ScopeView | None = Field(description="The scope the latest revision declares.")
    approved_scope: ScopeView | None = Field(description="The scope the build phase is held to.")
    progress: list[dict[str, Any]] = Field(description="Approved steps with pending / in_progress / completed.")
    review_base: int | None = Field(description="The revision the review compares the latest one with.")
    review_changes: list[dict[str, Any]] | None = Field(
        description="Per-step diff from review_base: {id, change, text, old_text, moved}; None when not comparable."
    )
    tasks: list[dict[str, Any]]
    disk: dict[str, Any] | None


class RestoreView(PlanView):
    """``POST .../plan:restore-file``: the plan view and whether the file was written."""

    restored: bool


class DecisionAccepted(BaseModel):
    """``POST .../plan:decide`` (202): the accepted answer; the parked reply is resuming."""

    status: str
    session_id: str
    reply_id: str
    tool_call_id: str
    revision: int | None
    sha256: str | None
    decision: str
    actor: str
    at: str
    expires_unix: int
    scope: ScopeView | str | None = Field(description="The scope chosen with the approval, or None (declared).")


class ErrorDetail(BaseModel):
    """A refusal: what is wrong and how to fix it (a list of problems for a malformed query or path)."""

    detail: str | list[dict[str, Any]]


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
