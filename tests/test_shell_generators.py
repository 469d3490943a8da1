"""Property-style generators for the classes of commands the classifier used to misjudge
(issue 15): writing commands wrapped in every wrapper with random options, embedded in
here-documents with every delimiter form, and split with line continuations; and for the newly
allowed forms: awk programs built from print, redirection, pipe, getline and system fragments,
and `find -exec` with random inner commands. Every line the
classifier calls read-only is EXECUTED under bash and dash in a throwaway directory, with HOME
and TMPDIR pointing at two more throwaway directories: all three trees must be unchanged and
the marker program (off the allow-list) must not have run.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from planmode import classify_shell

SHELLS = [s for s in ("bash", "dash") if shutil.which(s)]
# Prints PWNED, which appears nowhere in its own source text.
MARKER = "/usr/bin/printf 'P%sD\\n' WNE"
KEEP = "keep.txt"
# Commands that write in the working directory, HOME or TMPDIR, or run the marker.
WRITERS = [
    "touch pwned",
    "mkdir pwned",
    "sort -o pwned keep.txt",
    "sort -T . keep.txt",
    "tee pwned < keep.txt",
    "sed -n 'w pwned' keep.txt",
    "cp keep.txt pwned",
    "printf x > pwned",
    "sh -c 'touch pwned'",
    'touch "$HOME/pwned"',
    'touch "$TMPDIR/pwned"',
    "ls > pwned",
    "find . -name keep.txt -fprint pwned",
    "awk 'BEGIN { print 1 > \"pwned\" }'",
    "dd if=keep.txt of=pwned status=none",
    "uniq keep.txt pwned",
    MARKER,
]
READERS = ["ls", "cat keep.txt", "echo hi", "grep a keep.txt", "wc -l keep.txt", "true"]
# Every wrapper the classifier looks through (and some it must not), with option words that
# take values, cluster, abbreviate, or are unknown.
WRAPPERS = {
    "time": ["-p", "-f", "%e", "-o", "out", "-v", "-a", "-q", "--", "--format=%e", "--output=x", "-po", "x"],
    "\\time": ["-p", "-f", "%e", "-o", "out", "--", "-v"],
    '"time"': ["-p", "-f", "echo", "--"],
    "env": ["-i", "-0", "-u", "HOME", "-C", ".", "-S", "touch x", "LC_ALL=C", "PATH=.", "--", "-v", "--chdir=."],
    "timeout": ["-s", "KILL", "-k", "1", "-v", "--signal=TERM", "--foreground", "5", "1s", "--", "-sKILL", "-x"],
    "nice": ["-n", "5", "-5", "--adjustment=3", "-n5", "--", "-x"],
    "command": ["-p", "-v", "-V", "--"],
    "stdbuf": ["-o0", "-i", "L"],
    "nohup": [],
    "xargs": ["-0", "-n", "1"],
}
DELIMITERS = [
    "EOF", "'EOF'", '"EOF"', "\\EOF", "$'EOF'", '$"EOF"', 'E"OF"', "E\\OF", "E\\\nOF", "'E'OF", '""', "''",
    "-EOF", "-'EOF'", '- "EOF"', "EOF ", "E$x",
]
BODY_LINES = [
    "text", "EOF", "\tEOF", "EOF\r", "EOF ", " EOF", "EO\\\nF", "x\\", "$(touch pwned)", "`touch pwned`",
    "$\\\n(touch pwned)", "${x:=1}$(touch pwned)", "$((1))", "$HOME", "${HOME}", "'", '"', *WRITERS,
]
# 300 examples per generator in CI (fixed seed); SHELL_GENERATOR_EXAMPLES=2500 for a longer hunt.
RUNS = settings(
    max_examples=int(os.environ.get("SHELL_GENERATOR_EXAMPLES", "300")),
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): (p.read_bytes() if p.is_file() else b"<dir>") for p in root.rglob("*")}


def assert_harmless(command: str) -> None:
    """If the classifier calls `command` read-only, running it must write nothing anywhere."""
    verdict = classify_shell(command)
    if not verdict.read_only:
        return
    for shell in SHELLS:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            work, home, temp = root / "work", root / "home", root / "tmp"
            for d in (work, home, temp):
                d.mkdir()
            (work / KEEP).write_text("a\nb\n")
            before = _tree(root)
            env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "TMPDIR": str(temp), "LC_ALL": "C"}
            try:
                done = subprocess.run(
                    [shell, "-c", command], cwd=work, env=env, stdin=subprocess.DEVNULL, capture_output=True, timeout=10
                )
                output = (done.stdout + done.stderr).decode(errors="replace")
            except subprocess.TimeoutExpired as timeout:
                output = (timeout.stdout or b"").decode(errors="replace")
            after = _tree(root)
            assert after == before, f"{shell} changed {set(after) ^ set(before) or 'a file'} running {command!r} ({verdict})"
            assert "PWNED" not in output, f"{shell} ran the marker in {command!r} ({verdict})"


@pytest.mark.skipif(len(SHELLS) < 2, reason="needs bash and dash (scripts/system-deps.sh installs dash)")
def test_both_shells_are_here() -> None:
    assert SHELLS == ["bash", "dash"]


@RUNS
@given(
    wrappers=st.lists(
        st.sampled_from(sorted(WRAPPERS)).flatmap(
            lambda w: st.lists(st.sampled_from(WRAPPERS[w] or ["--"]), max_size=4).map(lambda o: " ".join([w, *o]))
        ),
        min_size=1,
        max_size=3,
    ),
    inner=st.sampled_from(WRITERS + READERS),
)
def test_wrapped_writers_never_pass(wrappers: list[str], inner: str) -> None:
    assert_harmless(" ".join([*wrappers, inner]))


@RUNS
@given(
    command=st.sampled_from(["cat", "grep a", "wc -l", "cat -"]),
    delimiter=st.sampled_from(DELIMITERS),
    body=st.lists(st.sampled_from(BODY_LINES), max_size=4),
    closing=st.sampled_from(["EOF", "\tEOF", "EOF\r", ""]),
    after=st.lists(st.sampled_from(WRITERS + READERS + BODY_LINES), max_size=3),
)
def test_here_documents_never_hide_writers(
    command: str, delimiter: str, body: list[str], closing: str, after: list[str]
) -> None:
    assert_harmless("\n".join([f"{command} <<{delimiter}", *body, closing, *after]) + "\n")


@RUNS
@given(
    prefix=st.sampled_from(READERS + ["echo a;", "ls &&", "true ||", "echo $", "cat <<EOF\n"]),
    writer=st.sampled_from(WRITERS),
    cuts=st.lists(st.integers(min_value=0, max_value=60), max_size=3),
)
def test_line_continuations_never_hide_writers(prefix: str, writer: str, cuts: list[int]) -> None:
    text = f"{prefix} {writer}"
    for cut in sorted({c % (len(text) + 1) for c in cuts}, reverse=True):
        text = text[:cut] + "\\\n" + text[cut:]
    assert_harmless(text)
    assert_harmless(text + "\nEOF\n")


AWK_PARTS = [
    "print", "printf", " $1", " $0", ",", " >", " >>", " |", " \"pwned\"", " \"a > b\"", " \"/\"", "/a|b/", "/\"/",
    " system(\"touch pwned\")", " getline", " < \"keep.txt\"", " \"touch pwned\"", "; ", "}", " {", "\n",
    " \\\n", " NR > 1", " x = 1", " ARGV[1] = \"pwned\"", " close(\"pwned\")", " @load \"x\"", " length($0)",
]


@RUNS
@given(
    program=st.lists(st.sampled_from(AWK_PARTS), min_size=1, max_size=8).map("".join),
    block=st.booleans(),
    name=st.sampled_from(["awk", "mawk", "gawk"]),
)
def test_awk_programs_that_pass_only_print(program: str, block: bool, name: str) -> None:
    if not shutil.which(name):
        return
    body = f"{{{program}}}" if block else program
    quoted = "'" + body.replace("'", "") + "'"
    assert_harmless(f"{name} {quoted} keep.txt")
    assert_harmless(f"{name} 'BEGIN {{{program.replace(chr(39), '')}}}'")


FIND_INNER = [*READERS, *WRITERS, "grep -l a {}", "cat {}", "sed -n 1p {}", "sed {}", "env {}", "sh -c {}", "{}"]


@RUNS
@given(
    action=st.sampled_from(["-exec", "-execdir", "-ok"]),
    inner=st.sampled_from(FIND_INNER),
    end=st.sampled_from(["\\;", "';'", "+", "{} +", ""]),
    after=st.sampled_from(["", "-print", "-delete", "-fprint pwned", "-exec touch pwned \\;", "-quit"]),
)
def test_find_exec_runs_only_read_only_commands(action: str, inner: str, end: str, after: str) -> None:
    assert_harmless(f"find . {action} {inner} {end} {after}")


@pytest.mark.parametrize(
    "command",
    [
        "time -f echo touch pwned",
        "\\time -f echo touch pwned",
        "env LANG=C time -f echo touch pwned",
        "timeout -s KILL touch pwned",
        "cat <<$'EOF'\nx\nEOF\ntouch pwned\n$'EOF'\n",
        "cat <<E\\\nOF\nx\nEOF\ntouch pwned\n",
        "cat <<EOF\nEO\\\nF\ntouch pwned\nEOF\n",
        "cat <<EOF\n$\\\n(touch pwned)\nEOF\n",
        "echo $'x\\' ; touch pwned ; echo ' #'",
        "true {PATH}>/dev/null; ls",
        "sort -T . keep.txt",
        "echo ${ touch pwned; }",
        "for h in /dev/tcp/127.0.0.1/9; do cat < $h; done",
        "find . -exec touch pwned \\;",
        "awk 'BEGIN { system(\"touch pwned\") }'",
    ],
)
def test_the_issue_examples(command: str) -> None:
    assert not classify_shell(command).read_only, classify_shell(command)
    assert_harmless(command)
