"""Outcomes over many runs: read the plan-mode state of stored runs and count what an evaluation needs.

The sources are dumped ``AgentState`` JSON files (a directory, searched recursively for ``*.json``)
or the sessions an AgentScope app keeps in Redis (``RedisStorage``) or in SQL
(``AsyncSQLAlchemyStorage``). The counting happens in the Rust core (``planmode._core.PlanReport``),
which reads only the plan-mode fields of each document; a corrupt or foreign record is counted as
unreadable (and the first ones listed), never raised.

    >>> from planmode.report import report_from_states
    >>> report_from_states([{"middle_context": {}}])["outcomes"]["never_entered"]
    1
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Coroutine, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from ._core import PlanReport
from .exceptions import InvalidInputError

DEFAULT_SESSION_PATTERN = "agentscope:user:*:session:*"
"""The keys of AgentScope's ``RedisStorage`` session records (its default ``KeyConfig``)."""

REDIS_BATCH = 500
"""Session records fetched per Redis round trip."""


def report_from_dir(directory: str | Path) -> dict[str, Any]:
    """The report over every ``*.json`` file under ``directory`` (recursively, in name order)."""
    root = Path(directory)
    if not root.is_dir():
        raise InvalidInputError(f"{str(root)!r} is not a directory of dumped AgentState JSON files")
    report = PlanReport()
    report.add_files(sorted(p for p in root.rglob("*.json") if p.is_file()))
    return dict(report.result())


def report_from_states(states: Iterable[Any]) -> dict[str, Any]:
    """The report over in-memory runs: AgentState objects, dicts, JSON text or bytes."""
    report = PlanReport()
    report.add_many([(f"#{i}", _as_bytes(s)) for i, s in enumerate(states)])
    return dict(report.result())


def _as_bytes(state: Any) -> bytes:
    if isinstance(state, bytes):
        return state
    if isinstance(state, str):
        return state.encode()
    if isinstance(state, dict):
        return json.dumps(state).encode()
    dump = getattr(state, "model_dump_json", None)
    if callable(dump):
        return str(dump()).encode()
    raise InvalidInputError(f"cannot report on a {type(state).__name__}: give an AgentState, a dict, str or bytes")


def session_keys(client: Any, pattern: str = DEFAULT_SESSION_PATTERN) -> Iterator[bytes]:
    """The session-record keys matching ``pattern`` (SCAN, so the server is never blocked), without
    the per-session message lists that share the prefix."""
    for key in client.scan_iter(match=pattern, count=1000):
        tail = key.rsplit(b":session:", 1)[-1]
        if b":" not in tail:
            yield key


def report_from_redis(url: str, pattern: str = DEFAULT_SESSION_PATTERN) -> dict[str, Any]:
    """The report over the sessions an AgentScope app stores in Redis at ``url``
    (``redis://host:port/db``); ``pattern`` is the session key pattern of its ``RedisStorage``."""
    try:
        import redis
    except ImportError as exc:  # pragma: no cover - the service extra installs it
        raise InvalidInputError("reading Redis needs the redis package: pip install 'planmode[service]'") from exc
    client = redis.Redis.from_url(url)
    report = PlanReport()
    batch: list[bytes] = []
    try:
        for key in session_keys(client, pattern):
            batch.append(key)
            if len(batch) == REDIS_BATCH:
                _add_batch(client, report, batch)
                batch = []
        if batch:
            _add_batch(client, report, batch)
    except redis.RedisError as exc:
        raise InvalidInputError(f"cannot read the sessions at {url}: {exc}") from exc
    finally:
        client.close()
    return dict(report.result())


def _add_batch(client: Any, report: PlanReport, keys: list[bytes]) -> None:
    values = client.mget(keys)
    # A key that expired between SCAN and MGET is gone, not unreadable.
    report.add_many([(k.decode(errors="replace"), v) for k, v in zip(keys, values, strict=True) if v is not None])


SQL_SESSION_TABLE = "sessions"
"""The table of AgentScope's ``AsyncSQLAlchemyStorage`` session records (one JSON ``payload`` each)."""

SQL_BATCH = 1000
"""Session rows fetched per round trip from SQL storage."""


def report_from_sql(url: str) -> dict[str, Any]:
    """The report over the sessions an AgentScope app stores with ``AsyncSQLAlchemyStorage`` at
    ``url`` (the app's SQLAlchemy URL, e.g. ``sqlite+aiosqlite:///./as.db``; a plain ``sqlite:///``
    URL is read through aiosqlite). Usable with or without a running event loop (inside one, the
    query runs on a worker thread); in async code ``await report_from_sql_async(url)``."""
    return _run(report_from_sql_async(url))


def _run(coro: Coroutine[Any, Any, dict[str, Any]]) -> dict[str, Any]:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coro).result()


