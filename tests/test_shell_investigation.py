"""Realistic read-only investigation commands (tests/data/shell_investigation.txt): the
classifier must allow at least 90% of them under the dialect AgentScope's Bash tool runs
(some POSIX ``/bin/sh``). Every line there really is read-only; the ones refused are listed by
``benchmarks/bench_shell.py`` with their reasons."""

from __future__ import annotations

from _shell_corpus import load_investigation

from planmode import classify_shell

COMMANDS = load_investigation()


def test_the_investigation_corpus_is_realistic_in_size() -> None:
    assert len(COMMANDS) >= 260
    assert len(set(COMMANDS)) == len(COMMANDS), "no duplicate lines"


def test_at_least_ninety_percent_are_allowed() -> None:
    refused = {c: classify_shell(c).reason for c in COMMANDS if not classify_shell(c).read_only}
    share = 1 - len(refused) / len(COMMANDS)
    listing = "\n".join(f"  {c!r}: {why}" for c, why in refused.items())
    assert share >= 0.90, f"only {share:.1%} allowed; refused:\n{listing}"
