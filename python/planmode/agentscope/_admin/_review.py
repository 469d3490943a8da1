"""The plan review page: server-rendered HTML (every value escaped), no inline script, no external assets."""

from __future__ import annotations

import difflib
from html import escape
from typing import Any

from markdown_it import MarkdownIt

_markdown = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table").enable("strikethrough")

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; "
    "form-action 'none'; frame-ancestors 'none'; base-uri 'none'"
)
"""Content-Security-Policy of the page: only its own script and stylesheet, only calls back to this server."""


def render_markdown(text: str) -> str:
    """Markdown to HTML with raw HTML escaped and unsafe link schemes (javascript:, vbscript:, file:) refused."""
    html: str = _markdown.render(text)  # markdown-it types it Any (its renderer is pluggable)
    return html


def render_diff(previous: str | None, current: str | None) -> str:
    """A line diff (unified, 3 lines of context) between two plan revisions as escaped HTML."""
    if current is None:
        return '<p class="muted">No plan written yet.</p>'
    if previous is None:
        return '<p class="muted">First revision: nothing to compare with.</p>'
    lines = list(
        difflib.unified_diff(
            previous.splitlines(), current.splitlines(), "previous", "current", lineterm="", n=3
        )
    )[2:]
    if not lines:
        return '<p class="muted">No change from the previous revision.</p>'
    kinds = {"+": "add", "-": "del", "@": "hunk"}
    rows = "".join(f'<span class="{kinds.get(line[:1], "ctx")}">{escape(line)}</span>\n' for line in lines)
    return f'<pre class="diff">{rows}</pre>'


