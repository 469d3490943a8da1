"""The review page's rendering: Markdown, diff, task graph, audit, all escaped (no plan API, no server)."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import Any

import pytest

from planmode.agentscope._admin._review import (
    render_audit,
    render_diff,
    render_markdown,
    render_page,
    render_progress,
    render_scope,
    render_step_changes,
    render_tasks,
    render_todos,
)

HOSTILE = '<script>alert(1)</script><img src=x onerror="alert(2)">"\'&'


class _Tags(HTMLParser):
    """Collects every start tag with its attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def tags_of(html: str) -> list[tuple[str, dict[str, str | None]]]:
    parser = _Tags()
    parser.feed(html)
    return parser.tags


def assert_inert(html: str, *, scripts_allowed: int = 0) -> None:
    """No injected element, no event-handler attribute, no javascript: URL."""
    tags = tags_of(html)
    assert sum(1 for tag, _ in tags if tag == "script") == scripts_allowed
    assert not any(tag == "img" for tag, _ in tags)
    for _, attrs in tags:
        assert not any(name.startswith("on") for name in attrs), attrs
        assert not any((value or "").strip().lower().startswith("javascript:") for value in attrs.values())


def test_markdown_renders_structure() -> None:
    html = render_markdown("# Plan\n\n1. **Read** the code\n2. Write `tests`\n\n| a | b |\n|---|---|\n| 1 | 2 |\n")
    assert "<h1>Plan</h1>" in html
    assert "<ol>" in html and "<strong>Read</strong>" in html and "<code>tests</code>" in html
    assert "<table>" in html


@pytest.mark.parametrize(
    "text",
    [
        HOSTILE,
        "[click](javascript:alert(1))",
        "[x](JaVaScRiPt:alert(1))",
        "![img](javascript:alert(1))",
        "<a href='javascript:alert(1)'>x</a>",
        "```\n</pre><script>alert(1)</script>\n```",
        "<svg onload=alert(1)>",
        "[ok](vbscript:msgbox(1))",
    ],
)
def test_markdown_escapes_raw_html_and_unsafe_links(text: str) -> None:
    html = render_markdown(text)
    assert_inert(html)
    assert "<script" not in html.lower()


def test_diff_marks_added_and_removed_lines_escaped() -> None:
    html = render_diff("step one\nold <b>line</b>\n", "step one\nnew <script>x</script>\n")
    assert '<span class="del">-old &lt;b&gt;line&lt;/b&gt;</span>' in html
    assert '<span class="add">+new &lt;script&gt;x&lt;/script&gt;</span>' in html
    assert_inert(html)


def test_diff_edge_cases() -> None:
    assert "First revision" in render_diff(None, "plan")
    assert "No change" in render_diff("same\n", "same\n")
    assert "No plan" in render_diff(None, None)


def test_task_graph_layers_by_dependency() -> None:
    tasks = [
        {"id": "3", "subject": "ship", "state": "pending", "blocked_by": ["2"]},
        {"id": "1", "subject": "read", "state": "completed", "blocked_by": []},
        {"id": "2", "subject": "write", "state": "in_progress", "blocked_by": ["1"]},
        {"id": "4", "subject": "cycle-a", "state": "pending", "blocked_by": ["5"]},
        {"id": "5", "subject": "cycle-b", "state": "pending", "blocked_by": ["4"]},
    ]
    html = render_tasks(tasks)
    levels = re.findall(r'<div class="level"><h3>Level (\d+)</h3><ul>(.*?)</ul></div>', html)
    by_level = {int(level): re.findall(r"<b>#(\d+)</b>", body) for level, body in levels}
    assert by_level[0][0] == "1" and "2" in by_level[1] and "3" in by_level[2]
    assert sorted(sum(by_level.values(), [])) == ["1", "2", "3", "4", "5"]  # a cycle still shows every task
    assert "after #1" in html


def test_lists_and_audit_escape_every_value() -> None:
    todos = [{"content": HOSTILE, "status": HOSTILE}]
    tasks = [{"id": HOSTILE, "subject": HOSTILE, "state": HOSTILE, "blocked_by": [HOSTILE]}]
    audit = [{"kind": HOSTILE, "actor": HOSTILE, "at": HOSTILE, "revision": 1, "feedback": HOSTILE}]
    for html in (render_todos(todos), render_tasks(tasks), render_audit(audit)):
        assert_inert(html)
        assert "&lt;script&gt;" in html


