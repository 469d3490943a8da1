"""The README's main command: examples/plan_mode_agent.py runs offline and ends as expected."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "plan_mode_agent.py"


def _run(*args: str, stdin: str = "") -> str:
    done = subprocess.run([sys.executable, str(EXAMPLE), *args], input=stdin, capture_output=True, text=True,
                          timeout=120, check=True)
    return done.stdout


def test_example_approves_with_yes(tmp_path: Path) -> None:
    out = _run("--yes", "--workspace", str(tmp_path))
    assert "write_file(" in out and "-> [denied] Blocked: you are in PLAN mode (read-only)." in out
    assert "Plan saved to" in out and "Approve? [y]es" in out and "Plan approved (revision 1" in out
    assert "- [x] Add tests for both checks" in out
    assert "outcome=exited_with_plan phase=building" in out
    assert "raise ValueError" in (tmp_path / "app.py").read_text()
    assert (tmp_path / "plans" / "PLAN.md").exists()


def test_example_treats_closed_stdin_as_reject(tmp_path: Path) -> None:
    out = _run("--workspace", str(tmp_path))
    assert "No answer (stdin is closed): rejecting the plan" in out
    assert "outcome=planning_with_plan phase=planning" in out and "decision(reject)" in out
    assert "raise ValueError" not in (tmp_path / "app.py").read_text()


def test_example_request_changes_from_the_terminal(tmp_path: Path) -> None:
    out = _run("--workspace", str(tmp_path), stdin="c\nAdd a rollback step\n")
    assert "requested changes to your plan" in out and "decision(request_changes)" in out
