"""The `planmode` command without a server: usage errors and an unreachable server give clear, non-zero exits."""

from __future__ import annotations

import subprocess
import sys

import pytest

from devtools.nodes import free_port
from planmode.cli import main


def test_unreachable_server_is_reported_with_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    assert main(["status", "--session", "s1", "--agent", "a1", "--url", url]) == 2
    err = capsys.readouterr().err
    assert err.startswith("planmode: cannot reach the planmode server at " + url)
    assert "refused" in err.lower()


def test_unresolvable_host_is_reported(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", "--session", "s1", "--agent", "a1", "--url", "http://no-such-host.invalid"]) == 2
    assert "cannot reach the planmode server at http://no-such-host.invalid" in capsys.readouterr().err


def test_missing_agent_and_token_are_usage_errors(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PLANMODE_AGENT", raising=False)
    monkeypatch.delenv("PLANMODE_ADMIN_TOKEN", raising=False)
    assert main(["status", "--session", "s1"]) == 2
    assert "--agent (or PLANMODE_AGENT) is required" in capsys.readouterr().err
    assert main(["enter", "--session", "s1", "--agent", "a", "--url", f"http://127.0.0.1:{free_port()}"]) == 2
    assert "needs the admin token" in capsys.readouterr().err


def test_request_changes_needs_feedback(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["request-changes", "--session", "s1", "--agent", "a"])
    assert exc.value.code == 2
    assert "--feedback" in capsys.readouterr().err


def test_console_entry_point_runs_without_agentscope_imports() -> None:
    code = "import sys, planmode.cli; assert 'agentscope' not in sys.modules, 'the CLI must not need agentscope'"
    subprocess.run([sys.executable, "-c", code], check=True)
    result = subprocess.run([sys.executable, "-m", "planmode.cli", "--help"], capture_output=True, text=True)
    assert result.returncode == 0 and "status" in result.stdout and "approve" in result.stdout
