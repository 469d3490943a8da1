"""``PlanModeMiddleware``: the plan-mode gate (``on_check_permission``), the approval hook
(``on_reply``) and the notes that show the model where it stands (``on_reasoning``).

It must be the FIRST middleware of the agent: its gate runs before every other permission
middleware, before allow rules and before BYPASS, so no rule or mode lets a write through.
"""

from __future__ import annotations

import weakref
from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import TYPE_CHECKING, Any, Literal

from agentscope.event import HintBlockEvent, UserConfirmResultEvent, UserInterruptEvent
from agentscope.message import HintBlock, TextBlock, ToolCallState, ToolResultBlock, ToolResultState
from agentscope.middleware import MiddlewareBase
from agentscope.permission import PermissionBehavior, PermissionDecision, PermissionMode
from agentscope.tool import ToolBase

from ..._core import PlanBook
from ...exceptions import PlanModeError
from .._toolkit_check import check_toolkit
from . import _decision, _identity as kinds, _parked, _state, _texts
from ._sandbox_shell import forget_shell_decision, planning_shell_verdict
from ._scope import scope_decision, settle_scope_answers
from ._texts import (
    PLAN_ENTER,
    PLAN_EXIT,
    PLAN_TOOL_NAMES,
    PLAN_WRITE,
    TODO_WRITE,
)
from ._tools import plan_tools, summary_of

if TYPE_CHECKING:
    from agentscope.agent import Agent

    from ..._core import _Todo
    from ._config import SubagentPolicy
    from ._host import PlanHost

Verdict = Literal["allow", "delegate", "deny", "parent_unknown"]


def _allow(why: str) -> PermissionDecision:
    return PermissionDecision(behavior=PermissionBehavior.ALLOW, message=why)


def _deny(text: str) -> PermissionDecision:
    return PermissionDecision(behavior=PermissionBehavior.DENY, message=text)


