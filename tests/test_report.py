"""`planmode report` and `planmode.report`: outcomes over many runs, from dumped AgentState files, in
memory, and from a real AgentScope app's Redis storage; tolerant of bounded states, loud about bad input."""

from __future__ import annotations

import json
import statistics
from collections import Counter
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from _report_support import Expected, generated_states
from admin_fixtures import TOKEN, USER

from devtools.nodes import (
    AppNode,
    RedisServer,
    create_scripted_session,
    free_port,
    send_user_text,
    settled_in,
    wait_for,
)
from devtools.scripted_app import planning_script, say_step, script_message
from planmode.cli import main
from planmode.report import (
    format_report,
    report_from_dir,
    report_from_redis,
    report_from_sql,
    report_from_sql_async,
    report_from_states,
)

RUNS = 140


@pytest.fixture(scope="module")
def generated() -> tuple[list[Any], Expected]:
    return generated_states(RUNS)


def _dump(states: list[Any], directory: Path) -> Path:
    for i, state in enumerate(states):
        sub = directory / f"batch{i % 3}"
        sub.mkdir(parents=True, exist_ok=True)
        (sub / f"run-{i:04d}.json").write_text(state.model_dump_json(), encoding="utf-8")
    return directory


def _check_against(report: dict[str, Any], expected: Expected, runs: int) -> None:
    assert report["runs"] == runs and report["unreadable"] == 0
    assert report["outcomes"] == {name: expected.outcomes[name] for name in report["outcomes"]}
    assert sum(report["outcomes"].values()) == runs
    assert report["exits"] == {"approved": expected.exits["approved"], "forced": expected.exits["forced"], "unknown": 0}
    assert report["forced_exit_events"] == expected.exits["forced"]
    assert report["approved_plans"] == len(expected.revisions)
    assert report["revisions_per_approved_plan"]["histogram"] == {
        str(k): v for k, v in sorted(Counter(expected.revisions).items())}
    assert report["request_changes_per_approved_plan"]["histogram"] == {
        str(k): v for k, v in sorted(Counter(expected.changes).items())}
    latency = report["decision_latency_secs"]
    assert latency["count"] == len(expected.latencies)
    assert (latency["min"], latency["max"]) == (min(expected.latencies), max(expected.latencies))
    assert latency["p50"] == sorted(expected.latencies)[round((len(expected.latencies) - 1) * 0.5)]
    assert latency["mean"] == pytest.approx(statistics.mean(expected.latencies), abs=1e-3)
    by_actor = Counter({(kind, d): n for kind, row in report["decisions_by_actor_kind"].items() for d, n in row.items()})
    assert by_actor == expected.by_actor
    assert report["drift_events_per_run"]["total"] == 0
    assert report["drift_events_per_run"]["histogram"] == {"0": runs}
    assert report["steps"]["todos_by_status"] == dict(expected.todos)
    assert report["steps"]["runs_with_todos"] == expected.exits["approved"]


def test_report_over_generated_runs_in_memory_and_from_files(
    generated: tuple[list[Any], Expected], tmp_path: Path
) -> None:
    states, expected = generated
    in_memory = report_from_states(states)
    _check_against(in_memory, expected, RUNS)
    assert report_from_dir(_dump(states, tmp_path)) == in_memory
    # Dicts, JSON text and bytes are the same runs.
    assert report_from_states([s.model_dump(mode="json") for s in states]) == in_memory
    assert report_from_states([s.model_dump_json().encode() for s in states]) == in_memory


