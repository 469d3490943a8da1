"""AgentScope's terminal console with a real plan review.

``launch_console(agent)`` has the call shape of ``agentscope.console.launch_console`` and behaves
the same (rendering, Ctrl+C interrupts, ``exit``/``quit``/Ctrl+D), except when the agent asks to
approve its plan: instead of "Allow 'plan_exit'? [y]es / [N]o" the human sees the plan file, the
revision and the diff since the revision they last reviewed (or the whole plan), and answers
approve, edit in ``$EDITOR`` then approve, request changes with feedback, or reject. Other tool
confirmations keep AgentScope's own prompt. AgentScope's console has no hook for its confirmation
step, hence this wrapper.

    from planmode.agentscope.console import launch_console
    await launch_console(agent)
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from agentscope.console import ConsoleRenderer
from agentscope.console._console import _confirm, _run_reply  # AgentScope's own loop steps
from agentscope.event import ConfirmResult, RequireUserConfirmEvent, UserConfirmResultEvent, UserInterruptEvent
from agentscope.message import Msg, UserMsg

from ._review import CHOICES, edit_in_editor, merged, plan_answer, plan_calls, review_of

Ask = Callable[[str], str]
"""Reads one line from the human after showing a prompt (``input`` by default)."""


async def launch_console(
    agent: Any,
    user_name: str = "user",
    verbosity: str = "default",
    max_tool_result_lines: int | None = 20,
) -> None:
    """Chat with ``agent`` in the terminal, reviewing plans properly (see the module doc)."""
    renderer = ConsoleRenderer(verbosity=verbosity, max_tool_result_lines=max_tool_result_lines)  # type: ignore[arg-type]
    renderer.console.print("Chat with the agent. Type 'exit' (or Ctrl+D) to quit.", style="dim")
    while True:
        try:
            query = (await asyncio.to_thread(input, f"\n{user_name}> ")).strip()
        except (EOFError, KeyboardInterrupt):
            break
        if query in ("exit", "quit"):
            break
        if not query:
            continue
        inputs: Msg | UserConfirmResultEvent | UserInterruptEvent = UserMsg(name=user_name, content=query)
        while True:
            pending = await _run_reply(agent, renderer, inputs)
            if pending is None:
                break
            try:
                inputs = await confirm(agent, pending, renderer.console.print)
            except (EOFError, KeyboardInterrupt):
                inputs = UserInterruptEvent(reply_id=pending.reply_id)


async def confirm(agent: Any, pending: RequireUserConfirmEvent, show: Callable[..., None] = print,
                  ask: Ask = input) -> UserConfirmResultEvent:
    """The human's answer to every call of ``pending``: a plan review for ``plan_exit``,
    AgentScope's own y/N prompt for the others."""
    plans = plan_calls(pending)
    results: list[ConfirmResult] = []
    for call in plans:
        results.append(await asyncio.to_thread(review_plan, agent, pending, call, show, ask))
    others = [c for c in pending.tool_calls if c not in plans]
    if others:
        rest = await _confirm(pending.model_copy(update={"tool_calls": others}))
        results += rest.confirm_results
    return merged(pending, results)


def review_plan(agent: Any, pending: RequireUserConfirmEvent, call: Any, show: Callable[..., None] = print,
                ask: Ask = input) -> ConfirmResult:
    """Shows the plan and asks until the human gives a usable answer (blocking; runs in a thread)."""
    review = review_of(agent, call)
    _print(show, review.render())
    menu = " / ".join(f"[{key}] {label}" for key, label, _ in CHOICES) + " / [s] show the whole plan"
    while True:
        answer = ask(f"{menu}\n> ").strip().lower()
        decision = next((d for key, label, d in CHOICES if answer in (key, label.split()[0])), None)
        if answer in ("s", "show"):
            _print(show, review.render(full=True))
        elif decision == "approve":
            return plan_answer(pending, call, "approve")
        elif decision == "approve_with_edits":
            try:
                edited = edit_in_editor(review.text)
            except (RuntimeError, OSError) as exc:
                _print(show, f"Cannot edit: {exc}")
                continue
            if edited == review.text:
                _print(show, "The plan was not changed: choose [a] to approve it as it is.")
                continue
            return plan_answer(pending, call, "approve_with_edits", edited_plan=edited)
        elif decision == "request_changes":
            feedback = ask("What should change? (the agent gets this text verbatim)\n> ").strip()
            if feedback:
                return plan_answer(pending, call, "request_changes", feedback=feedback)
            _print(show, "Feedback is needed to request changes.")
        elif decision == "reject":
            reason = ask("Why? (optional, the agent gets this text)\n> ").strip()
            return plan_answer(pending, call, "reject", feedback=reason or None)
        else:
            _print(show, f"Please answer one of: {', '.join(key for key, _, _ in CHOICES)}, s")


def _print(show: Callable[..., None], text: str) -> None:
    """Prints plain text (no rich markup: a plan may contain brackets)."""
    if show is print:
        show(text)
    else:
        show(text, markup=False, highlight=False)


__all__ = ["confirm", "launch_console", "review_plan"]
