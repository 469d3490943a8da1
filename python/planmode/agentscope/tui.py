"""AgentScope's full-screen TUI with a real plan review (needs ``planmode[tui]``, i.e. Textual).

``launch_tui(agent)`` has the call shape of ``agentscope.tui.launch_tui`` and is AgentScope's own
TUI, except that when the agent asks to approve its plan a review screen opens over the chat: the
plan file, the revision, the diff since the revision you last reviewed (or the whole plan), and the
keys ``a`` approve, ``e`` edit in ``$EDITOR`` then approve, ``c`` request changes (type the
feedback), ``r`` reject (type an optional reason), ``s`` switch between the diff and the whole
plan, ``Escape`` back to AgentScope's own yes/no prompt. AgentScope's TUI has no hook for its
confirmation step, hence this wrapper. A confirmation that asks for ``plan_exit`` together with
other tools keeps AgentScope's own prompt for all of them.

    from planmode.agentscope.tui import launch_tui
    await launch_tui(agent)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

try:
    from agentscope.tui._launcher import _AgentScopeTUI  # AgentScope's TUI application (no public hook)
    from textual.app import ComposeResult
    from textual.binding import Binding
    from textual.containers import Vertical, VerticalScroll
    from textual.screen import ModalScreen
    from textual.widgets import Input, Static
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    if getattr(exc, "name", None) == "textual":
        raise ImportError("planmode.agentscope.tui needs Textual: pip install 'planmode[tui]'") from exc
    raise

from agentscope.event import RequireUserConfirmEvent, UserConfirmResultEvent
from agentscope.message import Msg

from ._review import CHOICES, PlanReview, edit_in_editor, merged, plan_answer, plan_calls, review_of


class PlanReviewScreen(ModalScreen[UserConfirmResultEvent | None]):
    """The review of one parked ``plan_exit``; dismissed with the answer (None: use AgentScope's prompt)."""

    BINDINGS = [
        Binding("a", "decide('approve')", "approve"),
        Binding("e", "decide('approve_with_edits')", "edit, then approve"),
        Binding("c", "decide('request_changes')", "request changes"),
        Binding("r", "decide('reject')", "reject"),
        Binding("s", "toggle_full", "diff / whole plan"),
        Binding("escape", "dismiss_review", "back"),
    ]
    DEFAULT_CSS = """
    PlanReviewScreen { align: center middle; }
    #planmode-review { width: 90%; height: 90%; border: round $accent; padding: 0 1; background: $surface; }
    #planmode-plan { height: 1fr; }
    #planmode-feedback { display: none; }
    """

    def __init__(self, event: RequireUserConfirmEvent, review: PlanReview) -> None:
        super().__init__()
        self.event, self.review = event, review
        self.call = plan_calls(event)[0]
        self.full = False
        self.asking: str | None = None

    def compose(self) -> ComposeResult:
        menu = "   ".join(f"[{key}] {label}" for key, label, _ in CHOICES) + "   [s] diff / whole plan   [Esc] back"
        with Vertical(id="planmode-review"):
            with VerticalScroll(id="planmode-plan"):
                yield Static(self.review.render(), id="planmode-text", markup=False)
            yield Static("", id="planmode-status", markup=False)
            yield Input(id="planmode-feedback")
            yield Static(menu, id="planmode-menu", markup=False)

    def _say(self, text: str) -> None:
        self.query_one("#planmode-status", Static).update(text)

    def action_toggle_full(self) -> None:
        """Switches between the diff since the last review and the whole plan."""
        self.full = not self.full
        self.query_one("#planmode-text", Static).update(self.review.render(full=self.full))

    def action_dismiss_review(self) -> None:
        """Closes the review without answering: AgentScope's own prompt is under it."""
        self.dismiss(None)

    def action_decide(self, decision: str) -> None:
        """One of the four answers (the last two ask for text first)."""
        if self.asking is not None:
            return
        if decision == "approve":
            self._answer("approve")
        elif decision == "approve_with_edits":
            try:
                with self.app.suspend():
                    edited = edit_in_editor(self.review.text)
            except (RuntimeError, OSError) as exc:
                self._say(f"Cannot edit: {exc}")
                return
            if edited == self.review.text:
                self._say("The plan was not changed: press a to approve it as it is.")
                return
            self._answer("approve_with_edits", edited_plan=edited)
        else:
            self.asking = decision
            box = self.query_one("#planmode-feedback", Input)
            box.placeholder = ("What should change? (the agent gets this text verbatim; Enter sends)"
                               if decision == "request_changes" else "Why? (optional; Enter sends)")
            box.display = True
            box.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """The feedback (request changes) or reason (reject) was typed."""
        text = event.value.strip()
        if self.asking == "request_changes" and not text:
            self._say("Feedback is needed to request changes.")
            return
        self._answer(str(self.asking), feedback=text or None)

    def _answer(self, decision: str, **fields: Any) -> None:
        self.dismiss(merged(self.event, [plan_answer(self.event, self.call, decision, **fields)]))


class _PlanReviewTUI(_AgentScopeTUI):
    """AgentScope's TUI application, opening :class:`PlanReviewScreen` for a plan approval."""

    async def _publish(self, item: Any) -> None:
        await super()._publish(item)
        if isinstance(item, RequireUserConfirmEvent) and plan_calls(item) and len(plan_calls(item)) == len(item.tool_calls):
            screen = PlanReviewScreen(item, review_of(self.target, plan_calls(item)[0]))
            self.push_screen(screen, callback=self._answered)

    def _answered(self, answer: UserConfirmResultEvent | None) -> None:
        if answer is not None:
            self._start_stream(answer)


async def launch_tui(target: Any, *, messages: Sequence[Msg] = (), user_name: str = "user") -> None:
    """AgentScope's ``launch_tui`` with planmode's plan review (see the module doc)."""
    await _PlanReviewTUI(target, messages, user_name).run_async()


__all__ = ["PlanReviewScreen", "launch_tui"]
