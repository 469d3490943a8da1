"""planmode's console, driven as a person would: in tmux, typing, reading the screen, editing in vi.

The agent is examples/console_agent.py (scripted model); the console is
planmode.agentscope.console.launch_console on top of AgentScope's ConsoleRenderer."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "console_agent.py"
WAIT = 60.0  # seconds a screen may take to show up on a loaded machine (a bound on waiting, not a check)

assert shutil.which("tmux"), "tmux is missing: make test installs it (scripts/system-deps.sh)"


class Terminal:
    """One tmux session running a command, on a tmux server of its own (``-L``): another session's
    server shutting down while this one starts cannot take it along."""

    def __init__(self, command: str) -> None:
        self.name = f"planmode-{uuid.uuid4().hex[:8]}"
        self.tmux = ["tmux", "-L", self.name]
        subprocess.run([*self.tmux, "new-session", "-d", "-s", self.name, "-x", "160", "-y", "60",
                        f"{command}; echo '[exited]'; sleep 600"], check=True)

    def type(self, *keys: str) -> None:
        """Sends keys (tmux names like Enter and Escape are keys, other strings are typed)."""
        subprocess.run([*self.tmux, "send-keys", "-t", self.name, *keys], check=True)

    def line(self, text: str) -> None:
        """Types a line of text and presses Enter."""
        self.type("-l", text)
        self.type("Enter")

    def screen(self) -> str:
        """The whole scrollback, as shown."""
        return subprocess.run([*self.tmux, "capture-pane", "-t", self.name, "-p", "-S", "-2000"],
                              capture_output=True, text=True, check=True).stdout

    def visible(self) -> str:
        """Only what is on screen now (no scrollback)."""
        return subprocess.run([*self.tmux, "capture-pane", "-t", self.name, "-p"],
                              capture_output=True, text=True, check=True).stdout

    def wait_for(self, text: str, count: int = 1) -> str:
        """Waits until ``text`` appears ``count`` times on screen; returns the screen."""
        deadline = time.monotonic() + WAIT
        while True:
            shown = self.screen()
            if shown.count(text) >= count:
                return shown
            if time.monotonic() > deadline:
                raise AssertionError(f"{text!r} (x{count}) never appeared; the screen was:\n{shown}")
            time.sleep(0.2)

    def close(self) -> None:
        subprocess.run([*self.tmux, "kill-server"], check=False)


@pytest.fixture
def console(tmp_path: Path) -> Iterator[tuple[Terminal, Path]]:
    workspace = tmp_path / "ws"
    term = Terminal(f"cd {tmp_path} && EDITOR='vi -u NONE -N' {sys.executable} {EXAMPLE} --workspace {workspace}")
    try:
        term.wait_for("Type 'exit'")
        yield term, workspace
    finally:
        term.close()


MENU = "[a] approve / [e] edit in $EDITOR, then approve / [c] request changes"


def test_request_changes_then_see_the_diff_then_edit_in_vi_and_approve(console: tuple[Terminal, Path]) -> None:
    term, workspace = console
    term.line("add input validation")
    screen = term.wait_for(MENU)
    assert "Plan approval: plans/PLAN.md, revision 1" in screen
    assert "Summary: Validate the email in signup, with a test." in screen
    assert "1. Add an email check to signup" in screen  # the whole plan on the first review
    assert "Allow 'plan_exit'?" not in screen

    term.line("c")
    term.wait_for("What should change?")
    term.line("Add a rollback step")
    screen = term.wait_for("Plan approval: plans/PLAN.md, revision 2")
    screen = term.wait_for(MENU, 2)
    assert "Changes since revision 1, which you reviewed:" in screen
    assert "+3. Add a rollback step" in screen

    term.line("e")  # vi opens the plan
    term.wait_for("~")
    term.type("G")
    term.type("-l", "o4. Keep the old behaviour behind a flag")
    term.type("Escape")
    term.line(":wq")
    screen = term.wait_for("Done: built revision 3 of the plan.")
    plan = (workspace / "plans" / "PLAN.md").read_text()
    assert plan.endswith("3. Add a rollback step\n4. Keep the old behaviour behind a flag\n")
    term.line("exit")
    screen = term.wait_for("plan_status:")
    assert "phase=building revision=3 approved_revision=3 exited_by=user" in screen


def test_reject_with_a_reason_and_unknown_answers_are_asked_again(console: tuple[Terminal, Path]) -> None:
    term, workspace = console
    term.line("add input validation")
    term.wait_for(MENU)
    term.line("maybe")
    term.wait_for("Please answer one of: a, e, c, r, s")
    term.line("c")
    term.wait_for("What should change?")
    term.line("")  # no feedback: asked again, nothing sent
    term.wait_for("Feedback is needed to request changes.")
    term.line("s")
    screen = term.wait_for("2. Add tests", 2)
    term.line("r")
    term.wait_for("Why?")
    term.line("Use the existing validator module")
    screen = term.wait_for("the plan was not approved, so I changed nothing")
    result = screen.split("Why?")[1]  # the plan_exit result the console rendered after the answer
    assert "plan_exit · denied" in result and "The user rejected" in result
    assert result.count("Use the existing validator module") == 2  # typed, then in the tool result
    assert (workspace / "app.py").read_text().count("validated") == 0
    term.line("exit")
    screen = term.wait_for("plan_status:")
    assert "phase=planning revision=1 approved_revision=None" in screen


def test_editor_missing_is_explained_and_nothing_is_approved(tmp_path: Path) -> None:
    term = Terminal(f"cd {tmp_path} && env -u EDITOR -u VISUAL {sys.executable} {EXAMPLE} --workspace {tmp_path}/ws")
    try:
        term.wait_for("Type 'exit'")
        term.line("go")
        term.wait_for(MENU)
        term.line("e")
        term.wait_for("Cannot edit: set $EDITOR (or $VISUAL) to edit the plan")
        term.line("a")
        term.wait_for("Done: built revision 1 of the plan.")
    finally:
        term.close()


# ---- AgentScope's TUI (Textual), through planmode.agentscope.tui.launch_tui ----

TUI_KEYS = "[e] edit in $EDITOR, then approve"


def test_tui_request_changes_diff_edit_in_vi_and_approve(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    term = Terminal(f"cd {tmp_path} && EDITOR='vi -u NONE -N' {sys.executable} {EXAMPLE} --tui --workspace {workspace}")
    try:
        term.wait_for("Message the agent")
        term.line("add input validation")
        screen = term.wait_for(TUI_KEYS)
        assert "Plan approval: plans/PLAN.md, revision 1" in screen and "1. Add an email check to signup" in screen
        term.type("c")
        term.wait_for("What should change?")
        term.line("Add a rollback step")
        screen = term.wait_for("Plan approval: plans/PLAN.md, revision 2")
        assert "Changes since revision 1, which you reviewed:" in screen and "+3. Add a rollback step" in screen
        term.type("s")  # the whole plan instead of the diff
        deadline = time.monotonic() + WAIT
        while "Changes since revision 1" in term.visible() and time.monotonic() < deadline:
            time.sleep(0.2)
        shown = term.visible()
        assert "Changes since revision 1" not in shown and "1. Add an email check to signup" in shown
        term.type("e")  # the TUI steps aside for vi
        term.wait_for("~")
        term.type("G")
        term.type("-l", "o4. Keep the old behaviour behind a flag")
        term.type("Escape")
        term.line(":wq")
        term.wait_for("Done: built revision 3 of the plan.")
        assert (workspace / "plans" / "PLAN.md").read_text().endswith("4. Keep the old behaviour behind a flag\n")
        term.line("/exit")
        screen = term.wait_for("plan_status:")
        assert "phase=building revision=3 approved_revision=3 exited_by=user" in screen
    finally:
        term.close()


def test_tui_reject_with_a_reason(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    term = Terminal(f"cd {tmp_path} && {sys.executable} {EXAMPLE} --tui --workspace {workspace}")
    try:
        term.wait_for("Message the agent")
        term.line("go")
        term.wait_for(TUI_KEYS)
        term.type("r")
        term.wait_for("Why?")
        term.line("Not this sprint")
        term.wait_for("the plan was not approved, so I changed nothing")
        term.line("/exit")
        screen = term.wait_for("plan_status:")
        assert "phase=planning revision=1 approved_revision=None" in screen
        assert "validated" not in (workspace / "app.py").read_text()
    finally:
        term.close()
