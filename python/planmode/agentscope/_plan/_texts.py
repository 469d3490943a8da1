"""Every text plan mode shows the model or the human, in one place."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

PLAN_ENTER = "plan_enter"
PLAN_WRITE = "plan_write"
PLAN_EXIT = "plan_exit"
TODO_WRITE = "todo_write"
PLAN_TOOL_NAMES = frozenset({PLAN_ENTER, PLAN_WRITE, PLAN_EXIT})
TASK_TOOL_NAMES = frozenset({"TaskCreate", "TaskGet", "TaskList", "TaskUpdate"})

#: The key under which the human's answer travels inside the confirmed plan_exit call.
ANSWER_KEY = "_planmode_answer"

#: The HintBlock source of plan-mode notes (same label/sublabel shape as AgentScope's own).
HINT_SOURCE = '{"label": "System", "sublabel": "Plan Mode"}'

DENIED = (
    "Blocked: you are in PLAN mode (read-only). You may investigate and run read-only tools, "
    "record your plan with plan_write, and call plan_exit when ready to execute. Do not modify "
    "files or run mutating commands until the plan is approved."
)

NO_HUMAN = (
    "plan_exit needs a human to approve the plan, but no human is available in the current "
    "permission mode (DONT_ASK). You are still in PLAN mode (read-only): keep the plan in "
    "plan_write and end your turn; a person (or an administrator) must approve or end plan mode."
)

PLAN_EXIT_ARGS = (
    "plan_exit takes only an optional `summary` argument; remove {keys} and call it again."
)

SUBAGENT_NO_PLAN_TOOLS = (
    "{tool} is not available to sub-agents: the parent agent owns plan mode. Investigate and "
    "report back instead."
)

PARENT_UNKNOWN = (
    "Blocked: this sub-agent was attached to plan mode but its parent agent is not known yet, "
    "so it is read-only. Attach it with plan.attach_child(child, parent=parent_agent)."
)

PARENT_UNKNOWN_TEAM = (
    "Blocked: this session is a worker of an AgentScope team, but its leader's plan-mode phase "
    "cannot be read from the app's storage, so it is read-only. Check that the leader session "
    "still exists."
)

UNGATED = (
    "{tool} refused: this agent has planmode's plan tools but not the plan-mode middleware of "
    "the same PlanMode, so plan mode would be recorded but enforced by nothing. Build the agent "
    "with middlewares=[plan.middleware(), ...] (first), or in AgentScope's app pass "
    "extra_agent_middlewares=PlanModeWiring(...).middlewares."
)

SUMMARY_REFUSED = (
    "plan_exit refused: {why}. No approval was requested: keep the summary short (the plan "
    "itself belongs in plan_write) and call plan_exit again."
)

ENTER_DESCRIPTION = (
    "Enter PLAN mode: a read-only phase for investigating the codebase and designing an "
    "approach before making any changes. While in plan mode you cannot edit files or run "
    "mutating commands; use plan_write to record your plan and plan_exit when you are ready "
    "to execute. Use this for non-trivial, multi-step, or ambiguous tasks."
)
WRITE_DESCRIPTION = (
    "Create or overwrite the current plan; it replaces the plan file. Either pass the COMPLETE "
    "plan as markdown in content (clear sections: goal, steps, risks, verification; number the "
    "steps 1., 2., ...), or give it structured: steps (each {description, id?, files?, action?}), "
    "risks, prerequisites, verification and scope {paths, commands}, with content as an optional "
    "preamble (goal, context) that then holds no steps or sections of its own. The plan file is "
    "rendered from the fields. Only available in PLAN mode."
)
EXIT_DESCRIPTION = (
    "Finish planning and request permission to start executing the plan. This pauses for the "
    "user to approve your plan (it is read from the plan file; do not repeat it). On approval "
    "you return to BUILD mode and may modify files; if the user requests changes or rejects "
    "it you stay in PLAN mode and should revise. Do not ask 'is this plan okay?' in text: "
    "call plan_exit."
)
TODO_DESCRIPTION = (
    "Replace the whole todo list. Each item: content (non-blank), status (pending, "
    "in_progress or completed) and optional priority (high, medium, low). While any item is "
    "open keep exactly one in_progress. Call it again with the full list whenever progress "
    "changes."
)

ASK_MESSAGE = (
    "The agent wants to finish planning and start executing plan revision {revision} at "
    "{path}. Approve to continue in BUILD mode, request changes or reject to keep planning."
)


def who(actor: str) -> str:
    """How an actor is named to the model: "the user", or "the user (admin:alice)"."""
    return "the user" if actor == "user" else f"the user ({actor})"


def short_sha(sha: str | None) -> str:
    """The first 12 hex digits of a sha256."""
    return (sha or "")[:12]


def entered(path: str, how: str, revision: int | None) -> str:
    """plan_enter's result."""
    if how == "already_active":
        return f'Already in PLAN mode (read-only). Plan file: "{path}".'
    text = (
        "Entered PLAN mode (read-only). Investigate freely, then call plan_write to record your "
        f'plan at "{path}". When the plan is ready, call plan_exit to request approval and begin '
        "executing."
    )
    if how == "reentered" and revision is not None:
        text += (
            f' The previous plan (revision {revision}) is kept at "{path}": read it first; if the '
            "task is different, replace it. Your next plan_write becomes a new revision."
        )
    return text


