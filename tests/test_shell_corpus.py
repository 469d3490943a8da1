"""Every line of tests/data/shell_corpus.tsv gets its expected verdict through the Python API
(the Rust test tests/shell_corpus.rs asserts the same file)."""

from __future__ import annotations

from pathlib import Path

import pytest

from planmode import ShellVerdict, classify_shell

CORPUS = Path(__file__).parent / "data" / "shell_corpus.tsv"
_ESCAPES = {"n": "\n", "t": "\t", "\\": "\\"}


def _unescape(field: str) -> str:
    """Undo the corpus escapes: ``\\\\`` a backslash, ``\\n`` a newline, ``\\t`` a tab."""
    out: list[str] = []
    chars = iter(field)
    for c in chars:
        out.append(_ESCAPES[next(chars)] if c == "\\" else c)
    return "".join(out)


def _rows() -> list[tuple[str, bool, str, str]]:
    rows = []
    for line in CORPUS.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            continue
        command, read_only, reason, note = line.split("\t")
        assert read_only in ("true", "false"), line
        rows.append((_unescape(command), read_only == "true", _unescape(reason), note))
    return rows


ROWS = _rows()


def test_corpus_is_large_and_balanced() -> None:
    assert len(ROWS) >= 150
    assert sum(r[1] for r in ROWS) >= 50
    assert sum(not r[1] for r in ROWS) >= 100


@pytest.mark.parametrize(("command", "read_only", "reason", "note"), ROWS, ids=[repr(r[0])[:60] for r in ROWS])
def test_corpus_verdict(command: str, read_only: bool, reason: str, note: str) -> None:
    verdict = classify_shell(command)
    assert isinstance(verdict, ShellVerdict)
    assert verdict.read_only is read_only, (command, note, verdict)
    assert reason in verdict.reason, (command, verdict)
    if read_only:
        assert verdict.offending is None
        assert verdict.reason.startswith("read-only: ")
