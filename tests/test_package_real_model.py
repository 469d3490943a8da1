"""examples/real_model_agent.py: clear messages when no key is set, and a whole run through AgentScope's
own OpenAIChatModel against an OpenAI-compatible server on loopback that plays a scripted LLM (the
only mock: the model's answers)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "real_model_agent.py"
KEYS = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "DASHSCOPE_API_KEY", "DASHSCOPE_BASE_URL", "PLANMODE_MODEL")


def run_example(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k not in KEYS}
    return subprocess.run([sys.executable, str(EXAMPLE), *args], env={**clean, **env}, capture_output=True,
                          text=True, timeout=300)


def test_no_key_says_what_is_missing() -> None:
    done = run_example("--yes")
    assert done.returncode == 2
    assert "OPENAI_API_KEY or DASHSCOPE_API_KEY" in done.stderr and "Traceback" not in done.stderr
    assert "examples/plan_mode_agent.py" in done.stderr  # the way to try without a key


def test_a_named_provider_without_its_key() -> None:
    done = run_example("--model", "dashscope", "--yes", OPENAI_API_KEY="sk-unused")
    assert done.returncode == 2
    assert done.stderr.strip() == "real_model_agent: --model dashscope needs DASHSCOPE_API_KEY in the environment (it is not set)"


def test_the_models_are_agentscopes_own() -> None:
    sys.path.insert(0, str(EXAMPLE.parent))
    try:
        import real_model_agent
    finally:
        sys.path.remove(str(EXAMPLE.parent))
    from agentscope.model import DashScopeChatModel, OpenAIChatModel

    openai = real_model_agent.model_from_env(None, {"OPENAI_API_KEY": "k", "PLANMODE_MODEL": "my-model"})
    assert isinstance(openai, OpenAIChatModel) and openai.model == "my-model"
    dashscope = real_model_agent.model_from_env(None, {"DASHSCOPE_API_KEY": "k"})
    assert isinstance(dashscope, DashScopeChatModel) and dashscope.model == "qwen-plus"


PLAN = "# Plan\n\n## Steps\n1. Check for '@' in signup\n2. Add a test\n"
FIXED = 'def signup(email: str, password: str) -> dict:\n    if "@" not in email:\n        raise ValueError\n    return {"email": email}\n'
SCRIPT: list[dict[str, Any]] = [
    {"tool": "plan_enter", "args": {}},
    {"tool": "read_file", "args": {"path": "app.py"}},
    {"tool": "write_file", "args": {"path": "app.py", "content": FIXED}},  # denied: still planning
    {"tool": "plan_write", "args": {"content": PLAN}},
    {"tool": "plan_exit", "args": {"summary": "Validate the email."}},
    {"tool": "write_file", "args": {"path": "app.py", "content": FIXED}},
    {"say": "Done: signup rejects emails without '@'."},
]


class ScriptedOpenAI(BaseHTTPRequestHandler):
    """``POST /v1/chat/completions`` (streamed, as OpenAIChatModel asks) playing SCRIPT step by step."""

    calls: list[dict[str, Any]] = []

    def log_message(self, *args: Any) -> None:
        pass

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).calls.append({"path": self.path, "auth": self.headers.get("Authorization"), "body": body})
        step = SCRIPT[min(len(self.calls) - 1, len(SCRIPT) - 1)]
        if "say" in step:
            delta: dict[str, Any] = {"role": "assistant", "content": step["say"]}
            finish = "stop"
        else:
            delta = {"role": "assistant", "tool_calls": [{"index": 0, "id": f"call_{len(self.calls)}", "type": "function",
                                                          "function": {"name": step["tool"],
                                                                       "arguments": json.dumps(step["args"])}}]}
            finish = "tool_calls"
        chunks = [
            {"choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
            {"choices": [{"index": 0, "delta": {}, "finish_reason": finish}]},
            {"choices": [], "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}},
        ]
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        for chunk in chunks:
            chunk.update({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 0, "model": body["model"]})
            self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
        self.wfile.write(b"data: [DONE]\n\n")


@pytest.fixture
def openai_server() -> Iterator[str]:
    ScriptedOpenAI.calls = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), ScriptedOpenAI)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


def test_a_whole_run_through_agentscopes_openai_model(openai_server: str, tmp_path: Path) -> None:
    done = run_example("--model", "openai", "--yes", "--workspace", str(tmp_path), OPENAI_API_KEY="sk-test",
                       OPENAI_BASE_URL=openai_server, PLANMODE_MODEL="local-model")
    assert done.returncode == 0, done.stderr
    assert "model: OpenAIChatModel local-model" in done.stdout
    assert "approving revision 1 (--yes)" in done.stdout
    assert "phase=building revision=1 approved_revision=1" in done.stdout
    assert (tmp_path / "app.py").read_text() == FIXED
    assert (tmp_path / "plans" / "PLAN.md").read_text() == PLAN
    calls = ScriptedOpenAI.calls
    assert len(calls) == len(SCRIPT)
    assert {c["auth"] for c in calls} == {"Bearer sk-test"}
    assert {c["body"]["model"] for c in calls} == {"local-model"}
    tool_names = {t["function"]["name"] for t in calls[0]["body"]["tools"]}
    assert {"plan_enter", "plan_write", "plan_exit", "todo_write", "read_file", "write_file"} <= tool_names
    # the early write was denied by the plan-mode gate, and the model was told so
    fourth = json.dumps(calls[3]["body"]["messages"])
    assert "Blocked: you are in PLAN mode" in fourth
