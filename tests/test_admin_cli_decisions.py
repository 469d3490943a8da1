"""The real `planmode` command against real app nodes (uvicorn + redis-server): a decision that was
accepted (202) but never applied is a failure (exit 1, one line saying why), never a success and never
a traceback.

The resume is made unable to run the way it fails in a deployment: the session's model credential is
deleted after the plan parked, so every node's resume of the reply fails before the claim is applied
(AgentScope cannot build the session's model). Then:
* with a short decision lease the claim lapses unapplied: "accepted but not applied ... decide again";
* with the default 60 s lease and --timeout 1 the outcome is not known in time: "not applied within 1s";
* the node the CLI talks to is SIGKILLed while it waits: still exit 1 "not applied", not exit 2.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from admin_fixtures import TOKEN, USER

from devtools.nodes import (
    AppNode,
    RedisServer,
    create_scripted_session,
    get_plan,
    send_user_text,
    settled_in,
    wait_for,
)
from devtools.scripted_app import planning_script, script_message

PLAN = "# Rotate the keys\n\n1. Issue new keys\n2. Switch the readers\n3. Revoke the old keys\n"
SHORT_LEASE_SECS = 2
CLI_WAIT_SECS = 120.0  # a bound for a loaded machine: the command returns as soon as it knows


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[RedisServer, dict[str, AppNode], Path]]:
    """One redis-server; node "lapse" claims with a short decision lease (and a short run lease),
    node "steady" with the default 60 s lease."""
    workdir = tmp_path_factory.mktemp("cli-decisions")
    with ExitStack() as stack:
        redis = RedisServer(workdir)
        stack.callback(redis.stop)
        short = {"PLANMODE_DECISION_LEASE_SECS": str(SHORT_LEASE_SECS), "PLANMODE_RUN_LOCK_TTL_SECS": "3"}
        nodes = {"lapse": AppNode("lapse", redis.port, workdir, TOKEN, env=short),
                 "steady": AppNode("steady", redis.port, workdir, TOKEN)}  # fmt: skip
        for node in nodes.values():
            stack.callback(node.stop)
        for node in nodes.values():
            node.wait_ready()
        yield redis, nodes, workdir


def _parked_without_a_model(node: AppNode) -> tuple[str, str]:
    """A session whose plan awaits approval, then whose model credential is deleted: its resume cannot run."""
    with node.client(USER) as http:
        before = {c["id"] for c in http.get("/credential/").json()["credentials"]}
        agent_id, session_id = create_scripted_session(http)
        send_user_text(http, agent_id, session_id, script_message(planning_script(PLAN)))
        wait_for(lambda: settled_in(http, agent_id, session_id, "awaiting_approval"), "the plan to park")
        for credential in http.get("/credential/").json()["credentials"]:
            if credential["id"] not in before:
                assert http.delete(f"/credential/{credential['id']}").status_code == 204
    return agent_id, session_id


def _cli(node: AppNode, agent_id: str, session_id: str, *args: str) -> tuple[list[str], dict[str, str]]:
    """The command line and an environment without PLANMODE_* defaults."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PLANMODE_")}
    argv = [sys.executable, "-m", "planmode.cli", *args, "--session", session_id, "--agent", agent_id,
            "--url", node.url, "--user", USER, "--token", TOKEN, "--actor", "ops"]  # fmt: skip
    return argv, env


def _run_cli(node: AppNode, agent_id: str, session_id: str, *args: str) -> subprocess.CompletedProcess[str]:
    argv, env = _cli(node, agent_id, session_id, *args)
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=CLI_WAIT_SECS * 2)


def _one_line_failure(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 1, (result.returncode, result.stdout, result.stderr)
    assert result.stdout == "", "nothing may be reported as applied"
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("planmode: "), result.stderr
    assert "Traceback" not in result.stderr
    return lines[0]


def _still_awaiting(node: AppNode, agent_id: str, session_id: str) -> dict[str, Any]:
    with node.client(USER) as http:
        view = get_plan(http, agent_id, session_id)
    assert view["phase"] == "awaiting_approval" and view["approved_revision"] is None
    assert not [a for a in view["audit"] if a["kind"] == "decision"], "nothing was applied"
    return view


def test_a_decision_whose_resume_cannot_run_exits_1_once_its_claim_lapses(cluster: Any) -> None:
    _, nodes, _ = cluster
    node = nodes["lapse"]
    agent_id, session_id = _parked_without_a_model(node)
    result = _run_cli(node, agent_id, session_id, "approve", "--timeout", str(CLI_WAIT_SECS))
    line = _one_line_failure(result)
    assert "accepted but not applied" in line and "decide again" in line, line
    view = _still_awaiting(node, agent_id, session_id)
    assert view["decision_in_flight"]["live"] is False, "the claim lapsed: the plan can be decided again"


def test_a_decision_not_applied_before_the_timeout_exits_1(cluster: Any) -> None:
    _, nodes, _ = cluster
    node = nodes["steady"]
    agent_id, session_id = _parked_without_a_model(node)
    result = _run_cli(node, agent_id, session_id, "approve", "--timeout", "1")
    line = _one_line_failure(result)
    assert "accepted but not applied within 1s" in line, line
    view = _still_awaiting(node, agent_id, session_id)
    assert view["decision_in_flight"]["live"] is True, "the claim is still in flight: the outcome was unknown"


def test_the_node_dying_while_the_cli_waits_is_exit_1_not_applied(cluster: Any) -> None:
    redis, nodes, workdir = cluster
    victim = AppNode("victim", redis.port, workdir, TOKEN)
    try:
        victim.wait_ready()
        agent_id, session_id = _parked_without_a_model(victim)
        argv, env = _cli(victim, agent_id, session_id, "approve", "--timeout", "20")
        cli = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        with victim.client(USER) as http:  # the decision was accepted: its claim is in state
            wait_for(lambda: (get_plan(http, agent_id, session_id).get("decision_in_flight") or {}).get("live"),
                     "the decision to be accepted")  # fmt: skip
        victim.kill()
        out, err = cli.communicate(timeout=CLI_WAIT_SECS)
        line = _one_line_failure(subprocess.CompletedProcess(argv, cli.returncode, out, err))
        assert "accepted but not applied within 20s" in line and "stopped answering" in line, line
        _still_awaiting(nodes["steady"], agent_id, session_id)  # the state in Redis: nothing applied
    finally:
        victim.stop()
