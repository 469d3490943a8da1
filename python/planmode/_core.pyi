"""Type stubs for the compiled module ``planmode._core`` (checked by mypy.stubtest in CI)."""

from typing import final

__all__ = [
    "__version__",
    # ---- tasks ----
    "TaskGraph",
    "TaskStateIndex",
    "render_task_list",
    # ---- shell ----
    "ShellVerdict",
    "classify_shell",
    # ---- permission ----
    "BehaviorValue",
    "CheckStep",
    "MatcherKind",
    "PermissionCheck",
    "RuleCache",
    "ToolVerdict",
    # ---- plan ----
    "PlanBook",
    "PlanWorkspace",
    "PlanReport",
    "plan_sha256",
    "check_plan_text",
    "plan_steps",
    "plan_relpath",
    "render_plan",
    "utc_now",
    "check_actor",
    "qualify_actor",
    "PLAN_STATE_KEY",
    "PLAN_PHASES",
    "PlanPhase",
    "PlanOutcome",
    "PlanDecision",
    "ActorKind",
    "DEFAULT_MAX_PLAN_BYTES",
    # ---- sandbox ----
    "SandboxRun",
    "sandbox_support",
    "run_sandboxed",
    "sandbox_shutdown",
]

__version__: str

# ---- task graph (tasks) ----
import builtins
from typing import Any, ClassVar, final

@final
class TaskGraph:
    """A task graph with AgentScope's task semantics, held in Rust; safe to share between threads."""

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
    """The index behind the AgentScope Task tools (one per tasks_context); safe to share between threads."""

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

def classify_shell(command: str, *, dialect: str = "sh") -> ShellVerdict:
    """Classify a shell command line as read-only or not (fail closed), for the shell
    ``dialect`` that will run it: ``"sh"`` (some POSIX ``/bin/sh``, the default) or ``"bash"``."""


# ---- permission engine (permission) ----

from typing import Any, Literal, TypeAlias  # noqa: E402  (kept in this section to keep merges apart)

# The words of the check protocol, spelled once in src/py/permission/protocol.rs and exported as
# these same Literal aliases at run time (a test checks both agree and that the core accepts /
# produces exactly these).
MatcherKind: TypeAlias = Literal["tool", "bash", "file", "glob", "grep", "default"]
"""Which native matcher reproduces a tool's ``match_rule`` (``"tool"``: only the tool can judge)."""
CheckStep: TypeAlias = Literal["match_rules", "check_read_only", "check_permissions", "done", "done_suggest"]
"""What a ``PermissionCheck`` needs next."""
ToolVerdict: TypeAlias = Literal["final", "safety_ask", "continue"]
"""How the tool's own ``check_permissions`` decision reads: ALLOW/DENY, a safety ASK, anything else."""
BehaviorValue: TypeAlias = Literal["allow", "deny", "ask"]
"""A ``PermissionBehavior`` value."""

@final
class RuleCache:
    """Compiled rules of permission contexts, re-validated lazily against the live rule lists."""

    def __new__(cls, modes: tuple[Any, ...]) -> RuleCache: ...
    @property
    def compiled_rules(self) -> int: ...
    def begin(
        self, context: Any, tool_name: str, kind: MatcherKind, tool_input: Any, read_only: bool | None = None
    ) -> PermissionCheck: ...
    def __reduce__(self) -> tuple[Any, ...]: ...

@final
class PermissionCheck:
    """One permission check in progress (made by ``RuleCache.begin``)."""

    @property
    def step(self) -> CheckStep: ...
    def matched(self, position: int | None) -> CheckStep: ...
    def read_only(self, yes: bool) -> CheckStep: ...
    def tool_decision(self, verdict: ToolVerdict) -> CheckStep: ...
    @property
    def pending_contents(self) -> tuple[Any, ...]: ...
    @property
    def tool_safety_ask(self) -> bool: ...
    def decision(self, tool_decision: Any = None) -> tuple[BehaviorValue, str, str | None, bool] | None: ...


# ---- plan-mode manager (plan) ----

from collections.abc import Sequence
from os import PathLike
from typing import Any, final

DEFAULT_MAX_PLAN_BYTES: int
PLAN_STATE_KEY: str
PLAN_PHASES: tuple[PlanPhase, PlanPhase, PlanPhase, PlanPhase]

# ---- PlanBook's types: the words and the dict results (types only; tests/test_plan_types.py
# checks that the words are the core's run-time aliases and that every result has exactly these
# keys). The run-time aliases come from the core's own lists (src/py/plan/mod.rs). ----
from typing import Literal, NotRequired, TypeAlias, TypedDict  # noqa: E402