async def report_from_sql_async(url: str) -> dict[str, Any]:
    """:func:`report_from_sql` for async code."""
    try:
        from sqlalchemy import Text, column, select, table
        from sqlalchemy.engine import make_url
        from sqlalchemy.exc import ArgumentError, SQLAlchemyError
        from sqlalchemy.ext.asyncio import create_async_engine
    except ImportError as exc:  # pragma: no cover - the service extra installs it
        raise InvalidInputError("reading SQL storage needs SQLAlchemy: pip install 'planmode[service]'") from exc
    try:
        parsed = make_url(url)
    except ArgumentError as exc:
        raise InvalidInputError(f"{url!r} is not a SQLAlchemy database URL: {exc}") from exc
    if parsed.drivername == "sqlite":
        parsed = parsed.set(drivername="sqlite+aiosqlite")
    url = parsed.render_as_string(hide_password=True)  # errors never show a password
    if parsed.get_backend_name() == "sqlite" and parsed.database not in (None, "", ":memory:") and not os.path.isfile(
            parsed.database):
        # Connecting would create an empty database file: say so instead, and leave the disk alone.
        raise InvalidInputError(f"cannot read the sessions at {url}: no database file {parsed.database!r}")
    sessions = table(SQL_SESSION_TABLE, column("id", Text), column("payload", Text))
    report = PlanReport()
    try:
        engine = create_async_engine(parsed)
    except (ArgumentError, ImportError, SQLAlchemyError) as exc:
        raise InvalidInputError(f"cannot open the database at {url}: {exc}") from exc
    try:
        async with engine.connect() as conn:
            rows = await conn.stream(select(sessions.c.id, sessions.c.payload).execution_options(yield_per=SQL_BATCH))
            async for batch in rows.partitions(SQL_BATCH):
                report.add_many([(f"session {row_id}", _row_bytes(payload)) for row_id, payload in batch])
    except (SQLAlchemyError, OSError) as exc:  # the first line names the cause; the rest is the query
        raise InvalidInputError(f"cannot read the sessions at {url}: {str(exc).splitlines()[0]}") from exc
    finally:
        await engine.dispose()
    return dict(report.result())


def _row_bytes(payload: Any) -> bytes:
    """A row's payload as the bytes of its JSON text (a NULL or non-text payload is unreadable)."""
    if isinstance(payload, bytes):
        return payload
    return payload.encode("utf-8", errors="replace") if isinstance(payload, str) else b""


def _stat_line(stats: dict[str, Any], unit: str = "") -> str:
    if not stats.get("count"):
        return "-"
    return (f"n={stats['count']} min={stats['min']:g}{unit} median={stats['p50']:g}{unit} "
            f"p90={stats['p90']:g}{unit} max={stats['max']:g}{unit} mean={stats['mean']:g}{unit}")


def format_report(report: dict[str, Any]) -> str:
    """The report as a table for a person (``--json`` gives the dict itself)."""
    runs = report["runs"]
    lines = [f"runs                      {runs}"]
    if report["unreadable"]:
        lines.append(f"unreadable                {report['unreadable']}")
        lines += [f"  {e['source']}: {e['error']}" for e in report["errors"]]
    lines.append("outcomes")
    for name, count in report["outcomes"].items():
        share = f"{100 * count / runs:5.1f}%" if runs else "    -"
        lines.append(f"  {name:<24}{count:>8}  {share}")
    exits = report["exits"]
    lines.append(f"exits                     approved={exits['approved']} forced={exits['forced']} "
                 f"unknown={exits['unknown']} (forced_exit events: {report['forced_exit_events']})")
    lines.append(f"approved plans            {report['approved_plans']}"
                 + (f" (runs with a capped audit: {report['partial_audit_runs']})" if report["partial_audit_runs"] else ""))
    lines.append(f"  revisions per plan      {_stat_line(report['revisions_per_approved_plan'])}")
    lines.append(f"  request-changes / plan  {_stat_line(report['request_changes_per_approved_plan'])}")
    lines.append(f"plan_exit -> decision     {_stat_line(report['decision_latency_secs'], 's')}")
    lines.append("decisions by actor kind")
    for kind, decisions in sorted(report["decisions_by_actor_kind"].items()):
        lines.append(f"  {kind:<24}" + " ".join(f"{d}={n}" for d, n in sorted(decisions.items())))
    drift = report["drift_events_per_run"]
    lines.append(f"drift events              total={drift.get('total', 0)} per run: {_stat_line(drift)}")
    steps = report["steps"]
    by_status = " ".join(f"{s}={n}" for s, n in sorted(steps["todos_by_status"].items())) or "-"
    lines.append(f"steps                     runs with todos={steps['runs_with_todos']} "
                 f"all completed={steps['runs_all_completed']} todos: {by_status}")
    lines.append(f"  completion per run      {_stat_line(steps['completion_per_run'])}")
    return "\n".join(lines)
