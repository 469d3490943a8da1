"""Plan mode with the sandbox: the configuration (shell_sandbox, sandbox_unclassified), what
plan_status and the banner say, and a real Agent (scripted model) running AgentScope's own
Bash tool sandboxed while planning and unchanged while building."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from _plan_support import hints, make_agent, results, run, text_of
from _sandbox_support import require_sandbox, snapshot
from agentscope.permission import PermissionMode
from agentscope.tool import BackendBase, Bash, ExecResult

from planmode.agentscope import PlanMode, call_tool, exit_plan_mode, plan_status, say
from planmode.exceptions import InvalidInputError

PROJECT = {
    "pytest.ini": "[pytest]\n",
    "calc.py": "def add(a, b):\n    return a + b\n",
    "test_calc.py": ("from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n\n\n"
                     "def test_add_negative():\n    assert add(-1, -1) == -3\n"),
}


def _project(root: Path) -> Path:
    root.mkdir()
    for name, text in PROJECT.items():
        (root / name).write_text(text)
    return root


@pytest.mark.parametrize(("kwargs", "protection"), [
    ({}, "none"),
    ({"allow_shell_in_plan_mode": True}, "classifier+sandbox"),
    ({"allow_shell_in_plan_mode": True, "shell_sandbox": "required"}, "classifier+sandbox"),
    ({"allow_shell_in_plan_mode": True, "shell_sandbox": "off"}, "classifier"),
    ({"sandbox_unclassified": True}, "sandbox"),
    ({"allow_shell_in_plan_mode": True, "sandbox_unclassified": True}, "sandbox"),
])
def test_protection_names_what_is_active(tmp_path: Path, kwargs: dict, protection: str) -> None:
    abi = require_sandbox()
    plan = PlanMode(workspace_dir=tmp_path, **kwargs)
    assert plan.shell_protection == protection
    agent, _, _ = make_agent(tmp_path, [say("hi")], plan=plan)
    status = plan_status(agent)
    assert status.shell_protection == protection
    assert status.shell_sandbox_abi == (abi if "sandbox" in protection else None)


@pytest.mark.parametrize("kwargs", [
    {"shell_sandbox": "on"}, {"shell_sandbox": None}, {"sandbox_unclassified": "yes"},
    {"shell_sandbox": "off", "sandbox_unclassified": True}, {"sandbox_readable": ["relative/dir"]},
    {"sandbox_readable": "/etc"}, {"sandbox_network": 1},
])
def test_bad_sandbox_options_are_clear_errors(tmp_path: Path, kwargs: dict) -> None:
    with pytest.raises(InvalidInputError):
        PlanMode(workspace_dir=tmp_path, **kwargs)


def _in_subprocess(code: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PLANMODE_SANDBOX_DISABLE": "1"}
    return subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                          capture_output=True, text=True)


def test_required_fails_at_construction_where_the_sandbox_cannot_work(tmp_path: Path) -> None:
    done = _in_subprocess(
        "from planmode.agentscope import PlanMode\n"
        "from planmode.exceptions import SandboxUnavailableError\n"
        "try:\n    PlanMode(workspace_dir='.', allow_shell_in_plan_mode=True, shell_sandbox='required')\n"
        "except SandboxUnavailableError as e:\n    print('refused:', e)\n", tmp_path)
    assert done.returncode == 0, done.stderr
    assert "refused: shell_sandbox='required'" in done.stdout
    assert "PLANMODE_SANDBOX_DISABLE" in done.stdout


def test_auto_says_classifier_where_the_sandbox_cannot_work(tmp_path: Path) -> None:
    done = _in_subprocess(
        "from planmode.agentscope import PlanMode\n"
        "print(PlanMode(workspace_dir='.', allow_shell_in_plan_mode=True).shell_protection,\n"
        "      PlanMode(workspace_dir='.', sandbox_unclassified=True).shell_protection)\n", tmp_path)
    assert done.stdout.split() == ["classifier", "classifier"], done.stderr


async def test_an_agent_runs_a_real_test_suite_in_the_sandbox(tmp_path: Path) -> None:
    """'sandbox' plan mode: pytest (refused by the classifier) runs; a write is refused; the
    project stays byte-identical and the model sees the test results."""
    require_sandbox()
    project = _project(tmp_path / "project")
    before = snapshot(project)
    (tmp_path / "plans-ws").mkdir()  # plan files live apart from the project
    plan = PlanMode(workspace_dir=tmp_path / "plans-ws", sandbox_unclassified=True)
    pytest_cmd = f"{sys.executable} -m pytest -q"
    script = [call_tool("plan_enter", {}, call_id="enter"),
              call_tool("Bash", {"command": pytest_cmd}, call_id="tests"),
              call_tool("Bash", {"command": "echo broken > calc.py && cat calc.py"}, call_id="write"),
              say("1 of 2 tests fails: add(-1, -1) is -2, the test expects -3.")]
    agent, model, _ = make_agent(tmp_path, script, plan=plan, tools=[Bash(cwd=str(project))])
    await run(agent)
    out = results(agent)
    tests_text = text_of(out["tests"])
    assert "1 failed, 1 passed" in tests_text
    assert "test_add_negative" in tests_text
    assert "ran in the planning sandbox" in tests_text
    write_text = text_of(out["write"])
    assert "calc.py: Permission denied" in write_text
    assert "nothing in the workspace changed" in write_text
    assert snapshot(project) == before
    assert "1 failed, 1 passed" in hints(model, 2)  # the model saw the results
    assert "kernel sandbox (Landlock)" in hints(model, 1)  # the banner named the protection
    assert plan_status(agent).shell_protection == "sandbox"


async def test_classified_commands_run_sandboxed_and_build_is_unchanged(tmp_path: Path) -> None:
    require_sandbox()
    project = _project(tmp_path / "project")
    (tmp_path / "plans-ws").mkdir()
    plan = PlanMode(workspace_dir=tmp_path / "plans-ws", allow_shell_in_plan_mode=True)
    bash = Bash(cwd=str(project))
    script = [call_tool("plan_enter", {}, call_id="enter"),
              call_tool("Bash", {"command": "echo $TMPDIR"}, call_id="env"),
              call_tool("Bash", {"command": f"{sys.executable} -m pytest -q"}, call_id="refused"),
              say("planned")]
    agent, model, _ = make_agent(tmp_path, script, plan=plan, tools=[bash], mode=PermissionMode.BYPASS)
    await run(agent)
    out = results(agent)
    assert "/planmode-sandbox-" in text_of(out["env"])  # it ran inside the sandbox (TMPDIR)
    assert out["refused"].state == "denied"  # without sandbox_unclassified: refused
    exit_plan_mode(agent)
    model.extend([call_tool("Bash", {"command": "echo built > out.txt; echo $TMPDIR"}, call_id="b"),
                  say("built")])
    await run(agent, "build it")
    built = text_of(results(agent)["b"])
    assert (project / "out.txt").read_text() == "built\n"
    assert "/planmode-sandbox-" not in built  # the build phase runs AgentScope's own backend


class RemoteLikeBackend(BackendBase):
    """A backend that is not this host's LocalBackend (as Docker or E2B are)."""

    async def exec_shell(self, command: list[str], *, cwd: str | None = None,
                         timeout: float | None = None) -> ExecResult:
        done = subprocess.run(command, cwd=cwd, capture_output=True, timeout=timeout)
        return ExecResult(exit_code=done.returncode, stdout=done.stdout, stderr=done.stderr)

    async def read_file(self, path: str) -> bytes:
        return Path(path).read_bytes()

    async def write_file(self, path: str, data: bytes) -> None:
        Path(path).write_bytes(data)


@pytest.mark.parametrize(("mode", "expected"), [("auto", "success"), ("required", "denied")])
async def test_a_remote_backend_is_not_sandboxed_here(tmp_path: Path, mode: str, expected: str) -> None:
    require_sandbox()
    project = _project(tmp_path / "project")
    (tmp_path / "plans-ws").mkdir()
    plan = PlanMode(workspace_dir=tmp_path / "plans-ws", allow_shell_in_plan_mode=True,
                    shell_sandbox=mode)  # type: ignore[arg-type]
    bash = Bash(cwd=str(project), backend=RemoteLikeBackend())
    script = [call_tool("plan_enter", {}), call_tool("Bash", {"command": "echo $TMPDIR"}, call_id="env"),
              say("ok")]
    agent, _, _ = make_agent(tmp_path, script, plan=plan, tools=[bash], mode=PermissionMode.BYPASS)
    await run(agent)
    result = results(agent)["env"]
    assert result.state == expected
    assert "/planmode-sandbox-" not in text_of(result)
