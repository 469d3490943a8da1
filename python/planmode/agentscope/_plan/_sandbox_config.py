"""The planning shell's protection: which of the classifier and the Landlock sandbox apply.

``PlanMode(shell_sandbox=..., sandbox_unclassified=...)`` builds one ``ShellSandbox``; it is
checked at construction, so ``"required"`` where the kernel cannot sandbox is an error at
startup, never a silent downgrade."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from typing import Literal, cast

from ..._core import sandbox_support
from ...exceptions import InvalidInputError, SandboxUnavailableError

SandboxMode = Literal["auto", "required", "off"]
ShellProtection = Literal["none", "classifier", "classifier+sandbox", "sandbox"]
SANDBOX_MODES = ("auto", "required", "off")

#: System directories readable when reads are restricted (those that exist are used).
SYSTEM_READ_DIRS = ("/bin", "/sbin", "/usr", "/lib", "/lib32", "/lib64", "/libx32", "/etc",
                    "/opt", "/proc", "/sys", "/dev", "/run")


@dataclass(frozen=True)
class ShellSandbox:
    """How plan-mode shell commands are protected (see ``docs/shell.md``)."""

    mode: SandboxMode
    """``auto``, ``required`` or ``off``, as given."""
    unclassified: bool
    """Run commands the classifier refuses inside the sandbox (instead of refusing them)."""
    shell_allowed: bool
    """Whether plan mode lets shell commands run at all."""
    abi: int | None
    """The Landlock ABI the sandbox uses, or None when it is off or unavailable."""
    reason: str
    """Why the sandbox is or is not used (the kernel probe's sentence)."""
    allow_network: bool
    """TCP bind/connect allowed inside the sandbox."""
    readable: tuple[str, ...] | None
    """Readable paths (None: the whole filesystem)."""

    @classmethod
    def configure(cls, mode: object, unclassified: object, *, allow_shell: bool,
                  allow_network: object, readable: object, workspace: str) -> ShellSandbox:
        """Validates the options; raises ``SandboxUnavailableError`` for ``required`` where the
        sandbox cannot work and ``InvalidInputError`` for a bad or contradictory option."""
        if mode not in SANDBOX_MODES:
            raise InvalidInputError(
                f"unknown shell_sandbox {mode!r}: use one of {', '.join(SANDBOX_MODES)}")
        chosen = cast(SandboxMode, mode)
        if not isinstance(unclassified, bool):
            raise InvalidInputError(f"sandbox_unclassified must be True or False, got {unclassified!r}")
        if not isinstance(allow_network, bool):
            raise InvalidInputError(f"sandbox_network must be True or False, got {allow_network!r}")
        if unclassified and mode == "off":
            raise InvalidInputError(
                "sandbox_unclassified=True runs refused commands inside the sandbox, which "
                "shell_sandbox='off' turns off: use shell_sandbox='auto' or 'required'")
        paths = _readable(readable, workspace)
        abi, reason = sandbox_support() if mode != "off" else (None, "shell_sandbox='off'")
        if mode == "required" and abi is None:
            raise SandboxUnavailableError(
                f"shell_sandbox='required' but the Landlock sandbox cannot work here: {reason}. "
                "Run on a Linux kernel with Landlock enabled, or use shell_sandbox='auto' "
                "(classifier only where the sandbox is missing) or 'off'.")
        return cls(mode=chosen, unclassified=unclassified, shell_allowed=allow_shell or unclassified,
                   abi=abi, reason=reason, allow_network=allow_network, readable=paths)

    @property
    def active(self) -> bool:
        """Whether plan-mode shell commands run inside the sandbox."""
        return self.shell_allowed and self.abi is not None

    @property
    def protection(self) -> ShellProtection:
        """What stands between a plan-mode shell command and a write."""
        if not self.shell_allowed:
            return "none"
        if not self.active:
            return "classifier"
        return "sandbox" if self.unclassified else "classifier+sandbox"


def _readable(readable: object, workspace: str) -> tuple[str, ...] | None:
    """None (everything readable), or the workspace, the system and Python directories and the
    user's list (each absolute)."""
    if readable is None:
        return None
    if isinstance(readable, (str, bytes)) or not isinstance(readable, (list, tuple)):
        raise InvalidInputError(f"sandbox_readable must be a list of paths or None, got {readable!r}")
    user = []
    for path in readable:
        if not isinstance(path, (str, os.PathLike)) or not os.path.isabs(os.fspath(path)):
            raise InvalidInputError(f"sandbox_readable entries must be absolute paths, got {path!r}")
        user.append(os.path.realpath(os.fspath(path)))
    python = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    dirs = [workspace, *SYSTEM_READ_DIRS, *sorted(python), *user]
    return tuple(dict.fromkeys(d for d in dirs if os.path.exists(d)))
