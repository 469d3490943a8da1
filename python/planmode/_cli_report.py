"""``planmode report``: outcomes over many stored runs (a directory of dumped states, or an app's Redis
or SQL storage).

Exit status: 0 done, 1 some inputs were unreadable (the report is still printed, and lists them),
2 bad usage or the source cannot be read.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from .exceptions import InvalidInputError
from .report import DEFAULT_SESSION_PATTERN, format_report, report_from_dir, report_from_redis, report_from_sql


def add_report_parser(commands: Any) -> None:
    """Adds the ``report`` subcommand to the ``planmode`` parser's subcommands."""
    sub = commands.add_parser("report", help="outcomes over many runs (dumped states, or an app's Redis or SQL storage)")
    source = sub.add_mutually_exclusive_group(required=True)
    source.add_argument("--dir", help="directory of dumped AgentState JSON files (searched recursively)")
    source.add_argument("--redis", nargs="?", const=os.environ.get("PLANMODE_REDIS_URL", "redis://127.0.0.1:6379/0"),
                        help="the app's Redis URL (default PLANMODE_REDIS_URL or redis://127.0.0.1:6379/0)")
    source.add_argument("--sql", metavar="URL",
                        help="the SQLAlchemy URL of the app's AsyncSQLAlchemyStorage (e.g. sqlite+aiosqlite:///./as.db)")
    sub.add_argument("--key-pattern", default=DEFAULT_SESSION_PATTERN, help="session key pattern of the app's RedisStorage")
    sub.add_argument("--json", action="store_true", help="print the report as JSON, for a pipeline")


def run_report(args: argparse.Namespace) -> int:
    """Runs ``planmode report``; returns the exit status."""
    try:
        if args.dir:
            report = report_from_dir(args.dir)
        elif args.sql is not None:
            report = report_from_sql(args.sql)
        else:
            report = report_from_redis(args.redis, args.key_pattern)
    except InvalidInputError as exc:
        print(f"planmode: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(report, indent=2) if args.json else format_report(report))
    if report["unreadable"]:
        print(f"planmode: {report['unreadable']} input(s) could not be read (listed in the report)", file=sys.stderr)
        return 1
    return 0
