"""Shared helpers for the sandbox tests: the sandbox must really be there (never a skip), and
snapshots of directories that must stay byte-identical."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from planmode._core import sandbox_support


def require_sandbox() -> int:
    """The Landlock ABI; fails (does not skip) where the sandbox is missing: CI has it."""
    abi, reason = sandbox_support()
    assert abi is not None, f"the CI kernel must support Landlock: {reason}"
    return abi


def snapshot(root: Path) -> dict[str, tuple[str, int, int, bytes | str | None]]:
    """Every entry below ``root`` (itself included): kind, mode, mtime and content or target."""
    out: dict[str, tuple[str, int, int, bytes | str | None]] = {}
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        for name in [".", *dirnames, *filenames]:
            path = Path(dirpath) / name if name != "." else Path(dirpath)
            st = path.lstat()
            if path.is_symlink():
                out[str(path)] = ("link", st.st_mode, st.st_mtime_ns, os.readlink(path))
            elif path.is_dir():
                out[str(path)] = ("dir", st.st_mode, st.st_mtime_ns, None)
            else:
                out[str(path)] = ("file", st.st_mode, st.st_mtime_ns, path.read_bytes())
    return out


def processes_with(marker: str) -> list[int]:
    """Live processes whose environment contains ``marker`` (e.g. their scratch directory)."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            environ = Path(f"/proc/{pid}/environ").read_bytes()
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        if marker.encode() in environ and "State:\tZ" not in status:
            found.append(int(pid))
    return found


async def survivors(marker: str) -> list[int]:
    """The processes with ``marker`` still alive once killed ones had time to finish dying
    (SIGKILL is delivered at once; exiting takes a moment): an empty list means none is left."""
    for _ in range(500):
        found = processes_with(marker)
        if not found:
            return []
        await asyncio.sleep(0.01)
    return processes_with(marker)
