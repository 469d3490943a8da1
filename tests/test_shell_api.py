"""The Python surface of the shell classifier: ShellVerdict's value semantics and bad input."""

from __future__ import annotations

import copy
import pickle
from concurrent.futures import ThreadPoolExecutor

import pytest
from hypothesis import given, settings, strategies as st

import planmode
from planmode import ShellVerdict, classify_shell
from planmode.exceptions import InvalidInputError


def test_exported_from_the_package() -> None:
    assert planmode.classify_shell is planmode._core.classify_shell
    assert planmode.ShellVerdict is planmode._core.ShellVerdict
    assert {"classify_shell", "ShellVerdict"} <= set(planmode.__all__)


def test_verdict_names_the_offending_part() -> None:
    verdict = classify_shell("cat notes.txt > out.txt")
    assert verdict.read_only is False
    assert verdict.reason == "redirection `> out.txt` writes a file"
    assert verdict.offending == "> out.txt"
    verdict = classify_shell("ls | tee log.txt")
    assert verdict.reason == "`tee` writes files"
    assert verdict.offending == "tee"


def test_read_only_verdict_lists_the_programs() -> None:
    verdict = classify_shell("git status && git diff | head -n 5")
    assert verdict == ShellVerdict(True, "read-only: git, head")
    assert verdict.offending is None


def test_value_semantics_repr_and_pickle() -> None:
    verdict = classify_shell("sort -o 'it''s' in.txt")
    assert verdict == classify_shell("sort -o 'it''s' in.txt")
    assert hash(verdict) == hash(classify_shell("sort -o 'it''s' in.txt"))
    assert verdict != classify_shell("ls")
    assert pickle.loads(pickle.dumps(verdict)) == verdict
    assert copy.deepcopy(verdict) == verdict
    assert eval(repr(verdict), {"ShellVerdict": ShellVerdict}) == verdict  # noqa: S307
    assert repr(ShellVerdict(True, "read-only: ls")) == "ShellVerdict(read_only=True, reason='read-only: ls', offending=None)"
    with pytest.raises(AttributeError):
        verdict.read_only = True  # type: ignore[misc]


@pytest.mark.parametrize("bad", [b"ls", None, 42, ["ls"]])
def test_non_string_input_is_a_clear_error(bad: object) -> None:
    with pytest.raises(InvalidInputError, match=f"command must be a str, not {type(bad).__name__}"):
        classify_shell(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("command", "fragment"),
    [
        ("ls \ud800", "not valid Unicode"),
        ("ls\x00 -la", "NUL"),
        ("x" * (1 << 20), "too long"),
        ("(" * 5000 + "ls" + ")" * 5000, "too deeply nested"),
        ("ls 'open", "cannot parse"),
    ],
)
def test_hostile_input_gets_a_clean_refusal(command: str, fragment: str) -> None:
    verdict = classify_shell(command)
    assert verdict.read_only is False
    assert fragment in verdict.reason


@settings(max_examples=500, deadline=None)
@given(st.text())
def test_any_text_gets_a_deterministic_verdict(command: str) -> None:
    verdict = classify_shell(command)
    assert verdict == classify_shell(command)
    assert verdict.reason


@settings(max_examples=300, deadline=None)
@given(st.booleans(), st.text(), st.none() | st.text())
def test_repr_evaluates_back_for_any_text(read_only: bool, reason: str, offending: str | None) -> None:
    verdict = ShellVerdict(read_only, reason, offending)
    assert eval(repr(verdict), {"ShellVerdict": ShellVerdict}) == verdict  # noqa: S307
    assert pickle.loads(pickle.dumps(verdict)) == verdict


def test_concurrent_calls_agree() -> None:
    commands = ["ls -la", "sort -o x y", "git log | head", "cat <<EOF\n$(id)\nEOF\n", "sed -n '1,5p' f"] * 200
    expected = [classify_shell(c) for c in commands]
    with ThreadPoolExecutor(max_workers=8) as pool:
        assert list(pool.map(classify_shell, commands)) == expected


def test_dialect_chooses_the_shell_and_is_checked() -> None:
    assert not classify_shell("echo $'x'").read_only
    assert not classify_shell("echo $'x'", dialect="sh").read_only
    assert classify_shell("echo $'x'", dialect="bash") == ShellVerdict(True, "read-only: echo")
    with pytest.raises(InvalidInputError, match="dialect must be 'sh' or 'bash', not \"zsh\""):
        classify_shell("ls", dialect="zsh")
    with pytest.raises(TypeError):
        classify_shell("ls", "bash")  # type: ignore[misc]


def test_the_gate_classifies_long_lines_off_the_event_loop() -> None:
    import asyncio

    from agentscope.tool import Bash

    from planmode.agentscope._plan._shell import _OFF_LOOP_BYTES, shell_is_read_only

    long_read = "echo " + "a " * _OFF_LOOP_BYTES
    long_write = long_read + "; touch x"

    async def gate_and_agentscope() -> tuple[bool, bool, bool]:
        return (
            await shell_is_read_only(Bash(), {"command": long_read}),
            await Bash().check_read_only({"command": long_read}),
            await shell_is_read_only(Bash(), {"command": long_write}),
        )

    read, agentscope_read, write = asyncio.run(gate_and_agentscope())
    assert classify_shell(long_read).read_only
    assert read is agentscope_read
    assert write is False
