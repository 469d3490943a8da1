"""The plan file on this node's disk: where it is, whether it matches the revision in state, restoring it."""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path
from typing import Any


def plan_file(workdir: str, relpath: str) -> Path:
    """The plan file ``relpath`` (as plan mode records it, relative to the workspace) inside ``workdir``
    on this node; ValueError when it would resolve outside the workspace."""
    root = Path(workdir).resolve()
    if Path(relpath).is_absolute():
        raise ValueError(f"plan path {relpath!r} must be relative to the workspace")
    candidate = (root / relpath).resolve()
    if not candidate.is_relative_to(root):
        raise ValueError(f"plan path {relpath!r} escapes the workspace {workdir!r}")
    return candidate


def sha256_of(data: bytes) -> str:
    """Hex SHA-256, the digest plan mode records for every revision."""
    return hashlib.sha256(data).hexdigest()


def disk_view(path: Path, state_sha256: str | None) -> dict[str, Any]:
    """``{path, exists, sha256, matches_state, edited_on_disk}`` for the plan file on this node."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return {"path": str(path), "exists": False, "sha256": None, "matches_state": None, "edited_on_disk": False}
    digest = sha256_of(data)
    matches = None if state_sha256 is None else digest == state_sha256
    return {
        "path": str(path),
        "exists": True,
        "sha256": digest,
        "matches_state": matches,
        "edited_on_disk": matches is False,
    }


def restore_if_missing(path: Path, content: str) -> bool:
    """Writes the revision text from state to ``path`` when no file is there (atomic; never overwrites
    a human's edit). Returns whether it wrote."""
    if path.exists():
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".plan-restore-")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(content.encode())
        os.link(tmp, path)  # fails if someone created the file meanwhile: theirs wins
    except FileExistsError:
        return False
    finally:
        os.unlink(tmp)
    return True
