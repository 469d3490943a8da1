"""Real processes for tests and the two-node example: a redis-server and AgentScope app nodes on loopback.

Every wait is bounded and every process is torn down (``stop``) even when a step fails.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import httpx

T = TypeVar("T")

CHECKOUT = Path(__file__).resolve().parent.parent
"""The source checkout holding ``devtools``: each app node imports ``devtools.scripted_app`` from it."""

START_TIMEOUT_SECS = 90.0
"""Longest wait for a process to start answering."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for(probe: Callable[[], T | None], what: str, timeout: float = START_TIMEOUT_SECS) -> T:
    """Polls ``probe`` until it returns something other than None/False; TimeoutError naming ``what``."""
    deadline = time.monotonic() + timeout
    last_error: Exception | None = None
    while time.monotonic() < deadline:
        try:
            value = probe()
            if value is not None and value is not False:
                return value
        except (OSError, httpx.HTTPError) as exc:
            last_error = exc
        time.sleep(0.1)
    raise TimeoutError(f"timed out after {timeout:.0f}s waiting for {what} (last error: {last_error})")


class _Process:
    """A child process with a log file, stopped politely then firmly."""

    def __init__(self, name: str, argv: list[str], log_dir: Path, env: dict[str, str] | None = None) -> None:
        self.name = name
        self.log_path = log_dir / f"{name}.log"
        self._log = self.log_path.open("wb")
        self.proc = subprocess.Popen(
            argv, stdout=self._log, stderr=subprocess.STDOUT, env={**os.environ, **(env or {})}, cwd=log_dir
        )

    def check_alive(self) -> None:
        """Raises with the log tail when the process has exited."""
        if self.proc.poll() is not None:
            tail = self.log_path.read_text(errors="replace")[-3000:]
            raise RuntimeError(f"{self.name} exited with {self.proc.returncode}; log tail:\n{tail}")

    def kill(self) -> None:
        """SIGKILL: the machine dies without any cleanup."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=10)
        self._log.close()

    def stop(self) -> None:
        """SIGTERM, then SIGKILL after 10 s."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        self._log.close()


class RedisServer(_Process):
    """``redis-server`` on a free loopback port, no persistence."""

    def __init__(self, log_dir: Path) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            raise RuntimeError("redis-server is not installed (apt-get install redis-server)")
        self.port = free_port()
        argv = [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        super().__init__(f"redis-{self.port}", argv, log_dir)
        try:
            wait_for(self._ping, f"redis-server on port {self.port}", timeout=30)
        except BaseException:
            self.stop()
            raise

    def _ping(self) -> bool:
        self.check_alive()
        with socket.create_connection(("127.0.0.1", self.port), timeout=1) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")


class AppNode(_Process):
    """One AgentScope app process (``scripted_app:app_from_env``) with its own workspace directory (pass
    ``workspace_dir`` to restart a node on the disk it had; ``env`` adds variables such as
    ``PLANMODE_RUN_LOCK_TTL_SECS``).

    The constructor only spawns it (so several nodes start in parallel); :meth:`wait_ready` waits for it."""

    def __init__(
        self,
        name: str,
        redis_port: int,
        workdir: Path,
        admin_token: str,
        *,
        workspace_dir: Path | None = None,
        env: dict[str, str] | None = None,
    ) -> None:
        self.port = free_port()
        self.redis_port = redis_port
        self.url = f"http://127.0.0.1:{self.port}"
        self.workspace_dir = workspace_dir or workdir / f"{name}-workspaces"
        env = {
            "PLANMODE_REDIS_PORT": str(redis_port),
            "PLANMODE_WORKSPACE_DIR": str(self.workspace_dir),
            "PLANMODE_ADMIN_TOKEN": admin_token,
            **(env or {}),
        }
        argv = [sys.executable, "-m", "uvicorn", "--factory", "devtools.scripted_app:app_from_env",
                "--app-dir", str(CHECKOUT), "--host", "127.0.0.1", "--port", str(self.port),
                "--log-level", "warning"]  # fmt: skip
        super().__init__(name, argv, workdir, env)

    def wait_ready(self) -> AppNode:
        """Waits (bounded) until the node answers HTTP; raises with its log tail if it died."""
        wait_for(self._healthy, f"app node {self.name} on port {self.port}")
        return self

    def _healthy(self) -> bool:
        self.check_alive()
        # /health wants an X-User-ID like every route: any answer means the app is serving.
        return httpx.get(f"{self.url}/health", timeout=2).status_code < 500

    def client(self, user_id: str, **headers: str) -> httpx.Client:
        """An HTTP client for this node acting as ``user_id``."""
        return httpx.Client(base_url=self.url, headers={"X-User-ID": user_id, **headers}, timeout=30)


def create_scripted_session(client: httpx.Client, agent_name: str = "planner") -> tuple[str, str]:
    """Creates a scripted-model credential, an agent and a session through the app's own routes;
    returns ``(agent_id, session_id)``."""
    credential = client.post("/credential/", json={"data": {"type": "planmode_scripted_credential"}})
    credential.raise_for_status()
    agent = client.post("/agent/", json={"name": agent_name, "system_prompt": "You plan, then build."})
    agent.raise_for_status()
    agent_id = agent.json()["agent_id"]
    model = {"type": "planmode_scripted_credential", "credential_id": credential.json()["credential_id"],
             "model": "scripted", "parameters": {}}  # fmt: skip
    session = client.post("/sessions/", json={"agent_id": agent_id, "chat_model_config": model})
    session.raise_for_status()
    return agent_id, session.json()["session_id"]


def send_user_text(client: httpx.Client, agent_id: str, session_id: str, text: str) -> None:
    """``POST /chat/`` with one user message (the run proceeds in the background)."""
    message: dict[str, Any] = {"name": "user", "role": "user", "content": [{"type": "text", "text": text}]}
    response = client.post("/chat/", json={"agent_id": agent_id, "session_id": session_id, "input": message})
    response.raise_for_status()


def get_plan(client: httpx.Client, agent_id: str, session_id: str) -> dict[str, Any]:
    """``GET /v1/admin/sessions/{id}/plan`` (raises on an error status)."""
    response = client.get(f"/v1/admin/sessions/{session_id}/plan", params={"agent_id": agent_id})
    response.raise_for_status()
    return dict(response.json())


def settled_in(client: httpx.Client, agent_id: str, session_id: str, phase: str) -> dict[str, Any] | None:
    """The plan view once the session is in ``phase`` and no run holds it, else None (for :func:`wait_for`)."""
    view = get_plan(client, agent_id, session_id)
    return view if view["phase"] == phase and not view["running"] else None
