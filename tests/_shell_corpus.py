"""Loads tests/data/shell_corpus.tsv and tests/data/shell_investigation.txt (used by the corpus
tests and benchmarks/bench_shell.py)."""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

CORPUS = Path(__file__).parent / "data" / "shell_corpus.tsv"
INVESTIGATION = Path(__file__).parent / "data" / "shell_investigation.txt"
_ESCAPES = {"n": "\n", "t": "\t", "\\": "\\"}


class CorpusRow(NamedTuple):
    """One corpus line: a command line, whether it is read-only, a reason fragment, a note."""

    command: str
    read_only: bool
    reason: str
    note: str


def _unescape(field: str) -> str:
    """Undo the corpus escapes: ``\\\\`` a backslash, ``\\n`` a newline, ``\\t`` a tab."""
    out: list[str] = []
    chars = iter(field)
    for c in chars:
        out.append(_ESCAPES[next(chars)] if c == "\\" else c)
    return "".join(out)


def load_corpus() -> list[CorpusRow]:
    """Every non-comment line of the corpus, unescaped."""
    rows = []
    for line in CORPUS.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            continue
        command, read_only, reason, note = line.split("\t")
        if read_only not in ("true", "false"):
            raise ValueError(f"bad read_only field {read_only!r} in corpus line {line!r}")
        rows.append(CorpusRow(_unescape(command), read_only == "true", _unescape(reason), note))
    return rows


def load_investigation() -> list[str]:
    """The realistic read-only investigation commands, one per non-comment line, unescaped."""
    lines = INVESTIGATION.read_text(encoding="utf-8").splitlines()
    return [_unescape(line) for line in lines if line and not line.startswith("#")]