def saved(path: str, result: Mapping[str, Any], human_edit: int | None) -> str:
    """plan_write's result."""
    rev, sha = result["revision"], short_sha(result["sha256"])
    if result["unchanged"]:
        text = f'Plan unchanged at "{path}" (still revision {rev}, sha256 {sha}).'
    else:
        text = f'Plan saved to "{path}" (revision {rev}, sha256 {sha}).'
    if human_edit is not None:
        text += (
            f" Note: the user had edited the plan file since your last write; their version was "
            f"kept as revision {human_edit} and your write replaced it. Check that you kept "
            "their changes."
        )
    return text


def grant_label(g: Mapping[str, Any]) -> str:
    """`Bash(npm test*)` or `Write`."""
    return f"{g['tool_name']}({g['rule_content']})" if g.get("rule_content") else str(g["tool_name"])


def unreviewed_edit(path: str, revision: int) -> str:
    """What the model is told when this node's plan file holds an edit the decision did not review."""
    return (f'The plan file "{path}" on this machine holds an edit nobody reviewed; it is recorded as '
            f"revision {revision}, which is not approved. Do not follow that file.")


def scope_note(paths: Sequence[str], commands: Sequence[str], chosen: bool) -> str:
    """What the approval tells the model about the scope it is held to (``chosen``: the reviewer
    replaced the scope the plan declared)."""
    listed = [f"`{p}`" for p in paths] + [f"`$ {c}`" for c in commands]
    whose = "The reviewer set the scope for this build" if chosen else "The build is held to the plan's scope"
    inside = ", ".join(listed) if listed else "nothing (no writes, no commands)"
    return (f"{whose}: {inside}. A write or command outside it is asked or denied, and recorded as "
            "drift; enter plan mode again to get a different scope approved.")


