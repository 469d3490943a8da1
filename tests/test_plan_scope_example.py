"""examples/plan_scope_agent.py runs offline: in-scope write, one asked-for out-of-scope step, drift, report."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "plan_scope_agent.py"


def test_scope_example(tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, str(EXAMPLE), "--workspace", str(tmp_path)], capture_output=True,
                         text=True, timeout=120, check=True).stdout
    assert "wrote notes/usage.md inside the scope: True" in out
    assert 'asked: write_file {"path": "CHANGELOG.md"' in out
    assert ('drift: write_file: path "CHANGELOG.md" is outside the approved scope; the human is asked '
            '(step s2 in progress)') in out
    assert "wrote CHANGELOG.md once allowed: True" in out
    assert "drift events              total=1" in out
    assert (tmp_path / "CHANGELOG.md").read_text() == "- documented the parser\n"
