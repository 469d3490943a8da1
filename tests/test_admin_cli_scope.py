"""The real `planmode` command against a real app node: approving with a narrowed, widened, removed or kept
scope (--scope-path / --scope-command / --scope), a scope the plan core refuses (exit 1, its reason, nothing
changed), and contradicting options (exit 2)."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

import pytest
from admin_fixtures import TOKEN, USER

from devtools.nodes import (
    AppNode,
    create_scripted_session,
    get_plan,
    send_user_text,
    settled_in,
    wait_for,
)
from devtools.scripted_app import planning_script, script_message

PLAN = "# Fix the parser\n\n1. Fix `src/app.py`\n2. Run the tests\n\n## Scope\n- `src/**/*.py`\n- `$ pytest -q*`\n"
DECLARED = {"paths": ["src/**/*.py"], "commands": ["pytest -q*"]}


def _parked(node: AppNode) -> tuple[str, str]:
    with node.client(USER) as http:
        agent_id, session_id = create_scripted_session(http)
        send_user_text(http, agent_id, session_id, script_message(planning_script(PLAN)))
        wait_for(lambda: settled_in(http, agent_id, session_id, "awaiting_approval"), "the plan to park")
    return agent_id, session_id


def _cli(node: AppNode, agent_id: str, session_id: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PLANMODE_")}
    argv = [sys.executable, "-m", "planmode.cli", *args, "--session", session_id, "--agent", agent_id,
            "--url", node.url, "--user", USER, "--token", TOKEN, "--actor", "ops", "--timeout", "120"]  # fmt: skip
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300)


def _view(node: AppNode, agent_id: str, session_id: str) -> dict[str, Any]:
    with node.client(USER) as http:
        return get_plan(http, agent_id, session_id)


@pytest.mark.parametrize(("args", "approved", "detail"), [
    (["--scope-path", "src/app.py", "--scope-command", "pytest -q tests/"],
     {"paths": ["src/app.py"], "commands": ["pytest -q tests/"]}, "scope narrowed"),
    (["--scope-path", "src/**/*.py", "--scope-path", "docs/**"],
     {"paths": ["src/**/*.py", "docs/**"], "commands": []}, "scope widened: added paths docs/**"),
    (["--scope", "none"], None, "scope widened: removed"),
    (["--scope", "empty"], {"paths": [], "commands": []}, "scope narrowed"),
    ([], DECLARED, None),
], ids=["narrow", "widen", "none", "empty", "declared"])  # fmt: skip
def test_approve_with_a_scope(one_node: AppNode, args: list[str], approved: Any, detail: str | None) -> None:  # noqa: F811
    agent_id, session_id = _parked(one_node)
    status = _cli(one_node, agent_id, session_id, "status")
    assert "scope     paths src/**/*.py; commands pytest -q*" in status.stdout, status.stdout
    result = _cli(one_node, agent_id, session_id, "approve", *args)
    assert (result.returncode, result.stdout.strip()) == (0, "approve of revision 1 applied"), result.stderr
    view = wait_for(lambda: (v := _view(one_node, agent_id, session_id))["phase"] == "building" and v, "the build")
    assert view["approved_scope"] == approved
    decision = [a for a in view["audit"] if a["kind"] == "decision"][-1]
    assert (detail in decision["detail"]) if detail else "detail" not in decision, decision


def test_a_refused_scope_exits_1_and_changes_nothing(one_node: AppNode) -> None:  # noqa: F811
    agent_id, session_id = _parked(one_node)
    before = _view(one_node, agent_id, session_id)
    for bad, words in (("../etc/passwd", "climbs out"), ("/etc/passwd", "not inside the workspace")):
        result = _cli(one_node, agent_id, session_id, "approve", "--scope-path", bad)
        assert result.returncode == 1 and words in result.stderr and "Traceback" not in result.stderr, result.stderr
    after = _view(one_node, agent_id, session_id)
    assert after["audit"] == before["audit"] and after["phase"] == "awaiting_approval"
    contradicting = _cli(one_node, agent_id, session_id, "approve", "--scope", "none", "--scope-path", "src/a.py")
    assert contradicting.returncode == 2 and "cannot go with" in contradicting.stderr, contradicting.stderr