def test_cli_prints_a_table_and_json(
    generated: tuple[list[Any], Expected], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    states, expected = generated
    _dump(states, tmp_path)
    assert main(["report", "--dir", str(tmp_path), "--json"]) == 0
    as_json = json.loads(capsys.readouterr().out)
    _check_against(as_json, expected, RUNS)
    assert main(["report", "--dir", str(tmp_path)]) == 0
    table = capsys.readouterr().out
    assert table == format_report(as_json) + "\n"
    for name, count in expected.outcomes.items():
        assert any(line.split()[:2] == [name, str(count)] for line in table.splitlines()), (name, table)
    assert f"approved={expected.exits['approved']} forced={expected.exits['forced']}" in table


def _with_plan_state(state: Any, change: Any) -> bytes:
    doc = state.model_dump(mode="json")
    change(doc["middle_context"]["planmode"])
    return json.dumps(doc).encode()


def test_bounded_states_are_read_without_miscounting(generated: tuple[list[Any], Expected]) -> None:
    states, _ = generated
    approved = next(s for s in states if s.middle_context.get("planmode", {}).get("approved_revision")
                    and len(s.middle_context["planmode"]["revisions"]) > 1)  # fmt: skip

    def prune(plan: dict[str, Any]) -> None:
        # Older revisions keep only number, sha256 and size.
        plan["revisions"] = [{k: r[k] for k in ("number", "sha256", "bytes")} for r in plan["revisions"][:-1]] + [
            plan["revisions"][-1]]

    def cap(plan: dict[str, Any]) -> None:
        # The audit keeps its last two entries and says how many it dropped.
        plan["audit_dropped"] = len(plan["audit"]) - 2
        plan["audit"] = plan["audit"][-2:]

    full = report_from_states([approved])
    pruned = report_from_states([_with_plan_state(approved, prune)])
    assert pruned == full
    capped = report_from_states([_with_plan_state(approved, cap)])
    assert capped["partial_audit_runs"] == 1
    assert capped["outcomes"]["exited_with_plan"] == 1 and capped["exits"]["approved"] == 1
    # The cut-off cycle is not counted as a plan approved after 0 revisions.
    assert capped["approved_plans"] == 0 and capped["revisions_per_approved_plan"]["count"] == 0
    assert capped["decisions_by_actor_kind"] == {
        kind: {"approve": 1} for kind, row in full["decisions_by_actor_kind"].items() if "approve" in row}


def test_unreadable_inputs_are_named_and_the_rest_still_counted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = '{"middle_context": {"planmode": {"version": 1, "phase": "planning", "revisions": [{"number": 1}]}}}'
    files = {
        "good.json": good,
        "record.json": json.dumps({"id": "s1", "state": json.loads(good)}),
        "truncated.json": good[:40],
        "array.json": "[1, 2]",
        "no-state.json": '{"id": "s1", "config": {}}',
        "phase-type.json": '{"middle_context": {"planmode": {"phase": 5}}}',
        "phase-name.json": '{"middle_context": {"planmode": {"phase": "flying"}}}',
        "audit-type.json": '{"middle_context": {"planmode": {"phase": "building", "audit": {"kind": "x"}}}}',
        "binary.json": b"\xff\xfe{}".decode("latin-1"),
        "ignored.txt": "not json and not a .json file",
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="latin-1" if name == "binary.json" else "utf-8")
    (tmp_path / "unreadable.json").mkdir()  # a directory named like a file is skipped, not an error
    (tmp_path / "na\udcffme.json").write_text(good)  # a file name that is not UTF-8
    (tmp_path / "gone.json").symlink_to(tmp_path / "missing-target")  # dangling: not a file, skipped
    assert main(["report", "--dir", str(tmp_path), "--json"]) == 1
    captured = capsys.readouterr()
    report = json.loads(captured.out)
    assert report["runs"] == 3 and report["outcomes"]["planning_with_plan"] == 3
    bad = {Path(e["source"]).name: e["error"] for e in report["errors"]}
    assert set(bad) == {"truncated.json", "array.json", "no-state.json", "phase-type.json", "phase-name.json",
                        "audit-type.json", "binary.json"}  # fmt: skip
    assert report["unreadable"] == 7
    assert "unknown plan-mode phase \"flying\"" in bad["phase-name.json"]
    assert "no middle_context" in bad["no-state.json"]
    assert "7 input(s) could not be read" in captured.err


def test_bad_sources_are_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", "--dir", str(tmp_path / "missing")]) == 2
    assert "is not a directory" in capsys.readouterr().err
    assert main(["report", "--redis", f"redis://127.0.0.1:{free_port()}/0"]) == 2
    assert "cannot read the sessions at redis://127.0.0.1:" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["report"])  # neither --dir nor --redis
    with pytest.raises(SystemExit):
        main(["report", "--dir", str(tmp_path), "--redis", "redis://x"])


