"""A plain-Python model of AgentScope's task semantics plus planmode's refusals, for the task tests.

Tasks are dicts with AgentScope's ``Task`` fields. ``update`` transcribes AgentScope's
``TaskUpdate`` literally (linear scans) and first refuses what planmode refuses: an edge to an
unknown id, a self-loop, or an edge that closes a cycle in the ``blocked_by`` graph.
"""

from __future__ import annotations

import contextlib
import copy
from typing import Any


class Refused(Exception):
    """The model refuses this update; ``kind`` is ``unknown``, ``self_loop`` or ``cycle``."""

    def __init__(self, kind: str) -> None:
        super().__init__(kind)
        self.kind = kind


def next_id(tasks: list[Any]) -> str:
    """AgentScope's id rule: largest numeric id + 1."""
    top = 0
    for t in tasks:
        with contextlib.suppress(TypeError, ValueError):
            top = max(top, int(_get(t, "id")))
    return str(top + 1)


def _get(task: Any, field: str) -> Any:
    return task[field] if isinstance(task, dict) else getattr(task, field)


def has_cycle(tasks: list[Any]) -> bool:
    """Whether the waits-on graph (``blocked_by``) has a cycle, self-loops included."""
    index = {_get(t, "id"): t for t in tasks}
    state: dict[str, int] = {}

    def visit(tid: str) -> bool:
        if state.get(tid) == 1:
            return True
        if state.get(tid) == 2:
            return False
        state[tid] = 1
        for other in _get(index[tid], "blocked_by"):
            if other in index and visit(other):
                return True
        state[tid] = 2
        return False

    return any(visit(tid) for tid in list(index))


def link(tasks: list[Any], task_id: str, add_blocks: list[str] | None, add_blocked_by: list[str] | None) -> None:
    """AgentScope's add_blocks / add_blocked_by handling, verbatim (mutates ``tasks``)."""
    index = max(i for i, t in enumerate(tasks) if _get(t, "id") == task_id)
    existed = [_get(t, "id") for t in tasks]

    def relate(blocker: str, blocked: str) -> None:
        for t in tasks:
            if _get(t, "id") == blocker and blocked not in _get(t, "blocks"):
                _get(t, "blocks").append(blocked)
            if _get(t, "id") == blocked and blocker not in _get(t, "blocked_by"):
                _get(t, "blocked_by").append(blocker)

    if add_blocks:
        current = _get(tasks[index], "blocks")
        for b in [b for b in add_blocks if b not in current and b in existed]:
            relate(task_id, b)
    if add_blocked_by is not None:
        current = _get(tasks[index], "blocked_by")
        for b in [b for b in add_blocked_by if b not in current and b in existed]:
            relate(b, task_id)


def refusal(tasks: list[Any], task_id: str, add_blocks: list[str] | None, add_blocked_by: list[str] | None) -> str | None:
    """Why planmode refuses these edges on ``tasks`` (None if it accepts them)."""
    ids = {_get(t, "id") for t in tasks}
    named = list(add_blocks or []) + list(add_blocked_by or [])
    if any(n not in ids for n in named):
        return "unknown"
    if task_id in named:
        return "self_loop"
    trial = copy.deepcopy(tasks)
    link(trial, task_id, add_blocks, add_blocked_by)
    return "cycle" if has_cycle(trial) else None


class RefGraph:
    """The model: a list of task dicts with AgentScope's semantics and planmode's refusals."""

    def __init__(self) -> None:
        self.tasks: list[dict[str, Any]] = []

    def create(self, subject: str, description: str, metadata: dict[str, Any] | None = None) -> str:
        tid = next_id(self.tasks)
        self.tasks.append(
            {
                "subject": subject,
                "description": description,
                "metadata": dict(metadata or {}),
                "state": "pending",
                "id": tid,
                "owner": None,
                "blocks": [],
                "blocked_by": [],
            }
        )
        return tid

    def update(self, task_id: str, **kw: Any) -> list[str]:
        """Applies an update; raises KeyError (unknown task) or Refused, changing nothing."""
        matches = [i for i, t in enumerate(self.tasks) if t["id"] == task_id]
        if not matches:
            raise KeyError(task_id)
        reason = refusal(self.tasks, task_id, kw.get("add_blocks"), kw.get("add_blocked_by"))
        if reason:
            raise Refused(reason)
        task = self.tasks[matches[-1]]
        fields: list[str] = []
        if kw.get("subject"):
            fields.append("subject")
            task["subject"] = kw["subject"]
        if kw.get("description") is not None:
            fields.append("description")
            task["description"] = kw["description"]
        before = copy.deepcopy(task)
        link(self.tasks, task_id, kw.get("add_blocks"), kw.get("add_blocked_by"))
        if kw.get("add_blocks") and _new(kw["add_blocks"], before["blocks"]):
            fields.append("add_blocks")
        if kw.get("add_blocked_by") is not None and _new(kw["add_blocked_by"], before["blocked_by"]):
            fields.append("add_blocked_by")
        status = kw.get("status")
        if status == "deleted":
            self.tasks.remove(task)
            for t in self.tasks:
                if task_id in t["blocks"]:
                    t["blocks"].remove(task_id)
                if task_id in t["blocked_by"]:
                    t["blocked_by"].remove(task_id)
            return [*fields, "status"]
        if status:
            fields.append("status")
            task["state"] = status
            if status == "completed":
                for t in self.tasks:
                    if task_id in t["blocked_by"]:
                        t["blocked_by"].remove(task_id)
        if kw.get("owner") is not None:
            fields.append("owner")
            task["owner"] = kw["owner"]
        if kw.get("metadata"):
            fields.append("metadata")
            for k, v in kw["metadata"].items():
                if v is None:
                    task["metadata"].pop(k, None)
                else:
                    task["metadata"][k] = v
        return fields

    def ready(self) -> list[str]:
        """Pending tasks whose blockers are all completed or gone, lowest id first."""
        state = {t["id"]: t["state"] for t in self.tasks}
        ready = [
            t["id"]
            for t in self.tasks
            if t["state"] == "pending" and all(state.get(b, "completed") == "completed" for b in t["blocked_by"])
        ]
        return sorted(ready, key=int)


def _new(requested: list[str], current: list[str]) -> bool:
    return any(r not in current for r in requested)