def _task_levels(tasks: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Tasks layered by dependency depth (a task sits one level after the deepest task blocking it)."""
    by_id = {str(task.get("id")): task for task in tasks}
    depth: dict[str, int] = {}

    def level(task_id: str, seen: frozenset[str]) -> int:
        if task_id in depth:
            return depth[task_id]
        blockers = [b for b in by_id[task_id].get("blocked_by") or [] if str(b) in by_id and str(b) not in seen]
        depth[task_id] = 1 + max((level(str(b), seen | {task_id}) for b in blockers), default=-1)
        return depth[task_id]

    layers: list[list[dict[str, Any]]] = []
    for task_id in by_id:
        index = level(task_id, frozenset())
        layers.extend([] for _ in range(index + 1 - len(layers)))
        layers[index].append(by_id[task_id])
    return layers


def render_tasks(tasks: list[dict[str, Any]]) -> str:
    """The task graph: one column per dependency level, each task with its state and what blocks it."""
    if not tasks:
        return '<p class="muted">No tasks.</p>'
    columns = []
    for index, layer in enumerate(_task_levels(tasks)):
        cards = "".join(
            f'<li class="task {escape(str(task.get("state", "")))}"><b>#{escape(str(task.get("id")))}</b> '
            f'{escape(str(task.get("subject", "")))} <span class="badge">{escape(str(task.get("state", "")))}</span>'
            + (
                f'<div class="muted">after {", ".join("#" + escape(str(b)) for b in task["blocked_by"])}</div>'
                if task.get("blocked_by")
                else ""
            )
            + "</li>"
            for task in layer
        )
        columns.append(f'<div class="level"><h3>Level {index}</h3><ul>{cards}</ul></div>')
    return f'<div class="graph" id="task-graph">{"".join(columns)}</div>'


def render_todos(todos: list[dict[str, Any]]) -> str:
    """The todo list with each item's status."""
    if not todos:
        return '<p class="muted">No todos.</p>'
    items = "".join(
        f'<li class="todo {escape(str(todo.get("status", "")))}"><span class="badge">'
        f'{escape(str(todo.get("status", "")))}</span> {escape(str(todo.get("content", todo)))}</li>'
        for todo in todos
    )
    return f'<ul id="todos">{items}</ul>'


def render_audit(audit: list[dict[str, Any]]) -> str:
    """The audit trail, oldest first: when, who, what, and the details recorded with it."""
    if not audit:
        return '<p class="muted">No audit entries.</p>'
    rows = "".join(
        "<tr>"
        + "".join(f"<td>{escape(str(entry.get(key, '')))}</td>" for key in ("at", "actor", "kind", "revision"))
        + "<td>"
        + escape(
            ", ".join(
                f"{key}={value}"
                for key, value in entry.items()
                if key not in ("at", "actor", "kind", "revision") and value not in (None, "")
            )
        )
        + "</td></tr>"
        for entry in audit
    )
    return (
        '<table id="audit"><thead><tr><th>at</th><th>actor</th><th>event</th><th>revision</th>'
        f"<th>details</th></tr></thead><tbody>{rows}</tbody></table>"
    )


def _entries(entries: list[Any], css: str, prefix: str = "") -> str:
    if not entries:
        return '<span class="muted">none</span>'
    items = "".join(f'<li><code class="{css}">{escape(prefix + str(entry))}</code></li>' for entry in entries)
    return f"<ul>{items}</ul>"


def render_scope(scope: dict[str, Any] | None, element_id: str) -> str:
    """A plan scope: its path globs and command patterns (or a note that there is none)."""
    if not scope:
        return f'<p class="muted" id="{element_id}">No scope: the build phase is not held to one.</p>'
    return (
        f'<div class="scope" id="{element_id}"><p>Paths</p>{_entries(list(scope.get("paths") or []), "path")}'
        f'<p>Commands</p>{_entries(list(scope.get("commands") or []), "command", "$ ")}</div>'
    )


def render_step_changes(changes: list[dict[str, Any]] | None, base: int | None) -> str:
    """The per-step diff from revision ``base``: each step's id and whether it was added, removed, changed or
    moved, with its old and new text."""
    if base is None:
        return '<p class="muted">First revision: nothing to compare with.</p>'
    if changes is None:
        return f'<p class="muted">Revision {escape(str(base))} is no longer stored: no step diff.</p>'
    if not changes:
        return f'<p class="muted">No step changed since revision {escape(str(base))}.</p>'
    rows = []
    for change in changes:
        kind = str(change.get("change", ""))
        kinds = kind + (" + moved" if change.get("moved") and kind != "moved" else "")
        old, new = change.get("old_text"), change.get("text")
        rows.append(
            f'<tr class="step-{escape(kind)}"><td><code>{escape(str(change.get("id")))}</code></td>'
            f'<td><span class="badge">{escape(kinds)}</span></td>'
            f'<td class="del">{escape(str(old)) if old is not None else ""}</td>'
            f'<td class="add">{escape(str(new)) if new is not None else ""}</td></tr>'
        )
    return (
        f'<p>Compared with revision <span id="review-base">{escape(str(base))}</span>, the last one reviewed.</p>'
        '<table id="step-changes"><thead><tr><th>step</th><th>change</th><th>before</th><th>after</th></tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


def _step_details(step: dict[str, Any]) -> str:
    """The files and action written under a step, as a muted line ('' when it has neither)."""
    files = [f"<code>{escape(str(f))}</code>" for f in step.get("files") or []]
    parts = ([f"files: {', '.join(files)}"] if files else []) + (
        [f"action: {escape(str(step['action']))}"] if step.get("action") else [])
    return f'<br><span class="muted step-details">{" · ".join(parts)}</span>' if parts else ""


def render_progress(progress: list[dict[str, Any]]) -> str:
    """Each step of the approved plan with its status (pending, in_progress, completed)."""
    if not progress:
        return '<p class="muted">No approved plan is being built.</p>'
    items = "".join(
        f'<li class="step {escape(str(step.get("status", "")))}"><code>{escape(str(step.get("id")))}</code> '
        f'<span class="badge">{escape(str(step.get("status", "")))}</span> {escape(str(step.get("text", "")))}'
        f"{_step_details(step)}</li>"
        for step in progress
    )
    return f'<ul id="progress">{items}</ul>'


def render_disk_edit(view: dict[str, Any]) -> str:
    """An unreviewed human edit of this node's plan file, with its diff against the latest revision (empty
    when the file matches a revision)."""
    disk = view.get("disk") or {}
    if not disk.get("edited_on_disk"):
        return ""
    return (
        '<section id="disk-edit" class="warning"><h2>Unreviewed edit on disk</h2>'
        f"<p>The plan file on this node (<code>{escape(str(disk.get('path')))}</code>) differs from revision "
        f"{escape(str(view.get('revision')))} and nobody has reviewed it. Any decision sent from this page records "
        "it as a new revision and is refused, so that you review that revision first.</p>"
        f'<div id="disk-diff">{render_diff(view.get("plan_content"), disk.get("text"))}</div></section>'
    )


def _decision_form(view: dict[str, Any], decide_url: str, user_id: str) -> str:
    pending = view.get("pending")
    if not pending:
        return '<p class="muted" id="no-pending">No plan is awaiting approval.</p>'
    claim = view.get("decision_in_flight")
    if claim and claim.get("live"):
        return (
            f'<p id="in-flight">Decision already sent: <b>{escape(str(claim.get("decision")))}</b> by '
            f'{escape(str(claim.get("actor")))}; the agent is resuming.</p>'
        )
    scope = view.get("scope") or {}
    return f"""
<form id="decide" data-url="{escape(decide_url)}" data-user="{escape(user_id)}"
      data-revision="{escape(str(pending.get("revision", view.get("revision"))))}">
  <div class="row">
    <label>Admin token <input type="password" id="token" autocomplete="off" required></label>
    <label>Your name <input type="text" id="actor" maxlength="128"></label>
  </div>
  <label for="feedback">Feedback (required to request changes)</label>
  <textarea id="feedback" rows="4"></textarea>
  <fieldset id="scope-box"><legend>Scope of the build (approvals)</legend>
    <label>Approve with <select id="scope-mode">
      <option value="declared" selected>the declared scope</option>
      <option value="custom">the scope below (narrowed or widened)</option>
      <option value="none">no scope</option>
    </select></label>
    <label for="scope-paths">Paths (one glob per line)</label>
    <textarea id="scope-paths" rows="4">{escape(chr(10).join(scope.get("paths") or []))}</textarea>
    <label for="scope-commands">Commands (one pattern per line)</label>
    <textarea id="scope-commands" rows="3">{escape(chr(10).join(scope.get("commands") or []))}</textarea>
  </fieldset>
  <details id="edit-box"><summary>Edit the plan before approving</summary>
    <textarea id="editor" rows="18">{escape(view.get("plan_content") or "")}</textarea>
  </details>
  <div class="buttons">
    <button type="button" data-decision="approve" id="btn-approve">Approve</button>
    <button type="button" data-decision="approve_with_edits" id="btn-approve-edits">Approve with edits</button>
    <button type="button" data-decision="request_changes" id="btn-request-changes">Request changes</button>
    <button type="button" data-decision="reject" id="btn-reject" class="danger">Reject</button>
  </div>
  <p id="result" role="status"></p>
</form>"""


def _watch_attrs(view: dict[str, Any], status_url: str, user_id: str) -> str:
    """What the page's poller compares with the server to notice a plan that changed while it was open."""
    disk = view.get("disk") or {}
    pending = view.get("pending") or {}
    values = {"status-url": status_url, "user": user_id, "revision": view.get("revision"), "sha": view.get("sha256"),
              "disk-sha": disk.get("sha256"), "pending": pending.get("tool_call_id")}  # fmt: skip
    return " ".join(f'data-{key}="{escape(str(value if value is not None else ""))}"' for key, value in values.items())


def render_page(
    view: dict[str, Any], *, previous_content: str | None, decide_url: str, static_url: str, user_id: str,
    status_url: str = "",
) -> str:
    """The whole review page for one session: an unreviewed disk edit first, then the decision buttons (with
    the scope to approve, prefilled with the declared one), the plan, its scope, the per-step diff from the
    revision last reviewed, progress against the approved plan, the line diff, todos, tasks and the audit trail. Its script polls ``status_url`` and says so when the
    plan changes while the page is open."""
    content = view.get("plan_content")
    plan_html = render_markdown(content) if content is not None else '<p class="muted">No plan written yet.</p>'
    sha = view.get("sha256") or ""
    summary = (view.get("pending") or {}).get("summary")
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Plan review: {escape(str(view.get("session_id")))}</title>
<link rel="icon" href="data:,"><link rel="stylesheet" href="{escape(static_url)}/review.css"></head>
<body id="page" {_watch_attrs(view, status_url, user_id)}>
<p id="changed" class="warning" role="alert" hidden>The plan changed since this page was loaded: reload to
review the current revision before deciding.</p>
<header>
  <h1>Plan review</h1>
  <p>Session <code id="session">{escape(str(view.get("session_id")))}</code>
     · phase <span class="badge" id="phase">{escape(str(view.get("phase")))}</span>
     · revision <span id="revision">{escape(str(view.get("revision")))}</span>
     · sha256 <code title="{escape(sha)}">{escape(sha[:12])}</code></p>
  {f'<p id="summary">{escape(str(summary))}</p>' if summary else ""}
</header>
<main>
{render_disk_edit(view)}
<section><h2>Decision</h2>{_decision_form(view, decide_url, user_id)}</section>
<section><h2>Plan</h2><article id="plan">{plan_html}</article></section>
<section><h2>Declared scope</h2>{render_scope(view.get("scope"), "scope")}</section>
<section><h2>Step changes</h2><div id="steps-diff">{render_step_changes(view.get("review_changes"),
                                                                          view.get("review_base"))}</div></section>
<section><h2>Progress against the approved plan</h2>{render_progress(list(view.get("progress") or []))}
{render_scope(view.get("approved_scope"), "approved-scope") if view.get("phase") == "building" else ""}</section>
<section><h2>Changes since the previous revision</h2><div id="diff">{render_diff(previous_content, content)}</div></section>
<section><h2>Todos</h2>{render_todos(list(view.get("todos") or []))}</section>
<section><h2>Task graph</h2>{render_tasks(list(view.get("tasks") or []))}</section>
<section><h2>Audit trail</h2>{render_audit(list(view.get("audit") or []))}</section>
</main>
<script src="{escape(static_url)}/review.js"></script>
</body></html>
"""
