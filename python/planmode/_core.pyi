"""Type stubs for the compiled module ``planmode._core`` (checked by mypy.stubtest in CI)."""

__all__ = [
    "__version__",
    # ---- tasks ----
    "TaskGraph",
    "TaskStateIndex",
    "render_task_list",
    # ---- shell ----
    # ---- permission ----
    # ---- plan ----
]

__version__: str

# ---- task graph (tasks) ----
import builtins
from typing import Any, ClassVar, final

@final
class TaskGraph:
    """A task graph with AgentScope's task semantics, held in Rust."""

    __hash__: ClassVar[None]  # type: ignore[assignment]
    def __new__(cls, tasks: builtins.list[dict[str, Any]] | None = None) -> TaskGraph: ...
    def __len__(self) -> int: ...
    def __contains__(self, key: object, /) -> bool: ...
    def __eq__(self, value: object, /) -> bool: ...
    def __copy__(self) -> TaskGraph: ...
    def __deepcopy__(self, memo: Any) -> TaskGraph: ...
    def __getstate__(self) -> str: ...
    def __setstate__(self, state: str) -> None: ...
    def create(
        self,
        subject: str,
        description: str,
        metadata: dict[str, Any] | None = None,
        *,
        created_at: str | None = None,
    ) -> str: ...
    def get(self, task_id: str) -> dict[str, Any]: ...
    def list(self) -> builtins.list[dict[str, Any]]: ...
    def update(
        self,
        task_id: str,
        *,
        subject: str | None = None,
        description: str | None = None,
        add_blocks: builtins.list[str] | None = None,
        status: str | None = None,
        add_blocked_by: builtins.list[str] | None = None,
        owner: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> builtins.list[str]: ...
    def ready(self) -> builtins.list[str]: ...
    def topological_order(self) -> builtins.list[str]: ...
    def validate(self) -> builtins.list[dict[str, Any]]: ...
    def repair(self) -> builtins.list[dict[str, Any]]: ...
    @staticmethod
    def validate_state_dict(state: dict[str, Any]) -> builtins.list[dict[str, Any]]: ...
    def to_mermaid(self) -> str: ...
    def to_dot(self) -> str: ...
    def state_dict(self) -> dict[str, Any]: ...
    @classmethod
    def from_state_dict(cls, state: dict[str, Any]) -> TaskGraph: ...
    def load_state_dict(self, state: dict[str, Any]) -> None: ...
    def to_json(self) -> str: ...
    @classmethod
    def from_json(cls, json: str) -> TaskGraph: ...

@final
class TaskStateIndex:
    """The index behind the AgentScope Task tools (one per tasks_context)."""

    def __new__(cls, task_type: Any) -> TaskStateIndex: ...
    def __reduce__(self) -> tuple[Any, tuple[Any]]: ...
    def invalidate(self) -> None: ...
    def create(self, tasks: list[Any], subject: Any, description: Any, metadata: Any) -> tuple[str, bool]: ...
    def get(self, tasks: list[Any], task_id: Any) -> tuple[str, bool]: ...
    def update(
        self,
        tasks: list[Any],
        task_id: Any,
        subject: Any = None,
        description: Any = None,
        add_blocks: Any = None,
        status: Any = None,
        add_blocked_by: Any = None,
        owner: Any = None,
        metadata: Any = None,
    ) -> tuple[str, bool]: ...

def render_task_list(tasks: list[Any]) -> str:
    """AgentScope's TaskList text for a list of Task objects."""


# ---- shell classifier (shell) ----


# ---- permission engine (permission) ----


# ---- plan-mode manager (plan) ----
