"""The model-facing tools: plan_enter, plan_write, plan_exit and todo_write."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from agentscope.message import TextBlock, ToolResultState
from agentscope.permission import PermissionBehavior, PermissionContext, PermissionDecision, PermissionRule
from agentscope.state import AgentState
from agentscope.tool import ToolBase, ToolChunk

from ..._core import PlanBook, render_plan
from ...exceptions import PlanModeError
from .._tasks import TASK_TOOLS
from . import _grants, _lifecycle, _mode_audit, _state, _texts
from ._texts import ANSWER_KEY

if TYPE_CHECKING:
    from ._host import PlanHost


def _chunk(text: str, state: ToolResultState = ToolResultState.SUCCESS,
           **metadata: Any) -> ToolChunk:
    return ToolChunk(content=[TextBlock(text=text)], state=state, metadata=metadata)


def _error(text: str) -> ToolChunk:
    return _chunk(f"Error: {text}", ToolResultState.ERROR)


def summary_of(summary: Any) -> str | None:
    """The summary as the gate records it (a blank or non-string one is no summary)."""
    return summary if isinstance(summary, str) and summary.strip() else None


class _PlanTool(ToolBase):
    """Common ground: state-injected, sequential, bound to one ``PlanMode``."""

    is_concurrency_safe = False
    is_read_only = False
    is_state_injected = True
    #: Whether using the tool gives the agent its plan path (plan tools do, todo_write not).
    assigns_plan_path = True

    def __init__(self, plan: PlanHost) -> None:
        super().__init__()
        self.plan = plan

    async def check_permissions(self, tool_input: dict[str, Any],
                                context: PermissionContext) -> PermissionDecision:
        """Plan tools touch only plan-mode state and the plan file; the middleware gates them."""
        return PermissionDecision(behavior=PermissionBehavior.ALLOW,
                                  message=f"{self.name} is a plan-mode tool.")

    def _ungated(self, state: Any) -> ToolChunk | None:
        """An ERROR result when no plan-mode gate of this PlanMode serves the agent: plan mode
        would then be recorded in state but enforced by nothing."""
        if isinstance(state, AgentState) and self.plan.is_gated(state):
            return None
        return _error(_texts.UNGATED.format(tool=self.name))

    def plan_file_follows(self, book: PlanBook) -> str:
        """Brings the plan file in line with ``book`` (the caller stores it after): the todos' progress
        while building after an approval (a human edit is left alone), the plain latest revision
        otherwise. Returns what to tell the model ('' or a note)."""
        outcome: dict[str, Any] | None = None
        error: str | None = None
        try:
            if book.phase == "building":
                outcome = book.mirror_progress(self.plan.files.workspace)
            else:
                book.restore_file(self.plan.files.workspace, audit=False)
        except (PlanModeError, OSError) as exc:
            error = str(exc)
        return _texts.mirrored(self.plan.files.abs_path(book), outcome, error) if book.plan_path else ""

    def _book(self, state: AgentState) -> PlanBook:
        if not isinstance(state, AgentState):
            raise PlanModeError(f"{self.name} needs the agent state (is_state_injected)")
        return self.plan.files.bind(state, "agent", restore=True, assign=self.assigns_plan_path)


class PlanEnter(_PlanTool):
    """``plan_enter``: enter read-only plan mode (no human gate on entry)."""

    name = _texts.PLAN_ENTER
    description = _texts.ENTER_DESCRIPTION
    input_schema: dict[str, Any] = {"type": "object", "properties": {}}

    async def call(self, _agent_state: AgentState) -> ToolChunk:
        """Enters plan mode; re-entry keeps the plan and its revisions."""
        if (refused := self._ungated(_agent_state)) is not None:
            return refused
        book = self._book(_agent_state)
        how = _lifecycle.enter(_agent_state, book, "model")
        if how == "reentered":
            self.plan_file_follows(book)  # mirroring ends with the plan (no state change)
        return _chunk(_texts.entered(self.plan.files.abs_path(book), how, book.revision), phase=book.phase)


class PlanWrite(_PlanTool):
    """``plan_write(content?, steps?, risks?, prerequisites?, verification?, scope?)``: replace the
    one plan file atomically (plan mode only). With structured fields the core renders the file
    (``content`` is then the preamble); bad input is an ERROR naming the field, and nothing is
    written."""

    name = _texts.PLAN_WRITE
    description = _texts.WRITE_DESCRIPTION
    input_schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "content": {"type": "string", "description": (
                "The full markdown plan; with structured fields, an optional preamble (goal, context) "
                "without steps or sections of its own.")},
            "steps": {"type": "array", "description": "The plan's steps, in order.", "items": {
                "type": "object",
                "properties": {
                    "description": {"type": "string", "description": "What the step does (one line)."},
                    "id": {"type": "string", "description": (
                        "Optional stable id (a lowercase letter, then lowercase letters, digits, - or _; "
                        "at most 32), kept across revisions. Without one the step gets s1, s2, ...")},
                    "files": {"type": "array", "items": {"type": "string"}, "description": (
                        "Optional workspace-relative paths or globs it touches (they join the scope).")},
                    "action": {"type": "string", "description": "Optional kind of change (edit, create...)."},
                },
                "required": ["description"],
            }},
            "risks": {"type": "array", "items": {"type": "string"}, "description": "What could go wrong."},
            "prerequisites": {"type": "array", "items": {"type": "string"},
                              "description": "What must hold before building."},
            "verification": {"type": "array", "items": {"type": "string"},
                             "description": "How the result will be checked."},
            "scope": {"type": "object", "description": "What the build may touch besides the steps' files.",
                      "properties": {
                          "paths": {"type": "array", "items": {"type": "string"},
                                    "description": "Workspace-relative path globs (** crosses directories)."},
                          "commands": {"type": "array", "items": {"type": "string"},
                                       "description": "Shell command patterns (* matches anything)."}}},
        },
    }

    async def call(self, _agent_state: AgentState, **fields: Any) -> ToolChunk:
        """Records a new revision and writes the plan file; refuses outside plan mode."""
        if (refused := self._ungated(_agent_state)) is not None:
            return refused
        work = self._book(_agent_state)
        try:
            text = render_plan(fields, self.plan.config.max_plan_bytes)
            human = self._keep_human_edit(work) if work.phase == "planning" else None
            result = work.write(text)
            self.plan.files.write_plan_file(work, text)
        except (PlanModeError, OSError) as exc:
            return _error(str(exc))
        _state.save(_agent_state, work)
        return _chunk(_texts.saved(self.plan.files.abs_path(work), result, human),
                      revision=result["revision"], sha256=result["sha256"])

    def _keep_human_edit(self, book: PlanBook) -> int | None:
        """Keeps a human edit of the file (text no revision has) as its own revision."""
        try:
            return book.sync_file(self.plan.files.workspace)
        except PlanModeError:
            return None


class PlanExit(_PlanTool):
    """``plan_exit(summary?)``: ask the human to approve the plan.

    The middleware parks the call on AgentScope's ``RequireUserConfirmEvent``; when the human
    answers (``answer_plan`` or a plain ``ConfirmResult``) this tool applies the decision and
    tells the model the outcome, feedback verbatim.
    """

    name = _texts.PLAN_EXIT
    description = _texts.EXIT_DESCRIPTION
    input_schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "summary": {
                "type": "string",
                "description": "Optional short summary of the plan for the user to approve.",
            }
        },
    }

    async def check_permissions(self, tool_input: dict[str, Any],
                                context: PermissionContext) -> PermissionDecision:
        """Always a human question (the middleware also forces it in every mode)."""
        return PermissionDecision(behavior=PermissionBehavior.ASK, bypass_immune=True,
                                  message="Approve the plan to leave PLAN mode.")

    async def generate_suggestions(self, tool_input: dict[str, Any]) -> list[PermissionRule]:
        """No 'always allow' for plan approval."""
        return []

    async def call(self, _agent_state: AgentState, summary: Any = None,
                   **answer_arg: Any) -> ToolChunk:
        """Applies the accepted answer of the parked call (recorded in state when the human's
        confirmation arrived; the call's own input carries no authority)."""
        if (refused := self._ungated(_agent_state)) is not None:
            return refused
        book = self._book(_agent_state)
        extra = set(answer_arg) - {ANSWER_KEY}
        if extra:
            return _error(_texts.PLAN_EXIT_ARGS.format(keys=", ".join(sorted(extra))))
        if book.phase != "awaiting_approval":  # the gate let it through to report why
            try:
                book.check_exit()
            except PlanModeError as exc:
                return _error(str(exc))
            try:
                book.copy().request_exit(_agent_state.reply_id, "plan_exit", summary_of(summary))
            except PlanModeError as exc:
                return _error(_texts.SUMMARY_REFUSED.format(why=exc))
            return _error("plan_exit was not routed through the plan-mode middleware; add "
                          "plan.middleware() FIRST in the agent's middlewares.")
        return self._apply(_agent_state, book)

    def _scope_note(self, book: PlanBook) -> str | None:
        """What the model is told about the approved scope (None when none is enforced)."""
        scope = book.approved_scope()
        if scope is None or self.plan.config.scope_enforcement == "off":
            return None
        chosen = scope != book.declared_scope(book.approved_revision)
        return _texts.scope_note(scope["paths"], scope["commands"], chosen)

    def _apply(self, state: AgentState, book: PlanBook) -> ToolChunk:
        pending: Mapping[str, Any] = book.pending or {}
        work = book.copy()
        file_text: str | None = None
        d: dict[str, Any]
        try:
            if pending.get("auto"):
                d = {**work.decide("approve", "policy",
                                   feedback="Approved automatically (auto_approve_in_bypass under BYPASS)."),
                     "actor": "policy", "grants": []}
            else:
                claim = pending.get("claim") or {}
                # Bound to a reviewed revision: the file is not consulted (see apply_claim).
                file_text = None if claim.get("revision") else work.human_edit(self.plan.files.workspace)
                d = dict(work.apply_claim(pending.get("tool_call_id", ""), file_text))
            work.restore_file(self.plan.files.workspace, audit=False)
            approved_text = work.plan_content
            # An edit on this node's disk that the bound decision did not review: never written over,
            # never approved, recorded (and audited) as a user-edited revision after the decision.
            unreviewed = work.sync_file(self.plan.files.workspace, "user") if file_text is None else None
        except (PlanModeError, OSError, TypeError, ValueError, OverflowError) as exc:
            book.cancel_pending("system", f"answer not applied: {exc}")
            _state.save(state, book)
            return _error(_texts.answer_failed(str(exc)))
        actor = str(d["actor"])
        path = self.plan.files.abs_path(work)
        meta: dict[str, Any] = {"decision": d["decision"], "revision": d["revision"], "sha256": d["sha256"]}
        if d["decision"] not in ("approve", "approve_with_edits"):
            _state.save(state, work)
            return _chunk(_texts.not_approved(path, d, actor, unreviewed), ToolResultState.DENIED, **meta)
        seeded = self.plan.config.seed_todos_on_approval and work.seed_todos_from_plan()
        self.plan_file_follows(work)
        _state.save(state, work)
        _grants.add_grants(state, work.grants)
        if d["next_mode"]:
            _mode_audit.apply_mode(state, d["next_mode"], actor)
        text = _texts.approved(path, d, actor, approved_text, d["next_mode"], seeded, work.grants, unreviewed,
                               self._scope_note(work))
        return _chunk(text, **meta)


class TodoWrite(_PlanTool):
    """``todo_write(todos)``: replace the whole todo list (validated; exactly one in_progress)."""

    name = _texts.TODO_WRITE
    description = _texts.TODO_DESCRIPTION
    assigns_plan_path = False
    input_schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "todos": {
                "type": "array",
                "description": "The complete todo list (replaces the previous one).",
                "items": {
                    "type": "object",
                    "properties": {
                        "content": {"type": "string", "description": "What to do."},
                        "status": {"type": "string",
                                   "description": "pending, in_progress or completed."},
                        "priority": {"type": "string", "description": "Optional: high, medium or low."},
                        "step_id": {"type": "string",
                                    "description": "Optional: the plan step it carries out (e.g. s2)."},
                    },
                    "required": ["content", "status"],
                },
            }
        },
        "required": ["todos"],
    }

    async def check_read_only(self, tool_input: dict[str, Any]) -> bool:
        """The todo list lives in agent state only; it changes nothing in the workspace."""
        return True

    async def call(self, _agent_state: AgentState, todos: Any = None) -> ToolChunk:
        """Validates and stores the list; errors name the offending item."""
        if (refused := self._ungated(_agent_state)) is not None:
            return refused
        book = self._book(_agent_state)
        try:
            stored = book.set_todos(todos)
        except PlanModeError as exc:
            return _error(str(exc))
        note = self.plan_file_follows(book) if book.phase == "building" else ""
        _state.save(_agent_state, book)
        return _chunk(_texts.todo_summary(stored) + note)


def plan_tools(plan: PlanHost) -> list[ToolBase]:
    """plan_enter, plan_write, plan_exit, todo_write bound to ``plan``, and planmode's four
    Task tools (what ``PlanMode.tools()`` and the middleware's ``list_tools`` hand out)."""
    return [PlanEnter(plan), PlanWrite(plan), PlanExit(plan), TodoWrite(plan), *(cls() for cls in TASK_TOOLS)]