class PlanModeMiddleware(MiddlewareBase):
    """Enforces read-only planning, asks a human at ``plan_exit`` and keeps the model
    informed. Create it with ``PlanMode.middleware()`` (or ``PlanMode.attach_child``)."""

    #: The denial text when the parent's phase cannot be known.
    parent_unknown_text = _texts.PARENT_UNKNOWN

    def __init__(self, plan: PlanHost, *, parent: Agent | None = None,
                 policy: SubagentPolicy | None = None, plan_tools: bool = True) -> None:
        self.plan = plan
        self.is_child = policy is not None
        self.policy = policy
        self.plan_tools = plan_tools
        self._parent = weakref.ref(parent) if parent is not None else None
        #: How this gate recognises tools (by identity, never by name).
        self.identity = kinds.ToolIdentity(plan)

    def __repr__(self) -> str:
        role = f"child, policy={self.policy!r}, plan_tools={self.plan_tools}" if self.is_child else "main"
        return f"PlanModeMiddleware({role})"

    async def list_tools(self) -> list[ToolBase]:
        """The plan tools, for AgentScope's app (which registers middleware tools itself);
        an attached child's middleware provides none."""
        return [] if self.is_child else plan_tools(self.plan)

    async def get_middleware_key(self) -> str:
        """The ``middle_context`` key of plan-mode state."""
        return _state.STATE_KEY

    # ---- shared helpers ----------------------------------------------------------------

    def _book(self, agent: Agent, *, restore: bool = False, assign: bool = False) -> PlanBook:
        if not self.is_child:
            self.plan.note_primary(agent)
        return self.plan.files.bind(agent.state, agent.name, child=self.is_child, restore=restore, assign=assign)

    def _active(self, agent: Agent) -> bool:
        """Whether ``agent`` plans now (cheap: reads only the stored phase when it can)."""
        if _state.STATE_KEY not in agent.state.middle_context:
            return False  # plan mode never used
        phase = _state.peek_phase(agent.state) or self._book(agent).phase
        return phase in ("planning", "awaiting_approval")

    def _parent_active(self, parent: Agent) -> bool:
        """Whether the parent plans now (read only; the parent's plan path is not touched)."""
        phase = _state.peek_phase(parent.state) or self.plan.files.load(parent.state).phase
        return phase in ("planning", "awaiting_approval")

    def _parent_agent(self, agent: Agent) -> Agent | None:
        parent = self._parent() if self._parent is not None else self.plan.primary()
        return parent if parent is not agent else None

    def _inherited_policy(self) -> SubagentPolicy | None:
        """How this agent follows a planning parent (None: it has no parent)."""
        return self.policy if self.is_child else None

    async def _parent_plans(self, agent: Agent) -> bool | None:
        """Whether the parent plans now; None when the parent is not known (fail closed)."""
        parent = self._parent_agent(agent)
        return None if parent is None else self._parent_active(parent)

    def _parent_plans_hint(self, agent: Agent) -> bool:
        """For the model's note: whether the parent plans (no I/O)."""
        parent = self._parent_agent(agent)
        return parent is not None and self._parent_active(parent)

    def _check_first(self, agent: Agent) -> None:
        chain = getattr(agent, "_check_permission_middlewares", None)
        if chain and chain[0] is not self:
            raise PlanModeError(
                f"the plan-mode middleware must be the FIRST middleware of agent {agent.name!r} "
                "(Agent(middlewares=[plan.middleware(), ...])) so that no other middleware can "
                "allow a call before the plan-mode gate sees it"
            )

    # ---- on_reply: settle answers that never reach plan_exit ---------------------------

    async def on_reply(self, agent: Agent, input_kwargs: dict[str, Any],
                       next_handler: Callable[..., AsyncGenerator[Any, None]]) -> AsyncGenerator[Any, None]:
        """Binds the plan file, settles rejections/interrupts of a parked plan_exit, then replies."""
        self._check_first(agent)
        check_toolkit(agent)  # tool classes instead of instances: say so now, not deep in the engine
        self.identity.check_toolkit(agent)
        self.plan.note_gated(agent.state)
        book = self._book(agent, restore=True)
        names = agent.injection_config.task_tool_names
        names.extend(n for n in (PLAN_ENTER, PLAN_WRITE, PLAN_EXIT, TODO_WRITE) if n not in names)
        self._settle_pending(agent, book, input_kwargs.get("inputs"))
        settle_scope_answers(agent, input_kwargs.get("inputs"))
        async for event in next_handler(**input_kwargs):
            yield event

    def _settle_pending(self, agent: Agent, book: PlanBook, inputs: Any) -> None:
        pending = book.pending
        if book.phase != "awaiting_approval" or not pending:
            return
        call_id = pending["tool_call_id"]
        if (isinstance(inputs, UserConfirmResultEvent) and _parked.is_parked(agent.state, call_id)
                and _decision.accept_confirmation(self.plan, agent.state, book, inputs)):
            _state.save(agent.state, book)
            return
        if not _parked.is_parked(agent.state, call_id):
            book.cancel_pending("system", "the approval request is no longer parked")
        elif isinstance(inputs, UserInterruptEvent):
            book.cancel_pending("user", "the parked reply was interrupted")
        elif isinstance(inputs, UserConfirmResultEvent) and any(
            r.tool_call.id == call_id and not r.confirmed for r in inputs.confirm_results
        ):
            book.decide("reject", "user")
        else:
            return
        _state.save(agent.state, book)

    # ---- on_reasoning: where the model stands -------------------------------------------

    async def on_reasoning(self, agent: Agent, input_kwargs: dict[str, Any],
                           next_handler: Callable[..., AsyncGenerator[Any, None]]) -> AsyncGenerator[Any, None]:
        """Adds a plan-mode note (a HintBlock) holding only what the context does not show yet:
        where the model stands, when that changed since the newest note, and the todo list, when
        the newest one in the context (in a todo_write result or a note) is not the current one.
        Earlier messages are never rewritten; after a compression drops a note, it comes back."""
        status, todos = self._note(agent)
        shown = _shown(agent)
        parts = [status] if status is not None and status != shown.status else []
        current = _texts.todos_block(todos)
        if current != (shown.todos or _texts.EMPTY_TODOS):
            parts.append(current)
        if parts:
            block = HintBlock(hint="\n".join(parts), source=_texts.HINT_SOURCE)
            agent.state.append_context(agent.name, [block])
            if agent.injection_config.emit_hint_event:
                yield HintBlockEvent(reply_id=agent.state.reply_id, block_id=block.id,
                                     source=block.source, hint=block.hint)
        async for event in next_handler(**input_kwargs):
            yield event

    def _note(self, agent: Agent) -> tuple[str | None, list[_Todo]]:
        """Where the model stands (in `<plan-mode>` tags, None when nothing to say) and the todos."""
        book = self.plan.files.load(agent.state)
        todos = book.todos
        if book.active:
            banner = _texts.planning_banner(self.plan.files.abs_path(book), book.revision, book.sha256,
                                            self.plan.config.shell_protection, tuple(self.plan.config.extra_allowed_tools),
                                            network=self.plan.config.sandbox.allow_network)
            return _texts.status_block(banner), todos
        if self._inherited_policy() == "enforce" and self._parent_plans_hint(agent):
            return _texts.status_block(_texts.child_note()), todos
        body = self._build_body(book) if book.phase == "building" else None
        return (_texts.status_block(body) if body else None), todos

    def _build_body(self, book: PlanBook) -> str:
        last = next((a for a in reversed(book.audit) if a["kind"] == "forced_exit"
                     or (a["kind"] == "decision" and a.get("decision") in ("approve", "approve_with_edits"))),
                    None)
        path = self.plan.files.abs_path(book)
        if last is None or last["kind"] == "forced_exit" or book.approved_revision is None:
            return _texts.forced_note(book.exited_by, path, book.revision is not None)
        rev = next(r for r in book.revisions if r["number"] == book.approved_revision)
        return _texts.build_note(path, rev["number"], rev["edited_by_user"], book.exited_by)

    # ---- on_check_permission: the gate --------------------------------------------------

    async def on_check_permission(self, agent: Agent, input_kwargs: dict[str, Any],
                                  next_handler: Callable[..., Awaitable[PermissionDecision]]) -> PermissionDecision:
        """Runs before every other permission check (this middleware must be first)."""
        tool_call, tool, tool_input = input_kwargs["tool_call"], input_kwargs["tool"], input_kwargs["tool_input"]
        name = self.identity.kind(agent, tool)  # by identity: a planmode tool's kind is its name
        if name in PLAN_TOOL_NAMES and not self.plan_tools:
            return _deny(_texts.SUBAGENT_NO_PLAN_TOOLS.format(tool=name))
        if name in PLAN_TOOL_NAMES:  # the agent uses plan mode: give it its plan path now
            book = self._book(agent, assign=True)
            if name == PLAN_EXIT and tool_call.state != ToolCallState.ALLOWED:
                return self._ask_for_approval(agent, book, tool_call.id, tool_input)
            if name == PLAN_EXIT:  # only the parked call with an accepted answer may apply it
                refusal = _decision.resume_refusal(book, tool_call.id)
                return _deny(refusal) if refusal else await next_handler(**input_kwargs)
        if name in (PLAN_ENTER, PLAN_WRITE, TODO_WRITE):
            return _allow(f"{name} is a plan-mode tool.")
        verdict = await self._restriction(agent, tool, name, tool_input)
        if verdict == "deny":
            return _deny(_texts.DENIED)
        if verdict == "parent_unknown":
            return _deny(self.parent_unknown_text)
        if verdict == "allow":
            return _allow(f"{tool.name} is allowed in PLAN mode.")
        outside = await scope_decision(self.plan, agent, tool, name, tool_call, tool_input)
        return outside if outside is not None else await next_handler(**input_kwargs)

    def _ask_for_approval(self, agent: Agent, book: PlanBook, call_id: str,
                          tool_input: dict[str, Any]) -> PermissionDecision:
        extra = set(tool_input) - {"summary"}
        if extra:
            return _deny(_texts.PLAN_EXIT_ARGS.format(keys=", ".join(sorted(extra))))
        try:
            revision = book.check_exit()
        except PlanModeError:
            return _allow("plan_exit reports why no approval can be requested.")
        summary = summary_of(tool_input.get("summary"))
        try:  # the core checks the summary (e.g. its size limit); plan_exit reports a refusal
            book.copy().request_exit(agent.state.reply_id, call_id, summary)
        except PlanModeError:
            return _allow("plan_exit reports why no approval can be requested.")
        mode = agent.state.permission_context.mode
        if mode == PermissionMode.BYPASS and self.plan.config.auto_approve_in_bypass:
            book.request_exit(agent.state.reply_id, call_id, summary, auto=True)
            _state.save(agent.state, book)
            return _allow("auto_approve_in_bypass: approved without a human under BYPASS.")
        if mode == PermissionMode.DONT_ASK:
            book.record_exit_refused("DONT_ASK: no human available to approve the plan")
            _state.save(agent.state, book)
            return _deny(_texts.NO_HUMAN)
        book.request_exit(agent.state.reply_id, call_id, summary)
        _state.save(agent.state, book)
        return PermissionDecision(
            behavior=PermissionBehavior.ASK,
            message=_texts.ASK_MESSAGE.format(revision=revision, path=self.plan.files.abs_path(book)),
            bypass_immune=True,
            suggested_rules=[],
        )

    async def _restriction(self, agent: Agent, tool: ToolBase, kind: str,
                           tool_input: dict[str, Any]) -> Verdict:
        if self._active(agent):
            return await self._planning_verdict(tool, kind, tool_input)
        policy = self._inherited_policy()
        if policy is None or policy == "off":
            return "delegate"
        verdict = await self._planning_verdict(tool, kind, tool_input)
        if verdict == "delegate":  # the same whether or not the parent plans: no need to ask
            return "delegate"
        parent_plans = await self._parent_plans(agent)
        if parent_plans is None:
            return "parent_unknown" if verdict == "deny" else "delegate"
        if not parent_plans:  # free to build: its shell commands run unsandboxed
            forget_shell_decision()
            return "delegate"
        return "delegate" if policy == "ceiling" and verdict == "allow" else verdict

    async def _planning_verdict(self, tool: ToolBase, kind: str, tool_input: dict[str, Any]) -> Verdict:
        if kind == kinds.TASK:
            return "allow"
        if tool.name in self.plan.config.extra_allowed_tools:
            return "delegate"
        if kind in (kinds.AGENT_CONTEXT, kinds.TEAM_SPAWN, kinds.TEAM_MESSAGE):
            return "delegate"  # what workers then do is gated in their own sessions
        if kind == kinds.TEAM_DELETE:
            return "deny"
        if kind == kinds.SHELL:
            return await planning_shell_verdict(self.plan, tool, tool_input)
        if kind == kinds.MCP and not self.plan.config.trusts_mcp_hint(tool):
            return "deny"  # a server's readOnlyHint is not trusted unless the user says so
        try:
            read_only = await tool.check_read_only(tool_input)
        except Exception:  # a checker that fails proves nothing: fail closed
            read_only = False
        return "delegate" if read_only is True else "deny"


