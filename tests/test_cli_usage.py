"""The `planmode` command as a newcomer meets it: --version, --help, and one-line errors (never a
traceback) for bad URLs, bad timeouts and servers that are not there or not planmode."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from planmode.cli import DEFAULT_URL, DEFAULT_USER


def planmode(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    import os

    clean = {k: v for k, v in os.environ.items() if not k.startswith("PLANMODE_")}
    return subprocess.run([sys.executable, "-m", "planmode.cli", *args], capture_output=True, text=True,
                          env={**clean, **(env or {})}, timeout=120)


def assert_one_line_error(done: subprocess.CompletedProcess[str], status: int, *needles: str) -> None:
    assert done.returncode == status, done
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("planmode: "), done.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]


def test_version_names_planmode_and_the_agentscope_range() -> None:
    from importlib import metadata

    done = planmode("--version")
    assert done.returncode == 0
    assert done.stdout.strip() == (f"planmode {metadata.version('planmode')} (works with AgentScope >=2.0.11,<3; "
                                   f"installed: {metadata.version('agentscope')})")


def test_help_tells_the_defaults_and_the_environment() -> None:
    for args in (["--help"], ["status", "--help"], ["approve", "--help"]):
        text = planmode(*args).stdout
        for needle in ("PLANMODE_URL", "PLANMODE_AGENT", "PLANMODE_USER", "PLANMODE_ADMIN_TOKEN", "PLANMODE_ACTOR",
                       DEFAULT_URL, repr(DEFAULT_USER), "exit status"):
            assert needle in text, (args, needle)
    assert "--version" in planmode("--help").stdout
    status_help = planmode("status", "--help").stdout
    assert f"default {DEFAULT_URL}" in " ".join(status_help.split())
    assert f"default {DEFAULT_USER!r}" in " ".join(status_help.split())


@pytest.mark.parametrize("url", ["localhost:8000", "ftp://127.0.0.1", "http://", "127.0.0.1", "http://[::1",
                                 "http://127.0.0.1:99999", "http://127.0.0.1:0", "http:///plan", ""])
def test_a_bad_url_is_one_line(url: str) -> None:
    done = planmode("status", "--session", "s", "--agent", "a", "--url", url)
    assert_one_line_error(done, 2, "--url", "e.g. http://127.0.0.1:8000")


def test_a_bad_url_from_the_environment_is_one_line() -> None:
    done = planmode("status", "--session", "s", "--agent", "a", env={"PLANMODE_URL": "127.0.0.1:8000"})
    assert_one_line_error(done, 2, "'127.0.0.1:8000'")


@pytest.mark.parametrize("timeout", ["-1", "-0.5", "0", "nan", "inf", "-inf"])
def test_a_timeout_that_is_not_positive_is_one_line(timeout: str) -> None:
    done = planmode("status", "--session", "s", "--agent", "a", f"--timeout={timeout}")
    assert_one_line_error(done, 2, "--timeout must be a positive number of seconds")


def test_a_timeout_that_is_not_a_number_is_a_usage_error() -> None:
    done = planmode("status", "--session", "s", "--agent", "a", "--timeout", "soon")
    assert done.returncode == 2 and "Traceback" not in done.stderr and "--timeout" in done.stderr


class _NotPlanmode(BaseHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        if self.path.startswith("/v1/admin/sessions/drop"):
            self.connection.close()  # the server hangs up without answering
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.end_headers()
        self.wfile.write(b"<html>not planmode</html>")


@pytest.fixture
def other_server() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _NotPlanmode)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_a_server_that_is_not_planmode_is_one_line(other_server: str) -> None:
    done = planmode("status", "--session", "s", "--agent", "a", "--url", other_server)
    assert_one_line_error(done, 2, "did not answer with JSON", other_server)


def test_a_server_that_hangs_up_is_one_line(other_server: str) -> None:
    done = planmode("show", "--session", "drop", "--agent", "a", "--url", other_server)
    assert_one_line_error(done, 2, "cannot reach the planmode server", other_server)


def test_a_server_that_never_answers_times_out_on_one_line() -> None:
    with socket.socket() as listener:  # accepts connections (the kernel's backlog), never answers
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        url = f"http://127.0.0.1:{listener.getsockname()[1]}"
        done = planmode("status", "--session", "s", "--agent", "a", "--url", url, "--timeout", "0.5")
    assert_one_line_error(done, 2, "cannot reach the planmode server", "timed out")
