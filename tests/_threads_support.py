"""Running test jobs in threads released at once (shared by the thread-safety tests)."""

from __future__ import annotations

import threading
from collections.abc import Callable


def in_threads(jobs: list[Callable[[], None]]) -> list[BaseException]:
    """Runs every job in its own thread, all released at once; returns what they raised."""
    errors: list[BaseException] = []
    start = threading.Barrier(len(jobs))

    def wrap(job: Callable[[], None]) -> None:
        start.wait()
        try:
            job()
        except BaseException as e:  # noqa: BLE001 - collected and asserted below
            errors.append(e)

    threads = [threading.Thread(target=wrap, args=(job,)) for job in jobs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return errors