PlanPhase: TypeAlias = Literal["never_entered", "planning", "awaiting_approval", "building"]
"""Where an agent stands in the plan -> approve -> build lifecycle."""
PlanOutcome: TypeAlias = Literal[
    "never_entered", "planning_with_plan", "planning_without_plan", "exited_with_plan", "exited_without_plan"
]
"""Which terminal state a run is in."""
PlanDecision: TypeAlias = Literal["approve", "approve_with_edits", "request_changes", "reject", "cancel"]
"""A human's answer to a plan (or a cancellation)."""
ActorKind: TypeAlias = Literal["model", "user", "api", "admin", "lead", "policy", "system"]
"""Who did something (an actor string is a kind, optionally ``kind:qualifier``)."""
_AnswerChannel: TypeAlias = Literal["admin", "in_process", "chat"]
_TodoStatus: TypeAlias = Literal["pending", "in_progress", "completed"]
_TodoPriority: TypeAlias = Literal["high", "medium", "low"]
_StepChangeKind: TypeAlias = Literal["added", "removed", "changed", "moved"]
_AuditKind: TypeAlias = Literal[
    "entered", "written", "exit_requested", "exit_refused", "decision", "forced_exit", "mode_change",
    "restored", "decision_claimed", "claim_expired", "drift",
]

class _WriteResult(TypedDict):
    revision: int
    sha256: str
    unchanged: bool

class _Grant(TypedDict):
    tool_name: str
    rule_content: str | None
    revision: int

class _DecisionResult(TypedDict):
    decision: PlanDecision
    revision: int
    sha256: str
    edited: bool
    feedback: str | None
    next_mode: str | None

class _AppliedClaim(_DecisionResult):
    actor: str
    grants: list[_Grant]

class _Claim(TypedDict):
    channel: _AnswerChannel
    decision: PlanDecision
    actor: str
    feedback: str | None
    edited_plan: str | None
    revision: int | None
    sha256: str | None
    next_mode: str | None
    grants: list[_Grant]
    at: str
    expires_unix: int

class _Pending(TypedDict):
    reply_id: str
    tool_call_id: str
    revision: int
    summary: str | None
    requested_at: str
    auto: bool
    claim: NotRequired[_Claim]

class _Todo(TypedDict):
    content: str
    status: _TodoStatus
    priority: NotRequired[_TodoPriority]
    step_id: NotRequired[str]

class _AuditEntry(TypedDict):
    kind: _AuditKind
    actor: str
    at: str
    revision: NotRequired[int]
    decision: NotRequired[PlanDecision]
    feedback: NotRequired[str]
    from_mode: NotRequired[str]
    to_mode: NotRequired[str]
    detail: NotRequired[str]
    count: NotRequired[int]

class _Revision(TypedDict):
    number: int
    sha256: str
    bytes: int
    author: str
    edited_by_user: bool
    at: str
    content: str | None
    step_ids: NotRequired[list[str]]

class _Step(TypedDict):
    id: str
    text: str
    status: _TodoStatus | None
    files: list[str]
    action: str | None

class _StepChange(TypedDict):
    id: str
    change: _StepChangeKind
    text: str | None
    old_text: str | None
    moved: bool

class _Scope(TypedDict):
    paths: list[str]
    commands: list[str]

class _FileView(TypedDict):
    path: str
    exists: bool
    sha256: str | None
    text: str | None
    matches_state: bool | None
    edited_on_disk: bool
    error: str | None

class _Trimmed(TypedDict):
    revision_texts: int
    revision_records: int
    audit_entries: int
    folded_refusals: int

# ---- end of PlanBook's types ----