class _Shown:
    """What an agent's context shows of plan mode: the newest `<plan-mode>` note part and the newest
    `<todos>` list (from a note or a todo_write result), read once and then only from what was
    added since: ``context`` is the list read, ``count`` its length then, ``last`` its last
    message and ``blocks`` how many of that message's blocks were read (a reply appends its
    blocks to one message)."""

    __slots__ = ("blocks", "context", "count", "last", "status", "todos")

    def __init__(self, context: list[Any]) -> None:
        self.context = context
        self.count = 0
        self.blocks = 0
        self.last: Any = None
        self.status: str | None = None
        self.todos: str | None = None

    def read(self, block: Any) -> None:
        """Takes what ``block`` shows, as the newest so far."""
        if isinstance(block, HintBlock) and block.source == _texts.HINT_SOURCE and isinstance(block.hint, str):
            self.status = _texts.last_block(block.hint, "plan-mode") or self.status
            self.todos = _texts.last_block(block.hint, "todos") or self.todos
        elif (isinstance(block, ToolResultBlock) and block.name == TODO_WRITE
              and block.state == ToolResultState.SUCCESS):
            output = block.output
            text = output if isinstance(output, str) else "".join(
                b.text for b in output if isinstance(b, TextBlock))
            self.todos = _texts.last_block(text, "todos") or _texts.EMPTY_TODOS


