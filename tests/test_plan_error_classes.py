"""The plan and permission bindings raise the planmode.exceptions classes (one mapping, in
src/py/errors.rs) with texts that say what was wrong; nothing changes on a refusal."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from planmode._core import PlanBook, PlanWorkspace, RuleCache, check_actor, plan_relpath
from planmode.exceptions import (
    InvalidInputError,
    PathEscapeError,
    PlanStateError,
    StateLoadError,
    UnknownModeError,
)


def planning() -> PlanBook:
    book = PlanBook()
    book.enter()
    return book


@pytest.mark.parametrize(
    ("call", "cls", "text"),
    [
        (lambda: PlanBook(max_plan_bytes=0), InvalidInputError, "must be at least 1"),
        (lambda: PlanBook(object()), StateLoadError, "plan-mode state"),
        (lambda: PlanBook().write("# Plan\n\n1. x\n"), PlanStateError, ""),
        (lambda: planning().write(5), InvalidInputError, "plan content must be a str, got int"),
        (lambda: planning().write("\ud800"), InvalidInputError, "lone surrogates"),
        (lambda: planning().record_mode_change("user", "default", "nope"), UnknownModeError, "nope"),
        (lambda: planning().decide("maybe"), InvalidInputError, "maybe"),
        (lambda: plan_relpath("../out"), PathEscapeError, ""),
        (lambda: check_actor(""), InvalidInputError, ""),
        (lambda: RuleCache(()), InvalidInputError, "PermissionMode members"),
    ],
)
def test_each_refusal_has_its_class(call: Callable[[], object], cls: type[Exception], text: str) -> None:
    with pytest.raises(cls) as info:
        call()
    assert text in str(info.value)


def test_a_refused_call_changes_nothing() -> None:
    book = planning()
    book.write("# Plan\n\n1. one\n")
    before = book.to_state()
    for bad in (lambda: book.write(5), lambda: book.decide("approve", grants=5), lambda: book.set_todos(7)):
        with pytest.raises(InvalidInputError):
            bad()
        assert book.to_state() == before


def test_workspace_errors_are_the_builtin_os_classes(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="does not exist"):
        PlanWorkspace(tmp_path / "missing")
    (tmp_path / "f").write_text("x")
    with pytest.raises(NotADirectoryError, match="is not a directory"):
        PlanWorkspace(tmp_path / "f")
    with pytest.raises(PathEscapeError):
        PlanWorkspace(tmp_path).path("../x")