@final
class PlanBook:
    """The plan-mode state machine over the JSON stored in ``middle_context["planmode"]``;
    safe to share between threads (calls take turns)."""

    def __new__(
        cls,
        state: dict[str, Any] | None = None,
        *,
        max_plan_bytes: int = ...,
        max_revisions_kept: int = ...,
        max_revision_records: int = ...,
        max_audit_entries: int = ...,
    ) -> PlanBook: ...
    def to_state(self) -> dict[str, Any]: ...
    def copy(self) -> PlanBook: ...
    @property
    def phase(self) -> PlanPhase: ...
    @property
    def outcome(self) -> PlanOutcome: ...
    @property
    def active(self) -> bool: ...
    @property
    def revision(self) -> int | None: ...
    @property
    def sha256(self) -> str | None: ...
    @property
    def plan_content(self) -> str | None: ...
    @property
    def plan_path(self) -> str | None: ...
    @property
    def agent_key(self) -> str | None: ...
    @property
    def approved_revision(self) -> int | None: ...
    @property
    def exited_by(self) -> str | None: ...
    @property
    def pending(self) -> _Pending | None: ...
    @property
    def grants(self) -> list[_Grant]: ...
    @property
    def todos(self) -> list[_Todo]: ...
    @property
    def audit(self) -> list[_AuditEntry]: ...
    @property
    def revisions(self) -> list[_Revision]: ...
    def bind(self, agent_key: str, plan_path: str, workspace_dir: str) -> None: ...
    @property
    def workspace_dir(self) -> str | None: ...
    def enter(self, actor: str = "model", at: str | None = None) -> str: ...
    def write(self, content: str, actor: str = "model", at: str | None = None) -> _WriteResult: ...
    def record_file_edit(self, content: str, actor: str = "user", at: str | None = None) -> _WriteResult: ...
    def check_exit(self) -> int: ...
    def request_exit(
        self,
        reply_id: str,
        tool_call_id: str,
        summary: str | None = None,
        *,
        auto: bool = False,
        at: str | None = None,
    ) -> int: ...
    def record_exit_refused(self, reason: str, at: str | None = None) -> None: ...
    def decide(
        self,
        decision: str,
        actor: str = "user",
        *,
        feedback: str | None = None,
        edited_plan: str | None = None,
        file_text: str | None = None,
        revision: int | None = None,
        next_mode: str | None = None,
        grants: list[dict[str, Any]] | None = None,
        channel: str = "in_process",
        may_escalate: bool = False,
        scope: dict[str, Any] | str | None = None,
        at: str | None = None,
    ) -> _DecisionResult: ...
    def check_answer(
        self,
        decision: str,
        actor: str = "user",
        *,
        feedback: str | None = None,
        edited_plan: str | None = None,
        revision: int | None = None,
        next_mode: str | None = None,
        grants: list[dict[str, Any]] | None = None,
        channel: str = "in_process",
        may_escalate: bool = False,
        scope: dict[str, Any] | str | None = None,
    ) -> None: ...
    def claim(
        self,
        decision: str,
        actor: str = "user",
        *,
        feedback: str | None = None,
        edited_plan: str | None = None,
        revision: int | None = None,
        next_mode: str | None = None,
        grants: list[dict[str, Any]] | None = None,
        channel: str = "admin",
        may_escalate: bool = False,
        scope: dict[str, Any] | str | None = None,
        lease_secs: int = 60,
        at: str | None = None,
    ) -> _Claim: ...
    @property
    def live_claim(self) -> _Claim | None: ...
    def check_resume(self, tool_call_id: str) -> None: ...
    def apply_claim(self, tool_call_id: str, file_text: str | None = None, at: str | None = None) -> _AppliedClaim: ...
    def inspect_file(self, workspace: PlanWorkspace) -> _FileView | None: ...
    def human_edit(self, workspace: PlanWorkspace) -> str | None: ...
    def sync_file(self, workspace: PlanWorkspace, actor: str = "user", at: str | None = None) -> int | None: ...
    def restore_file(self, workspace: PlanWorkspace, at: str | None = None, *, audit: bool = True) -> bool: ...
    def mirror_progress(self, workspace: PlanWorkspace) -> dict[str, bool]: ...
    @property
    def expected_file_text(self) -> str | None: ...
    @property
    def trimmed(self) -> _Trimmed: ...
    def force_exit(self, actor: str, at: str | None = None) -> dict[str, Any] | None: ...
    def cancel_pending(self, actor: str, detail: str, at: str | None = None) -> bool: ...
    def record_mode_change(self, actor: str, from_mode: str, to_mode: str, at: str | None = None) -> None: ...
    def record_restored(self, at: str | None = None) -> None: ...
    def set_todos(self, todos: list[dict[str, Any]]) -> list[_Todo]: ...
    def seed_todos_from_plan(self) -> bool: ...
    def steps(self, revision: int | None = None) -> list[_Step]: ...
    def step_diff(self, old: int | None = None, new: int | None = None) -> list[_StepChange]: ...
    def approved_scope(self) -> _Scope | None: ...
    def declared_scope(self, revision: int | None = None) -> _Scope | None: ...
    def review_base(self, revision: int | None = None) -> int | None: ...
    def scope_allows(self, kind: str, value: str) -> bool: ...
    def record_drift(self, detail: str, actor: str = "model", at: str | None = None) -> None: ...
    def scope_outside(
        self, tool_input: Any, workspace: str, *, command: str | None = None, base: str | None = None
    ) -> builtins.list[str] | None: ...
    def ask_scope(self, tool_call_id: str, reply_id: str, tool: str, tool_input: Any) -> None: ...
    def answer_scope(
        self, tool_call_id: str, reply_id: str, tool: str, tool_input: Any | None, confirmed: bool
    ) -> bool: ...
    def take_scope_pass(self, tool_call_id: str, tool: str, tool_input: Any) -> bool: ...
    def __getnewargs_ex__(self) -> tuple[tuple[dict[str, Any]], dict[str, int]]: ...

