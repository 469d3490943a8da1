"""Type stubs for the compiled module ``planmode._core`` (checked by mypy.stubtest in CI)."""

__all__ = [
    "__version__",
    # ---- tasks ----
    # ---- shell ----
    # ---- permission ----
    "PermissionCheck",
    "RuleCache",
    # ---- plan ----
]

__version__: str

# ---- task graph (tasks) ----


# ---- shell classifier (shell) ----


# ---- permission engine (permission) ----

from typing import Any, final  # noqa: E402  (kept in this section to keep merges apart)

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