def _view(**overrides: Any) -> dict[str, Any]:
    view: dict[str, Any] = {
        "session_id": HOSTILE,
        "phase": "awaiting_approval",
        "revision": 2,
        "sha256": HOSTILE,
        "plan_content": "# Plan\n" + HOSTILE,
        "pending": {"revision": 2, "summary": HOSTILE, "tool_call_id": "c1", "reply_id": "r1"},
        "todos": [{"content": HOSTILE, "status": "pending"}],
        "tasks": [],
        "audit": [{"kind": "written", "actor": HOSTILE, "at": "now", "revision": 2}],
        "decision_in_flight": None,
    }
    view.update(overrides)
    return view


def test_page_escapes_everything_and_loads_only_its_own_script() -> None:
    page = render_page(
        _view(),
        previous_content="# Plan\n" + HOSTILE + "\nold",
        decide_url='/x?agent_id="><script>alert(1)</script>',
        static_url="/v1/admin/static",
        user_id=HOSTILE,
    )
    assert_inert(page, scripts_allowed=1)
    scripts = [attrs for tag, attrs in tags_of(page) if tag == "script"]
    assert scripts == [{"src": "/v1/admin/static/review.js"}]
    form = next(attrs for tag, attrs in tags_of(page) if tag == "form")
    assert form["data-url"] == '/x?agent_id="><script>alert(1)</script>'  # an attribute value, not markup
    assert form["data-user"] == HOSTILE and form["data-revision"] == "2"
    editor = re.search(r'<textarea id="editor" rows="18">(.*?)</textarea>', page, re.S)
    assert editor is not None and "&lt;script&gt;" in editor.group(1)


def test_page_without_pending_has_no_buttons_and_in_flight_is_reported() -> None:
    page = render_page(_view(pending=None), previous_content=None, decide_url="/d", static_url="/s", user_id="u")
    assert 'id="no-pending"' in page and "<button" not in page
    claim = {"decision": "approve", "actor": HOSTILE, "revision": 2, "live": True}
    page = render_page(_view(decision_in_flight=claim), previous_content=None, decide_url="/d", static_url="/s",
                       user_id="u")  # fmt: skip
    assert 'id="in-flight"' in page and "<button" not in page
    assert_inert(page, scripts_allowed=1)


def test_scope_step_changes_and_progress_are_escaped() -> None:
    scope = {"paths": [HOSTILE], "commands": [HOSTILE]}
    changes = [{"id": HOSTILE, "change": HOSTILE, "text": HOSTILE, "old_text": HOSTILE, "moved": True}]
    progress = [{"id": HOSTILE, "text": HOSTILE, "status": HOSTILE, "files": [HOSTILE], "action": HOSTILE}]
    for html in (render_scope(scope, "scope"), render_step_changes(changes, 1), render_progress(progress)):
        assert_inert(html)
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    view = {"session_id": "s", "phase": "awaiting_approval", "revision": 2, "sha256": "ab", "plan_content": "# x",
            "pending": {"revision": 2, "tool_call_id": "c"}, "scope": scope, "review_base": 1,
            "review_changes": changes, "progress": progress}  # fmt: skip
    page = render_page(view, previous_content=None, decide_url="/d", static_url="/s", user_id="u")
    assert_inert(page, scripts_allowed=1)
    fields = {attrs.get("id") for tag, attrs in tags_of(page) if tag in ("textarea", "select")}
    assert {"scope-paths", "scope-commands", "scope-mode"} <= fields


def test_scope_sections_say_when_there_is_nothing() -> None:
    assert "No scope" in render_scope(None, "scope")
    assert "First revision" in render_step_changes(None, None)
    assert "no longer stored" in render_step_changes(None, 3)
    assert "No step changed since revision 2" in render_step_changes([], 2)
    assert "No approved plan" in render_progress([])


def test_progress_shows_each_steps_files_and_action() -> None:
    html = render_progress([{"id": "s1", "text": "edit", "status": "completed", "files": ["src/a.py", "b.md"],
                             "action": "edit"}, {"id": "s2", "text": "test", "status": "pending", "files": [],
                                                 "action": None}])  # fmt: skip
    assert "files: <code>src/a.py</code>, <code>b.md</code> · action: edit" in html
    assert html.count("step-details") == 1
