"""What a human reviewing a parked plan sees: the plan file, its revision, and the text or the diff
since the revision they last reviewed. Shared by the console and the TUI wrappers."""

from __future__ import annotations

import difflib
import json
import os
import shlex
import subprocess
import tempfile
from dataclasses import dataclass
from typing import Any

from agentscope.event import ConfirmResult, RequireUserConfirmEvent, UserConfirmResultEvent
from agentscope.message import ToolCallBlock

from ._plan import _texts
from ._plan._api import answer_plan
from ._plan._state import STATE_KEY

#: The human's choices, in the order they are offered: (key, label, decision).
CHOICES = (
    ("a", "approve", "approve"),
    ("e", "edit in $EDITOR, then approve", "approve_with_edits"),
    ("c", "request changes (with feedback)", "request_changes"),
    ("r", "reject", "reject"),
)


@dataclass(frozen=True)
class PlanReview:
    """The plan a parked ``plan_exit`` asks a human to approve."""

    path: str
    """The plan file (relative to the workspace when known)."""
    revision: int | None
    """The revision awaiting approval."""
    summary: str
    """The model's summary from the ``plan_exit`` call ("" when none)."""
    text: str
    """The full text of the revision awaiting approval."""
    reviewed_revision: int | None
    """The revision the human reviewed last time (None on the first review)."""
    diff: str | None
    """A unified diff from ``reviewed_revision`` to this one (None when there is nothing to compare)."""

    def render(self, full: bool = False) -> str:
        """The review as plain text: a header, then the diff since the last review or the whole plan."""
        header = f"Plan approval: {self.path}, revision {self.revision}"
        lines = [header, "=" * len(header)]
        if self.summary:
            lines.append(f"Summary: {self.summary}")
        if self.diff is not None and not full:
            lines += [f"Changes since revision {self.reviewed_revision}, which you reviewed:", self.diff.rstrip("\n")]
        else:
            lines += ["", self.text.rstrip("\n")]
        return "\n".join(lines)


def plan_calls(event: RequireUserConfirmEvent) -> list[ToolCallBlock]:
    """The ``plan_exit`` calls among the calls an event asks to confirm."""
    return [c for c in event.tool_calls if c.name == _texts.PLAN_EXIT]


def review_of(agent: Any, call: ToolCallBlock) -> PlanReview:
    """The review for ``call``, read from the agent's plan-mode state (plain JSON); an agent
    without state (a pipeline) gets a review with the summary only."""
    summary = _summary(call)
    raw = agent.state.middle_context.get(STATE_KEY) if hasattr(agent, "state") else None
    if not isinstance(raw, dict):
        return PlanReview("(plan file unknown)", None, summary, "(the plan is not in this agent's state)", None, None)
    revisions = {r["number"]: r for r in raw.get("revisions", []) if isinstance(r, dict) and "number" in r}
    pending = raw.get("pending") or {}
    number = pending.get("revision") or (max(revisions) if revisions else None)
    text = str(revisions.get(number, {}).get("content") or "")
    reviewed = _reviewed_before(raw.get("audit", []), number)
    old = revisions.get(reviewed, {}).get("content") if reviewed is not None else None
    diff = None
    if isinstance(old, str):
        diff = "".join(difflib.unified_diff(old.splitlines(True), text.splitlines(True),
                                            f"revision {reviewed}", f"revision {number}")) or "(no changes)\n"
    return PlanReview(str(raw.get("plan_path") or "(plan file unknown)"), number, summary, text, reviewed, diff)


def _summary(call: ToolCallBlock) -> str:
    try:
        args = json.loads(call.input or "{}")
    except json.JSONDecodeError:
        return ""
    summary = args.get("summary") if isinstance(args, dict) else None
    return summary if isinstance(summary, str) else ""


def _reviewed_before(audit: list[Any], current: int | None) -> int | None:
    """The revision of the last approval request before the current one (what the human last saw)."""
    asked = [a.get("revision") for a in audit if isinstance(a, dict) and a.get("kind") == "exit_requested"]
    earlier = [r for r in asked if isinstance(r, int) and r != current]
    return earlier[-1] if earlier else None


def edit_in_editor(text: str, env: dict[str, str] | None = None) -> str:
    """Opens ``text`` in ``$VISUAL`` / ``$EDITOR`` (a temporary ``PLAN.md``) and returns what was saved.

    Raises ``RuntimeError`` naming the variable when neither is set, or when the editor fails."""
    env = dict(os.environ if env is None else env)
    editor = env.get("VISUAL") or env.get("EDITOR")
    if not editor:
        raise RuntimeError("set $EDITOR (or $VISUAL) to edit the plan, e.g. export EDITOR=nano")
    with tempfile.TemporaryDirectory(prefix="planmode-review-") as tmp:
        path = os.path.join(tmp, "PLAN.md")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        done = subprocess.run([*shlex.split(editor), path], check=False)
        if done.returncode != 0:
            raise RuntimeError(f"the editor {editor!r} exited with status {done.returncode}: nothing approved")
        with open(path, encoding="utf-8") as f:
            return f.read()


def plan_answer(event: RequireUserConfirmEvent, call: ToolCallBlock, decision: str,
                feedback: str | None = None, edited_plan: str | None = None) -> ConfirmResult:
    """The ``ConfirmResult`` for one ``plan_exit`` call (built by :func:`answer_plan`)."""
    only = event.model_copy(update={"tool_calls": [call]})
    return answer_plan(only, decision, feedback=feedback or None, edited_plan=edited_plan).confirm_results[0]


def merged(event: RequireUserConfirmEvent, results: list[ConfirmResult]) -> UserConfirmResultEvent:
    """One answer event for every call of ``event``, in the event's order."""
    by_id = {r.tool_call.id: r for r in results}
    return UserConfirmResultEvent(reply_id=event.reply_id, confirm_results=[by_id[c.id] for c in event.tool_calls])


__all__ = ["CHOICES", "PlanReview", "edit_in_editor", "merged", "plan_answer", "plan_calls", "review_of"]