def approved(path: str, d: Mapping[str, Any], actor: str, plan: str | None, mode: str | None,
             seeded: bool, grants: Sequence[Mapping[str, Any]], unreviewed: int | None = None,
             scope: str | None = None) -> str:
    """plan_exit's result after an approval (``unreviewed``: the revision an unreviewed edit of this
    node's plan file was recorded as; the approved text is then included; ``scope``: what
    :func:`scope_note` says, when a scope is enforced)."""
    rev = f"revision {d['revision']}, sha256 {short_sha(d['sha256'])}"
    if unreviewed is not None:
        edits = " with edits" if d["edited"] else ""
        head = (f"Plan approved{edits} ({rev}) by {who(actor)}. " + unreviewed_edit(path, unreviewed)
                + " The approved plan is included below; follow it.")
    elif d["edited"]:
        head = (
            f"Plan approved with edits by the user ({rev}, edited by user). The approved plan "
            f'at "{path}" differs from what you wrote; it is included below. Follow it, not your '
            "earlier version."
        )
    else:
        head = f'Plan approved ({rev}) by {who(actor)}. The approved plan is at "{path}".'
    parts = [
        head,
        "You are now in BUILD mode and may modify files and run commands. Start executing the "
        "plan now. "
        + (
            "Your todo list was seeded from the plan's numbered steps; keep exactly one item "
            "in_progress and update it with todo_write as you go."
            if seeded
            else "Seed your todo list with todo_write (one item per plan step), keep exactly one "
            "task in_progress, and update it as you go."
        ),
    ]
    if mode:
        parts.append(f"The permission mode is now {mode}.")
    if scope:
        parts.append(scope)
    if grants:
        parts.append("Granted without asking, for this plan only (until you enter plan mode again): "
                     + ", ".join(grant_label(g) for g in grants) + ".")
    if d.get("feedback"):
        parts.append("The user added:\n" + d["feedback"])
    if unreviewed is not None and plan:
        parts.append("## Approved Plan:\n" + plan)
    elif d["edited"] and plan:
        parts.append("## Approved Plan (edited by user):\n" + plan)
    return "\n\n".join(parts)


def not_approved(path: str, d: Mapping[str, Any], actor: str, unreviewed: int | None = None) -> str:
    """plan_exit's result after request_changes or reject (feedback verbatim, last)."""
    what = "requested changes to" if d["decision"] == "request_changes" else "rejected"
    text = (
        f"{who(actor).capitalize()} {what} your plan (revision {d['revision']}). You are still in PLAN "
        f'mode (read-only). Revise the plan at "{path}" with plan_write, then call plan_exit '
        "again."
    )
    if d.get("edited"):
        text += f" The user also edited the plan: it is now revision {d['revision']}; start from it."
    if unreviewed is not None:
        text += f" The plan file on this machine holds an edit nobody reviewed, recorded as revision {unreviewed}."
    if d.get("feedback"):
        label = "Requested changes" if d["decision"] == "request_changes" else "Reason"
        text += f"\n\n{label}:\n{d['feedback']}"
    return text


def answer_failed(error: str) -> str:
    """plan_exit's result when the human's answer could not be applied."""
    return (
        f"The answer to your plan could not be applied: {error}. Nothing was approved; you are "
        "still in PLAN mode (read-only). Call plan_exit again to ask for approval."
    )


def cancelled_by(actor: str) -> str:
    """The result given to a parked plan_exit when plan mode is ended without a decision."""
    return (
        f"Plan mode was ended by {actor} before the plan was approved. You are in BUILD mode "
        "now; no plan was approved, so confirm the next steps with the user before large changes."
    )


def todo_summary(todos: Sequence[Mapping[str, Any]]) -> str:
    """todo_write's result: counts and the list in `<todos>` tags, with [x] / [~] / [ ] marks."""
    if not todos:
        return "Todo list cleared (0 items)."
    counts = {s: sum(1 for t in todos if t["status"] == s) for s in ("in_progress", "pending", "completed")}
    head = (
        f"Todo list updated: {counts['in_progress']} in progress, {counts['pending']} pending, "
        f"{counts['completed']} completed."
    )
    return head + "\n" + todos_block(todos)


def mirrored(path: str, outcome: dict[str, Any] | None, error: str | None) -> str:
    """What todo_write adds about the plan file it mirrors progress into ('' when nothing to say)."""
    if error is not None:
        return f'\nNote: progress was not shown in the plan file "{path}": {error}'
    if outcome and outcome.get("human_edit"):
        return (f'\nNote: the user has edited the plan file "{path}" since it was approved; it is left '
                "as they wrote it (progress is not ticked there). Read it: it may change what is left to do.")
    return ""


