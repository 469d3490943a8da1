"""Git in a blob-less partial clone: every git command line the classifier calls read-only is run
in a fresh `--filter=blob:none` clone of a local repository (a real promisor remote over
file://) and must fetch nothing — the object store and the working tree stay exactly as they
were. Commands that read history's file contents are refused unless `git --no-lazy-fetch`."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from planmode import classify_shell

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

COMMANDS = [
    "git status", "git status --short", "git log --oneline", "git log --oneline -- a.txt", "git log -p",
    "git log --stat", "git log -S two --oneline", "git log -G two", "git log --follow -- a.txt", "git show",
    "git show HEAD~1", "git show HEAD~1:a.txt", "git show -s --format=%H HEAD~1", "git diff", "git diff HEAD~1",
    "git diff --stat HEAD~2", "git diff --cached", "git blame a.txt", "git grep two", "git grep two HEAD~1",
    "git cat-file -p HEAD~1:a.txt", "git ls-tree -r HEAD~1", "git ls-tree -l HEAD~1", "git ls-files",
    "git rev-list --objects --all", "git shortlog -sn", "git whatchanged -1", "git log --name-status",
    "git branch -a", "git tag", "git describe --always", "git --no-lazy-fetch show HEAD~1",
    "git --no-lazy-fetch log -p", "git --no-lazy-fetch blame a.txt", "git stash list -p", "git reflog -p",
]


def _git(cwd: Path, *args: str) -> str:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(cwd), "GIT_AUTHOR_NAME": "t",
           "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


@pytest.fixture(scope="module")
def origin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    repo = tmp_path_factory.mktemp("origin")
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "config", "uploadpack.allowFilter", "true")
    _git(repo, "config", "uploadpack.allowAnySHA1InWant", "true")
    for i, text in enumerate(["one\n", "one\ntwo\n", "one\ntwo\nthree\n"]):
        (repo / "a.txt").write_text(text)
        (repo / f"f{i}.txt").write_text(f"file {i}\n" * 50)
        _git(repo, "add", "-A")
        _git(repo, "commit", "-q", "-m", f"commit {i}")
    return repo


def _snapshot(root: Path) -> dict[str, int]:
    return {str(p.relative_to(root)): p.stat().st_size for p in root.rglob("*") if p.is_file() and p.name != "index"}


@pytest.mark.parametrize("command", COMMANDS)
def test_read_only_git_fetches_nothing_in_a_partial_clone(origin: Path, tmp_path: Path, command: str) -> None:
    verdict = classify_shell(command)
    if not verdict.read_only:
        assert "git --no-lazy-fetch" in verdict.reason or "not" in verdict.reason, verdict
        return
    clone = tmp_path / "clone"
    _git(tmp_path, "clone", "-q", "--filter=blob:none", f"file://{origin}", str(clone))
    before = _snapshot(clone)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp_path), "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["/bin/sh", "-c", command], cwd=clone, env=env, capture_output=True, timeout=60)
    after = _snapshot(clone)
    assert after == before, f"{command!r} ({verdict}) changed {sorted(set(after) ^ set(before)) or 'a file'}"


def test_history_reads_are_refused_with_the_fix(origin: Path) -> None:
    for command in ["git show HEAD~1", "git log -p", "git blame a.txt", "git diff HEAD~1"]:
        verdict = classify_shell(command)
        assert not verdict.read_only
        assert "git --no-lazy-fetch" in verdict.reason
