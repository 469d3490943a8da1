"""examples/two_node_approval.py runs end to end (it starts and stops its own redis-server and two nodes)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "two_node_approval.py"


def test_two_node_example_runs() -> None:
    result = subprocess.run([sys.executable, str(EXAMPLE)], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    out = result.stdout
    assert "node A killed (SIGKILL)" in out
    assert "node B: same revision 1, same sha256; plan restored into" in out and "(restored=True)" in out
    assert "node B: phase building; last audit entry: decision by admin:example-operator" in out
    assert "todo [in_progress] Build the approved plan" in out