def todo_lines(todos: Sequence[Mapping[str, Any]]) -> str:
    """One line per todo: `- [~] content (priority: high)`."""
    mark = {"completed": "[x]", "in_progress": "[~]", "pending": "[ ]"}
    return "\n".join(
        f"- {mark[t['status']]} {t['content']}"
        + (f" (priority: {t['priority']})" if t.get("priority") else "")
        for t in todos
    )


#: The banner's line about the shell, per ``plan_status(agent).shell_protection``.
SHELL_LINES = {
    "classifier": "- Shell commands are allowed only when they are provably read-only (no "
                  "redirections, no mutating commands).",
    "classifier+sandbox": "- Shell commands are allowed only when they are provably read-only (no "
                          "redirections, no mutating commands), and they run in a kernel sandbox "
                          "(Landlock) where only a scratch directory ($TMPDIR) is writable{net}.",
    "sandbox": "- Shell commands run in a kernel sandbox (Landlock): you may run tests and builds "
               "(e.g. `pytest -q`) to investigate; writes outside a scratch directory ($TMPDIR) "
               "are refused and nothing in the workspace changes{net}.",
}


def planning_banner(path: str, revision: int | None, sha: str | None, shell: str,
                    extra: tuple[str, ...], *, network: bool = False) -> str:
    """The note shown to the model while it plans."""
    where = f"revision {revision}, sha256 {short_sha(sha)}" if revision else "no plan written yet"
    lines = [
        f'PLAN MODE is active (read-only). Plan file: "{path}" ({where}).',
        "- Investigate with read-only tools only; any call that could modify something is "
        "blocked.",
    ]
    if shell in SHELL_LINES:
        lines.append(SHELL_LINES[shell].format(net="" if network else "; the network is off"))
    if extra:
        lines.append(f"- Also available for read-only investigation: {', '.join(extra)}.")
    lines += [
        "- ACT, do not just narrate: record the complete plan with plan_write (goal, numbered "
        "steps, risks, verification). Never claim a plan exists unless you have called plan_write.",
        "- When the plan is ready, call plan_exit to ask the user for approval.",
        "- If something essential is unclear, stop and ask one specific question.",
    ]
    return "\n".join(lines)


def build_note(path: str, revision: int, edited: bool, actor: str | None) -> str:
    """The note shown to the model after its plan was approved."""
    how = ", edited by the user" if edited else ""
    return (
        f'BUILD mode: the plan at "{path}" (revision {revision}{how}) was approved by '
        f"{actor or 'the user'}. Read it and execute it step by step; track progress with "
        "todo_write, keeping exactly one item in_progress."
    )


def forced_note(actor: str | None, path: str | None, has_plan: bool) -> str:
    """The note shown after plan mode was ended without approval."""
    text = f"Plan mode was ended by {actor or 'an administrator'} without an approved plan."
    if has_plan and path:
        text += f' The last draft is at "{path}" but it was NOT approved.'
    return text + " You may modify files now."


def child_note() -> str:
    """The note shown to a sub-agent while its parent plans (enforce policy)."""
    return (
        "Your parent agent is in PLAN mode, so you are read-only until its plan is approved. "
        "Investigate and report what you find; do not modify files or run mutating commands."
    )


#: How an empty todo list is shown in a note.
EMPTY_TODOS = "<todos>\n(no items)\n</todos>"


def todos_block(todos: Sequence[Mapping[str, Any]]) -> str:
    """The todo list in `<todos>` tags, as todo_write's result and the notes show it."""
    return f"<todos>\n{todo_lines(todos)}\n</todos>" if todos else EMPTY_TODOS


def status_block(body: str) -> str:
    """Where the model stands, in `<plan-mode>` tags."""
    return f"<plan-mode>\n{body}\n</plan-mode>"


def last_block(text: str, tag: str) -> str | None:
    """The last `<tag>...</tag>` part of `text` (tags included), if any."""
    start = text.rfind(f"<{tag}>")
    if start < 0:
        return None
    end = text.find(f"</{tag}>", start)
    return text[start:end + len(tag) + 3] if end >= 0 else None
