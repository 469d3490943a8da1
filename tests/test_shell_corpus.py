"""Every line of tests/data/shell_corpus.tsv gets its expected verdict through the Python API
(the Rust test tests/shell_corpus.rs asserts the same file)."""

from __future__ import annotations

import pytest
from _shell_corpus import load_corpus

from planmode import ShellVerdict, classify_shell

ROWS = load_corpus()


def test_corpus_is_large_and_balanced() -> None:
    assert len(ROWS) >= 150
    assert sum(r.read_only for r in ROWS) >= 50
    assert sum(not r.read_only for r in ROWS) >= 100


@pytest.mark.parametrize(("command", "read_only", "reason", "note"), ROWS, ids=[repr(r.command)[:60] for r in ROWS])
def test_corpus_verdict(command: str, read_only: bool, reason: str, note: str) -> None:
    verdict = classify_shell(command)
    assert isinstance(verdict, ShellVerdict)
    assert verdict.read_only is read_only, (command, note, verdict)
    assert reason in verdict.reason, (command, verdict)
    if read_only:
        assert verdict.offending is None
        assert verdict.reason.startswith("read-only: ")