def test_many_errors_are_counted_but_only_the_first_listed() -> None:
    report = report_from_states([b"nope"] * 50 + [b'{"middle_context": {}}'])
    assert report["unreadable"] == 50 and len(report["errors"]) == 20 and report["runs"] == 1


# --- a real AgentScope app on a real redis-server -------------------------------------------------

def _make_sessions(node: AppNode) -> dict[str, str]:
    """Three sessions of the real app: one approved by the admin API, one parked, one never planning."""
    with node.client(USER) as client:
        sessions = {}
        for name in ("approved", "parked"):
            agent_id, session_id = create_scripted_session(client, agent_name=f"report-{name}")
            send_user_text(client, agent_id, session_id, script_message(planning_script("# P\n\n1. a\n2. b\n")))
            wait_for(partial(settled_in, client, agent_id, session_id, "awaiting_approval"), "the plan to park")
            sessions[name] = session_id
            if name == "approved":
                client.post(f"/v1/admin/sessions/{session_id}/plan:decide", params={"agent_id": agent_id},
                            json={"decision": "approve", "revision": 1},
                            headers={"X-Admin-Token": TOKEN, "X-Actor": "admin:carol"}).raise_for_status()  # fmt: skip
                wait_for(partial(settled_in, client, agent_id, session_id, "building"), "the build phase")
        agent_id, session_id = create_scripted_session(client, agent_name="report-chat")
        send_user_text(client, agent_id, session_id, script_message([say_step("hello")]))
        wait_for(lambda: settled_in(client, agent_id, session_id, "never_entered"), "the chat run")
        sessions["chat"] = session_id
    return sessions


@pytest.fixture()
def app_sessions(one_node: AppNode) -> Iterator[tuple[AppNode, dict[str, str]]]:
    """Three sessions of the real Redis-backed app."""
    yield one_node, _make_sessions(one_node)


