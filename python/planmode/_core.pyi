"""Type stubs for the compiled module ``planmode._core`` (checked by mypy.stubtest in CI)."""

from typing import final

__all__ = [
    "__version__",
    # ---- tasks ----
    # ---- shell ----
    "ShellVerdict",
    "classify_shell",
    # ---- permission ----
    # ---- plan ----
]

__version__: str

# ---- task graph (tasks) ----


# ---- shell classifier (shell) ----

@final
class ShellVerdict:
    """Whether a shell command line is provably read-only, and why."""

    def __new__(cls, read_only: bool, reason: str, offending: str | None = None) -> ShellVerdict: ...
    @property
    def read_only(self) -> bool:
        """True only when every part of the command line is provably read-only."""
    @property
    def reason(self) -> str:
        """The programs that were checked, or what makes the command not read-only."""
    @property
    def offending(self) -> str | None:
        """The source text of the offending part, when there is one."""
    def __eq__(self, value: object, /) -> bool: ...
    def __hash__(self) -> int: ...
    def __getnewargs__(self) -> tuple[bool, str, str | None]: ...

def classify_shell(command: str) -> ShellVerdict:
    """Classify a shell command line as read-only or not (fail closed)."""


# ---- permission engine (permission) ----


# ---- plan-mode manager (plan) ----