@final
class PlanWorkspace:
    """A workspace directory with safe reads and atomic writes of files inside it."""

    def __new__(cls, workspace_dir: str | PathLike[str]) -> PlanWorkspace: ...
    @property
    def root(self) -> str: ...
    def path(self, rel: str) -> str: ...
    def read(self, rel: str, max_bytes: int = ...) -> str | None: ...
    def write(self, rel: str, text: str) -> str: ...
    def __getnewargs__(self) -> tuple[str]: ...

@final
class PlanReport:
    """Outcomes over many stored runs, aggregated in Rust; safe to share between threads."""

    def __new__(cls) -> PlanReport: ...
    def add(self, source: str, data: bytes) -> None: ...
    def add_many(self, items: list[tuple[str, bytes]]) -> None: ...
    def add_files(self, paths: Sequence[str | PathLike[str]]) -> None: ...
    def result(self) -> dict[str, Any]: ...

def plan_sha256(text: str) -> str: ...
def check_plan_text(text: str, max_bytes: int = ..., what: str = "plan content") -> None: ...
def plan_steps(text: str) -> list[str]: ...
def plan_relpath(plan_dir: str, namespace: str | None = None) -> str: ...
def render_plan(fields: dict[str, Any], max_bytes: int = ...) -> str: ...
def utc_now() -> str: ...
def check_actor(actor: str) -> None: ...
def qualify_actor(given: str | None, default_kind: str = "admin") -> str: ...


# ---- the planning-shell sandbox (sandbox) ----
from collections.abc import Awaitable

@final
class SandboxRun:
    """What one sandboxed command did."""

    def __new__(
        cls, exit_code: int | None, signal: int | None, timed_out: bool, stdout: bytes,
        stderr: bytes, stdout_dropped: int, stderr_dropped: int, abi: int, network_blocked: bool,
        scoped: bool, scratch_dir: str, scratch_entries: builtins.list[str],
        scratch_removed: bool, blocked: builtins.list[str],
    ) -> SandboxRun: ...
    @property
    def exit_code(self) -> int | None: ...
    @property
    def signal(self) -> int | None: ...
    @property
    def timed_out(self) -> bool: ...
    @property
    def stdout(self) -> bytes: ...
    @property
    def stderr(self) -> bytes: ...
    @property
    def stdout_dropped(self) -> int: ...
    @property
    def stderr_dropped(self) -> int: ...
    @property
    def abi(self) -> int: ...
    @property
    def network_blocked(self) -> bool: ...
    @property
    def scoped(self) -> bool: ...
    @property
    def scratch_dir(self) -> str: ...
    @property
    def scratch_entries(self) -> builtins.list[str]: ...
    @property
    def scratch_removed(self) -> bool: ...
    @property
    def blocked(self) -> builtins.list[str]: ...
    def __getnewargs__(self) -> tuple[Any, ...]: ...

def sandbox_support() -> tuple[int | None, str]:
    """(Landlock ABI used, or None; a sentence saying why)."""

def run_sandboxed(
    argv: builtins.list[str], *, cwd: str | None = None, timeout: float = 120.0,
    output_cap: int = 1048576, allow_network: bool = False,
    read_paths: builtins.list[str] | None = None,
    env: builtins.list[tuple[str, str]] | None = None, scratch_parent: str | None = None,
    max_file_size: int = 1073741824, max_open_files: int = 4096,
    max_processes: int | None = None,
) -> Awaitable[SandboxRun]:
    """Run argv under the Landlock sandbox (an awaitable; raises SandboxUnavailableError)."""

def sandbox_shutdown() -> int:
    """Stop delivering results (at interpreter exit); returns the commands still running."""
