"""The plan file on a node's disk: locating it, hashing it, restoring it from state without clobbering edits."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from planmode.agentscope._admin._disk import disk_view, plan_file, restore_if_missing


def test_relative_paths_resolve_inside_the_workspace(tmp_path: Path) -> None:
    assert plan_file(str(tmp_path), "plans/a-1/PLAN.md") == tmp_path.resolve() / "plans/a-1/PLAN.md"


@pytest.mark.parametrize("bad", ["../outside/PLAN.md", "plans/../../PLAN.md", "/etc/PLAN.md"])
def test_escaping_paths_are_refused(tmp_path: Path, bad: str) -> None:
    with pytest.raises(ValueError, match="escapes the workspace|must be relative"):
        plan_file(str(tmp_path), bad)


def test_symlinked_plan_dir_pointing_outside_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "plans").symlink_to(outside)
    with pytest.raises(ValueError, match="escapes the workspace"):
        plan_file(str(workspace), "plans/PLAN.md")


def test_disk_view_compares_the_hash_with_state(tmp_path: Path) -> None:
    path = tmp_path / "PLAN.md"
    assert disk_view(path, "abc") == {"path": str(path), "exists": False, "sha256": None, "matches_state": None,
                                      "edited_on_disk": False}  # fmt: skip
    path.write_text("plan\n")
    digest = hashlib.sha256(b"plan\n").hexdigest()
    assert disk_view(path, digest)["matches_state"] is True
    edited = disk_view(path, "0" * 64)
    assert (edited["sha256"], edited["matches_state"], edited["edited_on_disk"]) == (digest, False, True)


def test_restore_writes_only_a_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "plans" / "x" / "PLAN.md"
    assert restore_if_missing(path, "from state\n") is True
    assert path.read_text() == "from state\n"
    path.write_text("human edit\n")
    assert restore_if_missing(path, "from state\n") is False
    assert path.read_text() == "human edit\n"
    assert sorted(p.name for p in path.parent.iterdir()) == ["PLAN.md"]  # no temporary file left behind
