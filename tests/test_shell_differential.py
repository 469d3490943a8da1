"""Differential test of the classifier against the real shells.

Whenever ``classify_shell`` calls a command line read-only, running it with ``/bin/sh`` (what
AgentScope's Bash tool uses) and with ``bash`` in a directory holding one file must leave that
file and the directory unchanged and must not run the marker program (which is off the
allow-list). The lines are built from a vocabulary of
fragments — quotes, escapes, heredocs, redirections, separators, writers — that only ever name
files inside that directory.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from planmode import classify_shell

SHELLS = ["/bin/sh", "bash"]
# Prints PWNED, which appears nowhere in its own source text.
MARKER = "/usr/bin/printf 'P%sD\\n' WNE"
# The one file in the directory: it must survive unchanged (in-place edits and deletions target it).
KEEP = "keep.txt"
FRAGMENTS = [
    "ls", "cat", "echo", "echo a", KEEP, "sed -i s/a/b/", "find . -delete", "sort -o", "sort", "sort -o f1",
    "-o", "f2", "tee f3", "sed -n p", "sed -i s/a/b/ f4",
    "sed 's/a/b/w f5'", "find . -delete", "dd of=f6", "printf x", "grep a", "wc -l", " ", " ", " ", ">f7", ">> f8",
    "2>f9", "&>f10", ">|f11", "<>f12", ">/dev/null", "2>&1", ">&2", "|", ";", "&&", "||", "&", "\n", "\n", "(", ")",
    "{ ", "; }", "'", "\"", "\\", "\\\n", "#", "<<EOF\n", "<<'EOF'\n", "<<-EOF\n", "EOF\n", "\tEOF\n", "EOF", "$(",
    "`", "$x", "x=1", "f{1,2}", "*", "$'\\x3e'", "$[1>f13]", "\r", MARKER,
]


def _run(shell: str, command: str, cwd: Path) -> str:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(cwd), "LC_ALL": "C"}
    try:
        done = subprocess.run(
            [shell, "-c", command], cwd=cwd, env=env, stdin=subprocess.DEVNULL, capture_output=True, timeout=5
        )
    except subprocess.TimeoutExpired as timeout:
        return (timeout.stdout or b"").decode(errors="replace")
    return (done.stdout + done.stderr).decode(errors="replace")


def _assert_harmless(command: str, tmp_path: Path) -> None:
    verdict = classify_shell(command)
    if not verdict.read_only:
        return
    for shell in SHELLS:
        workdir = tmp_path / shell.replace("/", "_")
        workdir.mkdir(exist_ok=True)
        (workdir / KEEP).write_text("a\n")
        output = _run(shell, command, workdir)
        files = sorted(p.name for p in workdir.iterdir())
        assert files == [KEEP], f"{shell} changed the directory to {files} running {command!r} ({verdict})"
        assert (workdir / KEEP).read_text() == "a\n", f"{shell} changed {KEEP} running {command!r} ({verdict})"
        assert "PWNED" not in output, f"{shell} ran the marker in {command!r} ({verdict})"


@pytest.mark.parametrize(
    "command",
    [
        f"cat <<-EOF\nx\n\tEOF\n{MARKER}\n",
        f"cat <<'EOF'\nfoo\\\nEOF\n{MARKER}\nEOF\n",
        f"cat <<A <<B\na\nA\nb\nB\n{MARKER}\n",
        f"echo x#; {MARKER}",
        f"cat <<EOF\nhi\nEOF\r\n{MARKER}\nEOF\n",
        f"echo a \\\n{MARKER}",
        "echo x#>f1",
        "ls &>/dev/null",
        "ls &>f1",
        "echo $[1>f1]",
        "cat <<EOF\n$(echo x>f1)\nEOF\n",
        "echo {a,b}>/dev/null",
    ],
)
def test_known_tricky_lines(command: str, tmp_path: Path) -> None:
    _assert_harmless(command, tmp_path)


@settings(max_examples=300, deadline=None)
@given(command=st.lists(st.sampled_from(FRAGMENTS), max_size=12).map("".join))
def test_read_only_lines_never_write_or_run_the_marker(command: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        _assert_harmless(command, Path(tmp))
