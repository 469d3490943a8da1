"""One PlanBook / PlanReport shared by many threads: callers take turns, never a borrow error,
never a torn state; a same-thread re-entry gets PlanModeError."""

from __future__ import annotations

import copy
import gc
import json
import pickle
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from _threads_support import in_threads

from planmode._core import PlanBook, PlanReport, PlanWorkspace
from planmode.exceptions import PlanModeError, PlanStateError

PLAN_PATH = ".planmode/PLAN.md"

@pytest.fixture(autouse=True)
def fast_switching() -> Iterator[None]:
    """Switch threads as often as possible so calls overlap."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(old)


def planning_book(tmp_path: Path) -> tuple[PlanBook, PlanWorkspace]:
    ws = PlanWorkspace(tmp_path)
    book = PlanBook(max_revision_records=100_000, max_audit_entries=100_000)
    book.bind("key", PLAN_PATH, str(tmp_path))
    book.enter()
    return book, ws


def assert_whole(state: dict[str, object]) -> None:
    """A snapshot loads back and its revisions are numbered 1..n without gaps."""
    again = PlanBook(state, max_revision_records=100_000, max_audit_entries=100_000)
    numbers = [r["number"] for r in again.revisions]
    assert numbers == list(range(1, len(numbers) + 1))
    assert again.revision == (numbers[-1] if numbers else None)


def test_concurrent_writes_and_reads_of_one_book(tmp_path: Path) -> None:
    book, ws = planning_book(tmp_path)
    writers, per_writer = 4, 150
    written: list[int] = []
    snapshots: list[dict[str, object]] = []
    done = threading.Event()

    def writer(w: int) -> Callable[[], None]:
        def job() -> None:
            for i in range(per_writer):
                out = book.write(f"# Plan\n\n1. writer {w} step {i}\n")
                assert not out["unchanged"]
                written.append(out["revision"])
                if i % 10 == 0:
                    book.set_todos([{"content": f"todo {w}-{i}", "status": "in_progress"}])

        return job

    def file_user() -> None:
        # The file calls release the GIL while they read/write the disk.
        while not done.is_set():
            book.restore_file(ws, audit=False)
            book.inspect_file(ws)
            book.human_edit(ws)

    def reader() -> None:
        while not done.is_set():
            snapshots.append(book.to_state())
            pickle.loads(pickle.dumps(book))
            copy.deepcopy(book)
            book.copy()
            assert repr(book).startswith('PlanBook(phase="planning"')
            _ = book.revisions
            book.steps()

    def writers_then_stop() -> None:
        try:
            assert not in_threads([writer(w) for w in range(writers)])
        finally:
            done.set()

    errors = in_threads([writers_then_stop, file_user, file_user, reader, reader])
    assert not errors, errors[:3]
    total = writers * per_writer
    # Every write got its own revision number, and the book holds exactly those.
    assert sorted(written) == list(range(1, total + 1))
    assert book.revision == total
    assert [r["number"] for r in book.revisions] == list(range(1, total + 1))
    assert snapshots
    for state in snapshots[:: max(1, len(snapshots) // 50)] + [book.to_state()]:
        assert_whole(state)


def test_concurrent_decisions_apply_once(tmp_path: Path) -> None:
    """Many threads answer one parked approval: exactly one decide wins, the rest get the
    documented PlanStateError, never a borrow error."""
    book, _ = planning_book(tmp_path)
    book.write("# Plan\n\n1. one step\n")
    book.request_exit("reply", "call")
    outcomes: list[str] = []
    refusals: list[BaseException] = []

    def answer() -> None:
        try:
            outcomes.append(book.decide("approve")["decision"])
        except PlanStateError as e:
            refusals.append(e)

    assert not in_threads([answer for _ in range(12)])
    assert outcomes == ["approve"] and len(refusals) == 11
    assert book.phase == "building" and book.approved_revision == 1


def test_report_shared_between_threads_counts_every_run(tmp_path: Path) -> None:
    book = PlanBook()
    book.enter()
    book.write("# Plan\n\n1. step\n")
    doc = json.dumps({"middle_context": {"planmode": book.to_state()}}).encode()
    files = []
    for i in range(20):
        path = tmp_path / f"run{i}.json"
        path.write_bytes(doc)
        files.append(path)
    report = PlanReport()
    results: list[dict[str, object]] = []

    def adder() -> None:
        for i in range(25):
            report.add(f"one{i}", doc)
            report.add_many([(f"many{i}", doc), (f"many{i}b", doc)])
        report.add_files(files)

    def reader() -> None:
        for _ in range(50):
            results.append(report.result())

    assert not in_threads([adder, adder, adder, reader, reader])
    final = report.result()
    expected = PlanReport()
    for _ in range(3):
        for i in range(25):
            expected.add(f"one{i}", doc)
            expected.add_many([(f"many{i}", doc), (f"many{i}b", doc)])
        expected.add_files(files)
    assert final == expected.result()
    assert results


def test_reentry_from_the_same_thread_is_a_planmode_error() -> None:
    """A gc callback fired while the book builds its dicts calls back into the book: it gets
    PlanModeError (no deadlock, no borrow error) and the outer calls still succeed."""
    book = PlanBook()
    book.enter()
    for i in range(30):
        book.write(f"# Plan\n\n1. step {i}\n")
    seen: list[BaseException] = []

    def callback(phase: str, info: dict[str, int]) -> None:
        try:
            _ = book.phase
        except BaseException as e:  # noqa: BLE001 - asserted below
            seen.append(e)

    old = gc.get_threshold()
    gc.callbacks.append(callback)
    gc.set_threshold(1)
    try:
        for _ in range(20):
            state = book.to_state()
            assert len(book.revisions) == 30 and book.audit
    finally:
        gc.set_threshold(*old)
        gc.callbacks.remove(callback)
    assert seen, "no collection ran inside a PlanBook call"
    assert all(isinstance(e, PlanModeError) for e in seen), seen[:3]
    assert "called again from inside one of its own calls" in str(seen[0])
    assert_whole(state)
    assert book.phase == "planning"
