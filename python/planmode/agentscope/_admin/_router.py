"""``admin_router``: the plan-mode admin API and review page, mounted on AgentScope's app."""

from __future__ import annotations

import os
from importlib import resources
from typing import Any
from urllib.parse import quote

from agentscope.app.deps import get_current_user_id, get_message_bus, get_storage
from agentscope.app.message_bus import MessageBus, MessageBusKeys
from agentscope.app.storage import SessionRecord, StorageBase
from fastapi import APIRouter, Depends, HTTPException, Query, Request, Response, status
from fastapi.responses import HTMLResponse

from ..._core import PlanWorkspace
from ...exceptions import PlanModeError, PlanStateError
from .._plan import _decision, _state, enter_plan_mode, exit_plan_mode
from ._auth import actor_from, token_guard
from ._review import CSP, render_page
from ._schema import DecideRequest, DecisionAccepted, ErrorDetail, PlanView, RestoreView, parse_body
from ._sessions import load_session, locked_session, resume, save_state
from ._view import disk_view, plan_view, previous_plan_content

TOKEN_ENV = "PLANMODE_ADMIN_TOKEN"
"""Environment variable read for the admin token when ``admin_router(token=None)``."""

_STATIC = {"review.js": "text/javascript", "review.css": "text/css"}
def _errors(*codes: int) -> dict[int | str, dict[str, Any]]:
    """The refusals a route documents (each an ``ErrorDetail``)."""
    why = {401: "No admin token", 403: "Wrong admin token", 404: "No such session",
           409: "State conflict: not the pending revision, another decision in flight, an unreviewed edit, a busy session",
           422: "Invalid input"}  # fmt: skip
    return {code: {"model": ErrorDetail, "description": why[code]} for code in codes}


_WRITE_ERRORS = _errors(401, 403, 409)
"""What a write route may answer besides the refusals every route documents."""
_PAGE_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


def _conflict(detail: str) -> HTTPException:
    return HTTPException(status_code=status.HTTP_409_CONFLICT, detail=detail)


def _refusal(exc: PlanModeError) -> HTTPException:
    """The plan core's refusal as HTTP: a state conflict is 409, anything else it refuses is 422."""
    if isinstance(exc, PlanStateError):
        return _conflict(str(exc))
    return HTTPException(status_code=status.HTTP_422_UNPROCESSABLE_CONTENT, detail=str(exc))