def test_report_reads_a_real_app_sessions_from_redis(
    app_sessions: tuple[AppNode, dict[str, str]], capsys: pytest.CaptureFixture[str]
) -> None:
    node, sessions = app_sessions
    url = f"redis://127.0.0.1:{node.redis_port}/0"
    report = report_from_redis(url)
    # The module's node may hold other tests' sessions too: count at least ours, exactly by kind.
    assert report["unreadable"] == 0 and report["runs"] >= 3
    assert report["outcomes"]["exited_with_plan"] >= 1 and report["outcomes"]["planning_with_plan"] >= 1
    assert report["outcomes"]["never_entered"] >= 1
    assert report["decisions_by_actor_kind"]["admin"]["approve"] >= 1
    assert report["decision_latency_secs"]["count"] >= 1
    assert report["steps"]["todos_by_status"].get("in_progress", 0) >= 1
    assert main(["report", "--redis", url, "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == report
    # Only this app's session records are read: the message lists beside them are not runs.
    assert main(["report", "--redis", url, "--key-pattern", "agentscope:user:*:session:*:messages"]) == 0
    assert capsys.readouterr().out.startswith("runs                      0")


# --- a real AgentScope app backed by SQL storage (AsyncSQLAlchemyStorage on SQLite) ----------------

@pytest.fixture()
def sql_app(tmp_path: Path) -> Iterator[tuple[str, dict[str, str]]]:
    """An app node keeping its sessions in SQLite (Redis only carries its message bus), with three
    sessions created through the app's own routes; yields the database URL and the sessions."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'app.db'}"
    redis = RedisServer(tmp_path)
    try:
        node = AppNode("sql", redis.port, tmp_path, TOKEN, env={"PLANMODE_STORAGE_URL": url})
        try:
            node.wait_ready()
            yield url, _make_sessions(node)
        finally:
            node.stop()
    finally:
        redis.stop()


def test_report_reads_a_real_app_sessions_from_sql(sql_app: tuple[str, dict[str, str]], tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    import sqlite3

    url, sessions = sql_app
    report = report_from_sql(url)
    assert report["runs"] == 3 and report["unreadable"] == 0
    assert report["outcomes"]["exited_with_plan"] == 1 and report["outcomes"]["planning_with_plan"] == 1
    assert report["outcomes"]["never_entered"] == 1
    assert report["decisions_by_actor_kind"] == {"admin": {"approve": 1}}
    assert report["decision_latency_secs"]["count"] == 1 and report["exits"]["approved"] == 1
    assert main(["report", "--sql", url, "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == report
    # Corrupt and foreign rows are counted as unreadable, and the rest still counted.
    db = sqlite3.connect(tmp_path / "app.db")
    with db:
        row = db.execute("SELECT user_id, agent_id, source, created_at, updated_at FROM sessions LIMIT 1").fetchone()
        for i, payload in enumerate(['{"state": {"middle_context": {"planmode": {"phase": "flying"}}}}',
                                     "{not json", '"a string"', '{"config": {}}', "\udcff".encode("utf-8", "surrogatepass")]):
            db.execute("INSERT INTO sessions (id, user_id, agent_id, source, created_at, updated_at, payload) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?)", (f"bad-{i}", *row, payload))  # fmt: skip
    db.close()
    assert main(["report", "--sql", url, "--json"]) == 1
    captured = capsys.readouterr()
    damaged = json.loads(captured.out)
    assert damaged["runs"] == 3 and damaged["unreadable"] == 5 and damaged["outcomes"] == report["outcomes"]
    assert {e["source"] for e in damaged["errors"]} == {f"session bad-{i}" for i in range(5)}
    assert "5 input(s) could not be read" in captured.err


def test_report_over_generated_runs_in_sql_storage(generated: tuple[list[Any], Expected], tmp_path: Path) -> None:
    import asyncio

    from agentscope.app.storage import AsyncSQLAlchemyStorage, SessionConfig

    states, expected = generated
    url = f"sqlite+aiosqlite:///{tmp_path / 'runs.db'}"

    async def fill() -> dict[str, Any]:
        async with AsyncSQLAlchemyStorage(url) as storage:
            for i, state in enumerate(states):
                await storage.upsert_session("u", f"agent-{i % 4}", SessionConfig(workspace_id="w"), state=state)
        return await report_from_sql_async(url)  # from async code, as an app handler would

    from_async = asyncio.run(fill())
    _check_against(from_async, expected, RUNS)
    assert from_async == report_from_states(states) == report_from_sql(f"sqlite:///{tmp_path / 'runs.db'}")


async def test_report_from_sql_inside_a_running_loop(tmp_path: Path) -> None:
    from agentscope.app.storage import AsyncSQLAlchemyStorage, SessionConfig
    from agentscope.state import AgentState

    url = f"sqlite+aiosqlite:///{tmp_path / 'one.db'}"
    async with AsyncSQLAlchemyStorage(url) as storage:
        await storage.upsert_session("u", "a", SessionConfig(workspace_id="w"), state=AgentState())
    assert report_from_sql(url)["outcomes"]["never_entered"] == 1  # runs on a worker thread


def test_bad_sql_sources_are_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import sqlite3

    missing = tmp_path / "missing.db"
    assert main(["report", "--sql", f"sqlite+aiosqlite:///{missing}"]) == 2
    assert "no database file" in capsys.readouterr().err and not missing.exists()
    sqlite3.connect(tmp_path / "other.db").close()  # a database without AgentScope's tables
    assert main(["report", "--sql", f"sqlite:///{tmp_path / 'other.db'}"]) == 2
    assert "cannot read the sessions at" in capsys.readouterr().err
    for bad in ["not a url", "nosuchdialect://x/y"]:
        assert main(["report", "--sql", bad]) == 2
        assert "planmode:" in capsys.readouterr().err
    # A server that is not there: the error names it without the password.
    assert main(["report", "--sql", f"mysql+aiomysql://bob:s3cret@127.0.0.1:{free_port()}/db"]) == 2
    err = capsys.readouterr().err
    assert "planmode:" in err and "s3cret" not in err