_SHOWN: weakref.WeakKeyDictionary[Any, _Shown] = weakref.WeakKeyDictionary()


def _shown(agent: Agent) -> _Shown:
    """What ``agent``'s context shows of plan mode now. Reads only the blocks added since the
    last call unless the context was replaced or cut (a compression, a restored state): then
    all of it, from the newest message back."""
    context = agent.state.context
    seen = _SHOWN.get(agent)
    if (seen is not None and seen.context is context and 0 < seen.count <= len(context)
            and context[seen.count - 1] is seen.last and len(_blocks(seen.last)) >= seen.blocks):
        for index, msg in enumerate(context[seen.count - 1:]):
            for block in _blocks(msg)[seen.blocks if index == 0 else 0:]:
                seen.read(block)
    else:
        seen = _SHOWN[agent] = _Shown(context)
        for msg in reversed(context):
            if seen.status is not None and seen.todos is not None:
                break
            for block in reversed(_blocks(msg)):
                newer = seen.status, seen.todos
                seen.status = seen.todos = None
                seen.read(block)
                seen.status, seen.todos = newer[0] or seen.status, newer[1] or seen.todos
    seen.count, seen.last = len(context), context[-1] if context else None
    seen.blocks = len(_blocks(seen.last)) if seen.last is not None else 0
    return seen


def _blocks(msg: Any) -> list[Any]:
    """A message's blocks ([] for a plain-text message)."""
    return msg.content if isinstance(msg.content, list) else []
