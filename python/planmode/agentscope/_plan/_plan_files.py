"""``PlanFiles``: the plan file of each agent in one workspace — which path an agent gets
(claimed once, namespaced when shared), reading and replacing it, and putting it back from
state on a machine where it is missing."""

from __future__ import annotations

import uuid

from agentscope.state import AgentState

from ..._core import PlanBook, plan_relpath
from ...exceptions import PlanModeError
from . import _state
from ._config import PlanModeConfig

#: Plain plan paths claimed in this process: absolute path -> owner agent key.
_CLAIMS: dict[str, str] = {}


class PlanFiles:
    """The plan files of one ``PlanMode``: its ``workspace`` and each agent's plan path."""

    def __init__(self, config: PlanModeConfig) -> None:
        self.config = config
        self.workspace = config.workspace
        self._plain_path = config.plain_path

    def load(self, state: AgentState) -> PlanBook:
        """The plan book of ``state`` with this configuration's limits."""
        return _state.load(state, self.config.max_plan_bytes, **self.config.bounds)

    def bind(self, state: AgentState, agent_name: str, *, child: bool = False,
             restore: bool = False, assign: bool = False) -> PlanBook:
        """Gives the agent its plan path, once, as soon as it uses plan mode (or ``assign``);
        an agent that never plans leaves no trace. With ``restore``, a plan file missing from
        the workspace is written back from state (another machine, a cleaned checkout)."""
        book = self.load(state)
        root = self.workspace.root
        unbound = book.plan_path is None or book.agent_key is None
        if unbound and (assign or book.active or book.revision is not None):
            key = book.agent_key or uuid.uuid4().hex
            book.bind(key, self._assign_path(agent_name, key, child), root)
            _state.save(state, book)
        elif not unbound and book.workspace_dir != root:  # resumed in another workspace
            book.bind(book.agent_key or "", book.plan_path or "", root)
            _state.save(state, book)
        if restore:
            self._restore_file(state, book)
        return book

    def abs_path(self, book: PlanBook) -> str:
        """The absolute plan file path of a bound book."""
        return self.workspace.path(book.plan_path or self._plain_path)

    def read_plan_file(self, book: PlanBook) -> str | None:
        """The plan file's current text (None if missing)."""
        return self.workspace.read(book.plan_path or self._plain_path, self.config.max_plan_bytes)

    def write_plan_file(self, book: PlanBook, text: str) -> None:
        """Replaces the plan file atomically."""
        self.workspace.write(book.plan_path or self._plain_path, text)

    def _restore_file(self, state: AgentState, book: PlanBook) -> None:
        """Puts the latest revision back when the file is missing or a stale copy (the agent runs
        on this node now); a human edit or an unreadable file is left for the next decision."""
        try:
            wrote = book.restore_file(self.workspace)
        except (PlanModeError, OSError):
            return
        if wrote:
            _state.save(state, book)

    def _assign_path(self, agent_name: str, key: str, child: bool) -> str:
        if not child and not self.config.per_agent_paths and self._claim(self._plain_path, key):
            return self._plain_path
        return plan_relpath(self.config.plan_dir, f"{agent_name}-{key[:8]}")

    def _claim(self, rel: str, key: str) -> bool:
        """Claims the plain plan path for one agent, in this process and on disk."""
        head, _, name = rel.rpartition("/")
        marker = f"{head}/.{name}.owner" if head else f".{name}.owner"
        where = self.workspace.path(rel)
        try:
            owner = self.workspace.read(marker, 256)
        except (PlanModeError, OSError):
            return False
        owner = owner.strip() if owner else None
        if _CLAIMS.get(where, key) != key or (owner and owner != key):
            return False
        self.workspace.write(marker, key)
        _CLAIMS[where] = key
        return True
