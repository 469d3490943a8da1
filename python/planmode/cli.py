"""``planmode``: operate plan mode on a running AgentScope app over HTTP (standard library only).

    planmode status  --session ID --agent AGENT [--url URL] [--user USER]
    planmode show    --session ID --agent AGENT
    planmode approve --session ID --agent AGENT [--revision N] [--edited-plan FILE] [--next-mode MODE]
    planmode reject  --session ID --agent AGENT [--feedback TEXT]
    planmode request-changes --session ID --agent AGENT --feedback TEXT
    planmode enter | exit --session ID --agent AGENT
    planmode report  --dir DIR | --redis [URL]  [--json]

Defaults come from PLANMODE_URL, PLANMODE_ADMIN_TOKEN, PLANMODE_USER, PLANMODE_AGENT and PLANMODE_ACTOR.
Exit status: 0 done, 1 the server refused (its reason is printed) or a decision was not applied,
2 bad usage or server unreachable. A decision waits (up to --timeout) until the agent applied it;
--no-wait returns once the server accepted it.
``planmode --version`` prints planmode's version and the AgentScope versions it works with.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from importlib import metadata
from pathlib import Path
from typing import Any

from . import __version__
from ._cli_report import add_report_parser, run_report

DEFAULT_URL = "http://127.0.0.1:8000"
"""Where the app is expected when neither --url nor PLANMODE_URL says otherwise."""
DEFAULT_USER = "admin"
"""The X-User-ID sent when neither --user nor PLANMODE_USER says otherwise."""

_EPILOG = f"""\
environment variables (each one the default of its option):
  PLANMODE_URL          --url    (default {DEFAULT_URL})
  PLANMODE_AGENT        --agent  (no default: required)
  PLANMODE_USER         --user   (default {DEFAULT_USER!r}: the session owner's X-User-ID)
  PLANMODE_ADMIN_TOKEN  --token  (needed by the commands that change something)
  PLANMODE_ACTOR        --actor  (name recorded in the audit log)
exit status: 0 done, 1 the server refused (its reason is printed) or a decision was not applied,
             2 bad usage or server unreachable"""


class CliError(Exception):
    """A failure to report on one line, with the exit status to use."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


class AdminClient:
    """The admin API of one session, spoken over ``urllib``."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.base = args.url.rstrip("/")
        self.args = args
        session = urllib.parse.quote(args.session, safe="")
        self.session_path = f"/v1/admin/sessions/{session}"

    def _headers(self, write: bool) -> dict[str, str]:
        headers = {"X-User-ID": self.args.user, "Accept": "application/json"}
        if write:
            if not self.args.token:
                raise CliError("this command needs the admin token: --token or PLANMODE_ADMIN_TOKEN", 2)
            headers["X-Admin-Token"] = self.args.token
            headers["Content-Type"] = "application/json"
            if self.args.actor:
                headers["X-Actor"] = self.args.actor
        return headers

    def request(
        self, method: str, path: str, body: dict[str, Any] | None = None, timeout: float | None = None
    ) -> dict[str, Any]:
        """One JSON request (waiting at most ``timeout``, default --timeout); HTTP errors and
        unreachable servers become :class:`CliError`."""
        query = urllib.parse.urlencode({"agent_id": self.args.agent})
        url = f"{self.base}{self.session_path}{path}?{query}"
        data = json.dumps(body).encode() if body is not None else (b"" if method == "POST" else None)
        request = urllib.request.Request(url, data=data, method=method, headers=self._headers(method == "POST"))
        try:
            with urllib.request.urlopen(request, timeout=timeout or self.args.timeout) as response:
                return dict(json.loads(response.read() or b"{}"))
        except urllib.error.HTTPError as exc:
            raise CliError(f"the server refused ({exc.code}): {_detail(exc)}", 1) from None
        except (urllib.error.URLError, OSError, http.client.HTTPException, ValueError) as exc:
            if isinstance(exc, json.JSONDecodeError):
                raise CliError(f"the server at {self.base} did not answer with JSON: is --url a planmode app?", 2) from None
            reason = getattr(exc, "reason", None) or exc or type(exc).__name__
            raise CliError(f"cannot reach the planmode server at {self.base}: {reason}", 2) from None

    def status(self, timeout: float | None = None) -> dict[str, Any]:
        """``GET .../plan``."""
        return self.request("GET", "/plan", timeout=timeout)


def _detail(error: urllib.error.HTTPError) -> str:
    raw = error.read().decode(errors="replace")
    try:
        detail = json.loads(raw).get("detail", raw)
    except (json.JSONDecodeError, AttributeError):
        detail = raw
    return detail if isinstance(detail, str) else json.dumps(detail)


def _summary(view: dict[str, Any]) -> str:
    lines = [
        f"session   {view.get('session_id')}",
        f"phase     {view.get('phase')} (active={view.get('active')}, running={view.get('running')})",
        f"revision  {view.get('revision')}  sha256 {view.get('sha256')}",
        f"plan      {view.get('plan_path')}",
    ]
    pending = view.get("pending")
    if pending:
        lines.append(f"awaiting  approval of revision {pending.get('revision')}: {pending.get('summary')}")
    if view.get("decision_in_flight"):
        claim = view["decision_in_flight"]
        lines.append(f"decided   {claim.get('decision')} by {claim.get('actor')} (resuming)")
    disk = view.get("disk")
    if disk:
        lines.append(f"disk      {disk.get('path')} edited_on_disk={disk.get('edited_on_disk')}")
    for label, key in (("scope", "scope"), ("approved", "approved_scope")):
        scope = view.get(key)
        if scope:
            lines.append(f"{label:<9} paths {', '.join(scope['paths']) or '-'}; commands "
                         f"{', '.join(scope['commands']) or '-'}")  # fmt: skip
    for step in view.get("progress") or []:
        lines.append(f"step      {step.get('id')} [{step.get('status')}] {step.get('text')}")
    for todo in view.get("todos") or []:
        lines.append(f"todo      [{todo.get('status')}] {todo.get('content')}")
    return "\n".join(lines)


def _decide(client: AdminClient, decision: str, **fields: Any) -> dict[str, Any]:
    revision = client.args.revision
    if revision is None:
        pending = client.status().get("pending")
        if not pending:
            raise CliError("no plan is awaiting approval in this session", 1)
        revision = pending["revision"]
    body = {"decision": decision, "revision": revision, **{k: v for k, v in fields.items() if v is not None}}
    answer = client.request("POST", "/plan:decide", body)
    if not client.args.no_wait:
        _wait_applied(client, answer)
    return answer


POLL_SECS = 0.5
"""How often a decision's outcome is polled."""


def _wait_applied(client: AdminClient, answer: dict[str, Any]) -> None:
    """Returns once the agent applied ``answer``; CliError (exit 1) when it was refused, when its resume did
    not complete (the session still waits for a decision), or when --timeout passes first (also when the
    server stops answering meanwhile: the decision was accepted, so its outcome is what is unknown)."""
    deadline = time.monotonic() + client.args.timeout
    while True:
        try:
            view = client.status(timeout=max(deadline - time.monotonic(), POLL_SECS))
        except CliError as exc:
            if exc.status != 2:
                raise
            if time.monotonic() > deadline:
                raise CliError(f"the decision was accepted but not applied within {client.args.timeout:g}s: the "
                               f"server stopped answering ({exc}); check `planmode status`", 1) from None  # fmt: skip
            time.sleep(POLL_SECS)
            continue
        pending = view.get("pending") or {}
        if pending.get("tool_call_id") != answer.get("tool_call_id"):
            decisions = [a for a in view.get("audit") or [] if a.get("kind") == "decision"]
            last: dict[str, Any] = decisions[-1] if decisions else {}
            if last.get("decision") == "cancel":
                raise CliError(f"the decision was not applied: {last.get('detail')}", 1)
            return
        claim = view.get("decision_in_flight") or {}
        if not view.get("running") and not claim.get("live"):
            raise CliError("the decision was accepted but not applied (its resume did not complete); the plan "
                           "still awaits a decision: decide again", 1)  # fmt: skip
        if time.monotonic() > deadline:
            raise CliError(f"the decision was accepted but not applied within {client.args.timeout:g}s; check "
                           "`planmode status`", 1)  # fmt: skip
        time.sleep(POLL_SECS)


def _scope_choice(args: argparse.Namespace) -> dict[str, list[str]] | str | None:
    """The scope an approval carries: the --scope-path / --scope-command lists, "none", or None (declared)."""
    lists = {"paths": args.scope_path or [], "commands": args.scope_command or []}
    if args.scope in ("declared", "none") and (args.scope_path or args.scope_command):
        raise CliError(f"--scope {args.scope} cannot go with --scope-path / --scope-command", 2)
    if args.scope == "none":
        return "none"
    if args.scope == "empty" or args.scope_path or args.scope_command:
        return lists
    return None


def _run(args: argparse.Namespace) -> str:
    client = AdminClient(args)
    command = args.command
    if command == "status":
        view = client.status()
        return json.dumps(view, indent=2) if args.json else _summary(view)
    if command == "show":
        view = client.status()
        return json.dumps(view, indent=2) if args.json else str(view.get("plan_content") or "(no plan written yet)")
    if command in ("enter", "exit"):
        view = client.request("POST", f":{command}-plan-mode")
        return json.dumps(view, indent=2) if args.json else _summary(view)
    if command == "approve":
        edited = Path(args.edited_plan).read_text(encoding="utf-8") if args.edited_plan else None
        answer = _decide(
            client, "approve_with_edits" if edited is not None else "approve",
            edited_plan=edited, next_mode=args.next_mode, feedback=args.feedback, scope=_scope_choice(args),
        )  # fmt: skip
    else:
        answer = _decide(client, command.replace("-", "_"), feedback=args.feedback)
    return json.dumps(answer, indent=2) if args.json else f"{answer['decision']} of revision {answer['revision']} " + (
        "sent" if args.no_wait else "applied"
    )


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (every option also settable by environment variable)."""
    env = os.environ.get
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--session", required=True, help="session id")
    common.add_argument("--agent", default=env("PLANMODE_AGENT"), help="agent id (PLANMODE_AGENT)")
    common.add_argument("--url", default=env("PLANMODE_URL", DEFAULT_URL),
                        help=f"the AgentScope app's base URL (PLANMODE_URL; default {DEFAULT_URL})")
    common.add_argument("--token", default=env("PLANMODE_ADMIN_TOKEN"), help="admin token (PLANMODE_ADMIN_TOKEN)")
    common.add_argument("--user", default=env("PLANMODE_USER", DEFAULT_USER),
                        help=f"X-User-ID of the session's owner (PLANMODE_USER; default {DEFAULT_USER!r})")
    common.add_argument("--actor", default=env("PLANMODE_ACTOR"), help="name recorded in the audit log")
    common.add_argument("--timeout", type=float, default=30.0, help="seconds to wait for the server (default 30)")
    common.add_argument("--json", action="store_true", help="print the server's JSON answer")
    parser = argparse.ArgumentParser(prog="planmode", description="Operate plan mode on a running AgentScope app.",
                                     epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=version_text())
    commands = parser.add_subparsers(dest="command", required=True)
    for name, help_text in (("status", "phase, revision, pending approval, todos"), ("show", "print the latest plan"),
                            ("enter", "enter plan mode"), ("exit", "exit plan mode (cancels a pending approval)")):  # fmt: skip
        commands.add_parser(name, parents=[common], help=help_text, epilog=_EPILOG,
                            formatter_class=argparse.RawDescriptionHelpFormatter)
    for name, help_text in (("approve", "approve the pending plan"), ("reject", "reject the pending plan"),
                            ("request-changes", "send the plan back with feedback")):  # fmt: skip
        sub = commands.add_parser(name, parents=[common], help=help_text, epilog=_EPILOG,
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
        sub.add_argument("--revision", type=int, help="the revision you reviewed (default: the pending one)")
        sub.add_argument("--feedback", required=name == "request-changes", help="message for the agent")
        sub.add_argument("--no-wait", action="store_true", help="return once the server accepted the decision")
        if name == "approve":
            sub.add_argument("--edited-plan", help="file with your edited plan (approve with edits)")
            sub.add_argument("--next-mode", help="permission mode for the build phase")
            sub.add_argument("--scope-path", action="append", metavar="GLOB",
                             help="approve with this path glob in the scope instead of the declared scope (repeatable)")
            sub.add_argument("--scope-command", action="append", metavar="PATTERN",
                             help="approve with this command pattern in the scope (repeatable)")
            sub.add_argument("--scope", choices=("declared", "none", "empty"),
                             help="declared: keep the plan's declared scope (the default); none: no scope; empty: a "
                                  "scope that allows nothing (with --scope-path/--scope-command: those only)")  # fmt: skip
    add_report_parser(commands)
    return parser


def version_text() -> str:
    """``planmode X.Y.Z (AgentScope >=A,<B; installed: V)`` from the installed metadata."""
    wanted = "see pyproject.toml"
    try:
        for requirement in metadata.requires("planmode") or []:
            spec, _, marker = requirement.partition(";")
            found = re.fullmatch(r"\s*agentscope\s*([<>=!~][^\[\]]*?)\s*", spec)
            if found and re.search(r"extra\s*==\s*['\"]agentscope['\"]", marker):
                wanted = found.group(1)
    except metadata.PackageNotFoundError:
        pass
    try:
        installed = metadata.version("agentscope")
    except metadata.PackageNotFoundError:
        installed = "not installed"
    return f"planmode {__version__} (works with AgentScope {wanted}; installed: {installed})"


def _check_connection_options(args: argparse.Namespace) -> None:
    """A --url that is not an http(s) URL with a host, or a --timeout that is not positive, is a usage error."""
    try:
        url = urllib.parse.urlsplit(args.url)
        port_ok = url.port is None or url.port > 0
    except ValueError as exc:
        raise CliError(f"--url {args.url!r} is not a valid URL ({exc}): use e.g. {DEFAULT_URL}", 2) from None
    if url.scheme not in ("http", "https") or not url.hostname or not port_ok:
        raise CliError(f"--url {args.url!r} is not an http(s) URL with a host: use e.g. {DEFAULT_URL}", 2)
    if not args.timeout > 0 or args.timeout == float("inf"):
        raise CliError(f"--timeout must be a positive number of seconds, got {args.timeout}", 2)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``planmode`` command; returns the exit status."""
    args = build_parser().parse_args(argv)
    if args.command == "report":
        return run_report(args)
    try:
        _check_connection_options(args)
        if not args.agent:
            raise CliError("--agent (or PLANMODE_AGENT) is required: AgentScope addresses a session by agent", 2)
        print(_run(args))
    except CliError as exc:
        print(f"planmode: {exc}", file=sys.stderr)
        return exc.status
    except OSError as exc:
        print(f"planmode: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
