"""Plan-mode shell commands of AgentScope's own ``Bash`` tool, run inside the Landlock sandbox.

The gate decides per call (``planning_shell_verdict``) and records the decision in a context
variable of the running task; the tool's ``LocalBackend.exec_shell`` is wrapped once so that the
command the decision names runs through ``planmode._core.run_sandboxed`` (awaited on tokio,
the event loop is never blocked) while every other call — the build phase, other tools on the
same backend — goes to AgentScope's own implementation unchanged. Users keep AgentScope's tool,
its description, output format and timeout semantics.
"""

from __future__ import annotations

import os
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from agentscope.tool import Bash, ExecResult, LocalBackend, ToolBase

from ..._core import SandboxRun, run_sandboxed
from ._sandbox_config import ShellSandbox
from ._shell import shell_is_read_only

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from ._host import PlanHost

#: The attribute marking a backend whose ``exec_shell`` this module wrapped.
_WRAPPED = "_planmode_sandbox_original_exec_shell"


@dataclass(frozen=True)
class _Decision:
    """A plan-mode shell call the gate allowed on condition that it runs sandboxed."""

    command: str
    sandbox: ShellSandbox
    classified: bool
    """True when the classifier proved it read-only (the sandbox is the second line)."""


#: The decision for the shell call being checked and then executed in this task.
_DECISION: ContextVar[_Decision | None] = ContextVar("planmode_sandbox_decision", default=None)


def can_sandbox(tool: ToolBase) -> bool:
    """Whether ``tool`` runs its commands through this host's ``LocalBackend`` (identity of
    the classes, not names): only then can the Landlock sandbox apply. Remote workspaces
    (Docker, E2B, Bubblewrap…) run commands elsewhere."""
    if not isinstance(tool, Bash) or type(tool).call is not Bash.call:
        return False
    backend = getattr(tool, "_backend", None)
    return isinstance(backend, LocalBackend) and (
        type(backend).exec_shell is LocalBackend.exec_shell)


async def planning_shell_verdict(plan: PlanHost, tool: ToolBase,
                                 tool_input: dict[str, Any]) -> Literal["allow", "delegate", "deny"]:
    """The plan-mode verdict for one shell call: ``delegate`` (to the normal permission rules)
    for a command the classifier proves read-only, ``allow`` for one it refuses but that runs
    in the sandbox (``sandbox_unclassified``), else ``deny``. A sandboxed call is recorded so
    that the tool's backend runs exactly that command under Landlock."""
    sandbox = plan.config.sandbox
    _DECISION.set(None)
    command = tool_input.get("command")
    if not sandbox.shell_allowed or not isinstance(command, str) or not command.strip():
        return "deny"
    read_only = await shell_is_read_only(tool, tool_input)
    sandboxed = sandbox.active and can_sandbox(tool)
    if sandbox.mode == "required" and not sandboxed:
        return "deny"  # the sandbox was required and this tool's commands cannot be confined
    if sandboxed and (read_only or sandbox.unclassified):
        _install(tool)
        _DECISION.set(_Decision(command, sandbox, read_only))
        return "delegate" if read_only else "allow"
    return "delegate" if read_only else "deny"


def forget_shell_decision() -> None:
    """Drops the sandbox decision recorded for the call being checked (the gate found that
    plan mode does not restrict it after all, e.g. a worker whose leader no longer plans)."""
    _DECISION.set(None)


def _install(tool: ToolBase) -> None:
    """Wraps the tool's backend ``exec_shell`` once (idempotent)."""
    backend = tool._backend  # type: ignore[attr-defined]  # can_sandbox checked it
    if getattr(backend, _WRAPPED, None) is not None:
        return
    original: Callable[..., Awaitable[ExecResult]] = backend.exec_shell

    async def exec_shell(command: list[str], *, cwd: str | None = None,
                         timeout: float | None = None) -> ExecResult:
        decision = _DECISION.get()
        if decision is None or command[2:] != [decision.command] or len(command) != 3:
            return await original(command, cwd=cwd, timeout=timeout)
        _DECISION.set(None)
        return await _run(decision, command, cwd, timeout)

    setattr(backend, _WRAPPED, original)
    backend.exec_shell = exec_shell


async def _run(decision: _Decision, argv: list[str], cwd: str | None,
               timeout: float | None) -> ExecResult:
    """Runs the command sandboxed and returns what ``LocalBackend.exec_shell`` would: exit
    code (negative signal number when killed), output, and ``-1``/``timed out`` on timeout."""
    if timeout is not None and timeout <= 0:
        return ExecResult(exit_code=-1, stdout=b"", stderr=b"timed out")
    sandbox = decision.sandbox
    run: SandboxRun = await run_sandboxed(
        argv, cwd=cwd if cwd is not None else os.getcwd(),
        timeout=timeout if timeout is not None else 120.0,
        allow_network=sandbox.allow_network,
        read_paths=list(sandbox.readable) if sandbox.readable is not None else None)
    if run.timed_out:
        return ExecResult(exit_code=-1, stdout=b"", stderr=b"timed out")
    code = run.exit_code if run.exit_code is not None else -(run.signal or 0)
    stdout = bytes(run.stdout)
    if run.stdout_dropped:
        stdout += f"\n[planmode sandbox: {run.stdout_dropped} more bytes of output dropped]\n".encode()
    stderr = bytes(run.stderr)
    if run.stderr_dropped:
        stderr += f"\n[planmode sandbox: {run.stderr_dropped} more bytes of errors dropped]\n".encode()
    note = sandbox_note(run, decision.classified)
    if note:
        stderr += (b"\n" if stderr and not stderr.endswith(b"\n") else b"") + note.encode()
    return ExecResult(exit_code=code, stdout=stdout, stderr=stderr)


def sandbox_note(run: SandboxRun, classified: bool) -> str:
    """What the model is told about the sandbox: always for a command the classifier refused,
    and for a classified one only when the kernel refused something."""
    if classified and not run.blocked:
        return ""
    lines = ["[planmode sandbox] "
             + ("This command was not proven read-only, so it ran in the planning sandbox "
                if not classified else "This command ran in the planning sandbox ")
             + f"(Landlock ABI {run.abi}): writes outside a scratch directory were refused by "
             "the kernel and nothing in the workspace changed."]
    if run.blocked:
        lines.append("Refused operations reported by the command:")
        lines += [f"  {line}" for line in run.blocked]
    if run.scratch_entries:
        lines.append("Files it wrote to its scratch directory (discarded): "
                     + ", ".join(run.scratch_entries[:10])
                     + (" …" if len(run.scratch_entries) > 10 else ""))
    if run.network_blocked:
        lines.append("Network (TCP) access was blocked.")
    return "\n".join(lines) + "\n"
