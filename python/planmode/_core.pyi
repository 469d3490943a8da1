"""Type stubs for the compiled module ``planmode._core`` (checked by mypy.stubtest in CI)."""

from typing import final

__all__ = [
    "__version__",
    # ---- tasks ----
    # ---- shell ----
    "ShellVerdict",
    "classify_shell",
    # ---- permission ----
    "PermissionCheck",
    "RuleCache",
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

from typing import Any  # noqa: E402  (kept in this section to keep merges apart)

@final
class RuleCache:
    """Compiled rule lists of permission contexts, re-validated against the live rule dictionaries."""

    def __new__(cls, modes: tuple[Any, ...], plain_types: list[type] = ...) -> RuleCache: ...
    @property
    def compiled_rules(self) -> int: ...
    def begin(
        self, context: Any, tool_name: str, kind: int, tool_input: Any, read_only: bool | None = None
    ) -> PermissionCheck: ...
    def __reduce__(self) -> tuple[Any, ...]: ...

@final
class PermissionCheck:
    """One permission check in progress (made by ``RuleCache.begin``)."""

    @property
    def step(self) -> int: ...
    def matched(self, position: int) -> int: ...
    def read_only(self, yes: bool) -> int: ...
    def tool_decision(self, final_: bool, safety_ask: bool) -> int: ...
    @property
    def pending_contents(self) -> tuple[Any, ...]: ...
    @property
    def tool_safety_ask(self) -> bool: ...
    def decision(self, tool_decision: Any = None) -> tuple[int, str, str | None, bool] | None: ...


# ---- plan-mode manager (plan) ----