def admin_router(
    token: str | None = None,
    *,
    prefix: str = "/v1/admin",
    token_header: str = "X-Admin-Token",
    actor_header: str = "X-Actor",
    audit_limit: int = 20,
    decision_lease_secs: int = _decision.DEFAULT_LEASE_SECS,
) -> APIRouter:
    """The admin API for plan mode on AgentScope's app: ``app.include_router(admin_router(token))``.

    Reads need the caller's ``X-User-ID`` (as every AgentScope route); writes also need ``token``
    (default: the ``PLANMODE_ADMIN_TOKEN`` environment variable) in ``token_header``: 401 when it is
    missing, 403 when wrong. The actor recorded in the audit log comes from ``actor_header``.
    Sessions are addressed as AgentScope addresses them: ``{session_id}`` plus ``?agent_id=``.
    A decision accepted (202) but not applied within ``decision_lease_secs`` (the resuming node died)
    no longer blocks a new decision or a forced exit. GET routes never write.
    """
    token = token if token is not None else os.environ.get(TOKEN_ENV)
    if not token:
        raise ValueError(f"admin_router needs an admin token: pass token=... or set {TOKEN_ENV}")
    if audit_limit < 0:
        raise ValueError(f"audit_limit must be >= 0, got {audit_limit}")
    if not 1 <= decision_lease_secs <= 86_400:
        raise ValueError(f"decision_lease_secs must be between 1 and 86400, got {decision_lease_secs}")
    router = APIRouter(prefix=prefix, tags=["planmode-admin"], responses=_errors(404, 422))
    guard = Depends(token_guard(token, token_header))
    agent_query = Query(description="Agent the session belongs to.")

    async def workdir_of(request: Request, record: SessionRecord, user_id: str, agent_id: str) -> str:
        workspace = await request.app.state.workspace_manager.get_workspace(
            user_id, agent_id, record.id, record.config.workspace_id
        )
        return str(workspace.workdir)

    async def view_of(request: Request, record: SessionRecord, user_id: str, agent_id: str) -> dict[str, Any]:
        bus: MessageBus = request.app.state.message_bus
        running = await bus.is_locked(MessageBusKeys.session_lock(record.id))
        view = plan_view(
            record.state, session_id=record.id, agent_id=agent_id, running=running, audit_limit=audit_limit
        )
        view["disk"] = disk_view(record.state, await workdir_of(request, record, user_id, agent_id))
        return view

    @router.get("/sessions/{session_id}/plan", response_model=PlanView, summary="Plan-mode status of a session")
    async def get_plan(
        session_id: str,
        request: Request,
        agent_id: str = agent_query,
        user_id: str = Depends(get_current_user_id),
        storage: StorageBase = Depends(get_storage),
    ) -> dict[str, Any]:
        """Phase, active flag, plan path/content, revision and sha256, pending approval and the decision in
        flight, todos, tasks, the last audit entries, what was trimmed, and this node's plan file (``disk``).
        Read only: nothing is restored or recorded."""
        record = await load_session(storage, user_id, agent_id, session_id)
        return await view_of(request, record, user_id, agent_id)

    async def switch(request: Request, session_id: str, agent_id: str, user_id: str, enter: bool) -> dict[str, Any]:
        actor = actor_from(request, actor_header)
        storage: StorageBase = request.app.state.storage
        bus: MessageBus = request.app.state.message_bus
        async with locked_session(storage, bus, user_id, agent_id, session_id) as record:
            try:
                # exit_plan_mode also closes a parked plan_exit call, so the session takes new messages;
                # the core refuses it while an accepted decision is being applied.
                (enter_plan_mode if enter else exit_plan_mode)(record.state, actor=actor)
            except PlanModeError as exc:
                raise _refusal(exc) from None
            await save_state(storage, user_id, agent_id, record)
        return await view_of(request, record, user_id, agent_id)

    @router.post(
        "/sessions/{session_id}:enter-plan-mode", dependencies=[guard], responses=_WRITE_ERRORS, response_model=PlanView,
        summary="Enter plan mode",
    )  # fmt: skip
    async def enter(
        session_id: str, request: Request, agent_id: str = agent_query, user_id: str = Depends(get_current_user_id)
    ) -> dict[str, Any]:
        """Puts the session in plan mode (read-only planning) and records the actor in the audit log."""
        return await switch(request, session_id, agent_id, user_id, enter=True)

    @router.post(
        "/sessions/{session_id}:exit-plan-mode", dependencies=[guard], responses=_WRITE_ERRORS, response_model=PlanView,
        summary="Exit plan mode",
    )  # fmt: skip
    async def exit_(
        session_id: str, request: Request, agent_id: str = agent_query, user_id: str = Depends(get_current_user_id)
    ) -> dict[str, Any]:
        """Leaves plan mode without a human gate; a pending approval is cancelled and its parked reply closed."""
        return await switch(request, session_id, agent_id, user_id, enter=False)

    @router.post(
        "/sessions/{session_id}/plan:restore-file", dependencies=[guard], responses=_WRITE_ERRORS, response_model=RestoreView,
        summary="Restore the plan file",
    )  # fmt: skip
    async def restore_file(
        session_id: str, request: Request, agent_id: str = agent_query, user_id: str = Depends(get_current_user_id)
    ) -> dict[str, Any]:
        """Writes the latest revision into this node's plan file when it is missing or a stale copy of an older
        revision (never over a human edit; audited). The agent does the same whenever it runs on a node."""
        storage: StorageBase = request.app.state.storage
        bus: MessageBus = request.app.state.message_bus
        async with locked_session(storage, bus, user_id, agent_id, session_id) as record:
            book = _state.load(record.state)
            try:
                wrote = book.restore_file(PlanWorkspace(await workdir_of(request, record, user_id, agent_id)))
            except PlanModeError as exc:
                raise _refusal(exc) from None
            if wrote:
                _state.save(record.state, book)
                await save_state(storage, user_id, agent_id, record)
        return {**await view_of(request, record, user_id, agent_id), "restored": wrote}

    @router.post(
        "/sessions/{session_id}/plan:decide",
        dependencies=[guard],
        status_code=status.HTTP_202_ACCEPTED,
        response_model=DecisionAccepted,
        responses=_WRITE_ERRORS,
        summary="Answer the plan awaiting approval",
    )
    async def decide(
        session_id: str,
        request: Request,
        agent_id: str = agent_query,
        user_id: str = Depends(get_current_user_id),
        storage: StorageBase = Depends(get_storage),
        bus: MessageBus = Depends(get_message_bus),
    ) -> dict[str, Any]:
        """Answers the pending ``plan_exit`` and resumes the parked reply through AgentScope's confirmation
        path. Under the session lock: a human edit of this node's plan file is recorded as a new revision
        (409 naming it: review it first); then the plan core judges the answer (422 malformed, 409 not the
        pending revision or another decision in flight) and records it in state, with everything the
        resuming node needs; then the resume is queued. An approval may carry ``scope`` — ``{paths, commands}``
        or ``"none"`` — replacing the plan's declared scope for the build phase."""
        body = await parse_body(request, DecideRequest)
        actor = actor_from(request, actor_header)
        async with locked_session(storage, bus, user_id, agent_id, session_id) as record:
            book = _state.load(record.state)
            workdir = await workdir_of(request, record, user_id, agent_id)
            try:  # only an edit of a plan awaiting approval is one to review now
                edited = book.sync_file(PlanWorkspace(workdir), "user") if book.phase == "awaiting_approval" else None
            except PlanModeError as exc:  # a symlinked, hard-linked or unreadable plan file: fix it first
                raise _refusal(exc) from None
            except OSError as exc:
                raise HTTPException(status_code=status.HTTP_422_UNPROCESSABLE_CONTENT, detail=str(exc)) from None
            if edited is not None:
                _state.save(record.state, book)
                await save_state(storage, user_id, agent_id, record)
                raise _conflict(
                    f"the plan file on this node was edited since revision {body.revision}: the edit is recorded "
                    f"as revision {edited}; review revision {edited} and decide again"
                )
            grants = [g.model_dump() for g in body.grants] if body.grants is not None else None
            try:
                claim = book.claim(
                    body.decision, actor, channel="admin", feedback=body.feedback, edited_plan=body.edited_plan,
                    revision=body.revision, next_mode=body.next_mode, grants=grants, scope=body.scope,
                    lease_secs=decision_lease_secs,
                )  # fmt: skip
                event = _decision.confirm_event(record.state, book)
            except PlanModeError as exc:
                raise _refusal(exc) from None
            _state.save(record.state, book)
            await save_state(storage, user_id, agent_id, record)
            await resume(bus, user_id, agent_id, session_id, event)
        return {
            "status": "resuming", "session_id": session_id, "reply_id": event.reply_id,
            "tool_call_id": event.confirm_results[0].tool_call.id, "revision": claim["revision"],
            "sha256": claim["sha256"], "decision": claim["decision"], "actor": claim["actor"], "at": claim["at"],
            "expires_unix": claim["expires_unix"], "scope": claim.get("scope"),
        }  # fmt: skip

    @router.get(
        "/sessions/{session_id}/plan/review", response_class=HTMLResponse, summary="Plan review page",
        responses={200: {"content": {"text/html": {"schema": {"type": "string"}}}, "description": "The page"}},
    )  # fmt: skip
    async def review(
        session_id: str,
        request: Request,
        agent_id: str = agent_query,
        user_id: str = Query(description="The session owner's user id (a browser cannot send X-User-ID)."),
        storage: StorageBase = Depends(get_storage),
    ) -> HTMLResponse:
        """The plan rendered from Markdown, the diff against the previous revision, todos, task graph, audit
        trail and the decision buttons. Self-contained: no external asset, strict CSP."""
        record = await load_session(storage, user_id, agent_id, session_id)
        view = await view_of(request, record, user_id, agent_id)
        root = request.scope.get("root_path", "") + prefix
        session_url = f"{root}/sessions/{quote(session_id, safe='')}"
        agent_param = f"agent_id={quote(agent_id, safe='')}"
        page = render_page(
            view,
            previous_content=previous_plan_content(record.state),
            decide_url=f"{session_url}/plan:decide?{agent_param}",
            static_url=f"{root}/static",
            user_id=user_id,
            status_url=f"{session_url}/plan?{agent_param}",
        )
        return HTMLResponse(page, headers=_PAGE_HEADERS)

    @router.get("/static/{name}", include_in_schema=False)
    async def static(name: str) -> Response:
        """The review page's script and stylesheet, shipped in the wheel."""
        if name not in _STATIC:
            raise HTTPException(status_code=status.HTTP_404_NOT_FOUND, detail=f"no static file {name!r}")
        data = resources.files(__package__).joinpath("static", name).read_bytes()
        return Response(data, media_type=_STATIC[name], headers={"X-Content-Type-Options": "nosniff"})

    return router
