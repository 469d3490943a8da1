"""The classifier's whole write corpus, run with the classifier out of the way, inside the
sandbox: nothing changes in the workspace, HOME or a sentinel directory, and the clock and
host name stay as they were. The sandbox is checked to be really there first (no skip)."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import time
from pathlib import Path

from _sandbox_support import require_sandbox, snapshot
from _shell_corpus import load_corpus

from planmode._core import SandboxRun, run_sandboxed

WRITES = [row.command for row in load_corpus() if not row.read_only]


def _workspace(root: Path) -> Path:
    """A git repository with the files the corpus names, so each command has a real target."""
    root.mkdir()
    for name in ("in.txt", "file", "f", "a", "x", "log", "notes.txt", "rw.txt", "script.sed",
                 "env.sh", "script.py"):
        (root / name).write_text(f"content of {name}\n")
    (root / "script.sh").write_text("#!/bin/sh\necho hi\n")
    (root / "build").mkdir()
    (root / "build" / "out.o").write_bytes(b"\x7fELF")
    (root / "b").mkdir()
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t", "HOME": str(root.parent / "home")}
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-qm", "init"],
                 ["branch", "old"]):
        subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)
    (root / "untracked.txt").write_text("not in git\n")
    return root


async def test_the_write_corpus_changes_nothing_outside_scratch(tmp_path: Path) -> None:
    require_sandbox()
    assert len(WRITES) > 150
    work = _workspace(tmp_path / "work")
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    (home / ".bashrc").write_text("# rc\n")
    (home / ".ssh").mkdir()
    (home / ".ssh" / "id_ed25519").write_text("PRIVATE\n")
    sentinel = tmp_path / "sentinel"
    sentinel.mkdir()
    (sentinel / "keep").write_text("keep\n")
    env = [("HOME", str(home)), ("SENTINEL", str(sentinel)), ("CMD", f"rm -rf {sentinel}"),
           ("GIT_AUTHOR_NAME", "t"), ("GIT_AUTHOR_EMAIL", "t@t")]
    # The canary: if the sandbox let this write through, stop before running the corpus.
    canary = await run_sandboxed(["/bin/sh", "-c", f"echo x > {sentinel}/keep"], cwd=str(work), env=env)
    assert canary.exit_code != 0 and (sentinel / "keep").read_text() == "keep\n"
    watched = {"work": work, "home": home, "sentinel": sentinel}
    before = {k: snapshot(v) for k, v in watched.items()}
    host, clock = socket.gethostname(), time.time()

    semaphore = asyncio.Semaphore(4)

    async def one(command: str) -> tuple[str, SandboxRun]:
        async with semaphore:
            run = await run_sandboxed(["/bin/sh", "-c", command], cwd=str(work), env=env, timeout=5)
            return command, run

    runs = await asyncio.gather(*[one(c) for c in WRITES])
    for key, root in watched.items():
        after = snapshot(root)
        changed = sorted(set(before[key]) ^ set(after)) + sorted(
            p for p in before[key].keys() & after.keys() if before[key][p] != after[p])
        assert not changed, f"{key} changed: {changed[:10]}"
    assert socket.gethostname() == host
    assert abs(time.time() - clock) < 3600  # `date -s 2020-01-01` did not set the clock
    assert all(r.scratch_removed for _, r in runs)
    assert all(r.abi >= 1 for _, r in runs)
    # Many commands really tried to write and were refused (not merely failing for other reasons).
    refused = [c for c, r in runs if r.blocked]
    assert len(refused) > 40, refused
