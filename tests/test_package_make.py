"""`make` never silently reuses a venv that cannot work, and says what it does (scripts/venv-python.sh)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "venv-python.sh"


def fake_python(path: Path, version: str) -> Path:
    """An executable that answers like a Python of ``version`` to the script's two questions."""
    major, minor = version.split(".")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\nexec {sys.executable} -c \"import sys; sys.version_info = ({major}, {minor}, 0); "
                    "exec(sys.argv[1])\" \"$2\"\n")
    path.chmod(0o755)
    return path


def run(python: str | Path, venv: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", str(SCRIPT), str(python), str(venv)], capture_output=True, text=True, timeout=600)


def test_a_venv_of_an_old_python_is_recreated_and_said_so(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    fake_python(venv / "bin" / "python", "3.9")
    (venv / "marker").write_text("old")
    done = run(sys.executable, venv)
    assert done.returncode == 0, done.stderr
    assert "was built with Python 3.9; planmode needs >= 3.11: recreating it with" in done.stdout
    assert not (venv / "marker").exists()
    version = subprocess.run([venv / "bin" / "python", "-c", "import sys; print(sys.version_info[:2] >= (3, 11))"],
                             capture_output=True, text=True, check=True).stdout
    assert version.strip() == "True"
    again = run(sys.executable, venv)  # a good venv is reused, silently
    assert again.returncode == 0 and again.stdout == ""


def test_a_broken_venv_is_recreated(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").symlink_to(tmp_path / "gone")
    done = run(sys.executable, venv)
    assert done.returncode == 0
    assert "a Python that no longer runs" in done.stdout and (venv / "bin" / "python").exists()


def test_a_too_old_python_is_refused_with_the_fix(tmp_path: Path) -> None:
    old = fake_python(tmp_path / "py39" / "python3.9", "3.9")
    done = run(old, tmp_path / "venv")
    assert done.returncode == 1
    assert "is Python 3.9, planmode needs >= 3.11 (run: make PYTHON=python3.12 ...)" in done.stderr
    assert not (tmp_path / "venv").exists()
    missing = run("python3.99", tmp_path / "venv")
    assert missing.returncode == 1 and "python3.99 not found" in missing.stderr


def test_the_first_build_is_announced() -> None:
    plan = subprocess.run(["make", "-n", "venv", "VENV=/nonexistent-venv"], cwd=ROOT, capture_output=True, text=True)
    assert "first build of planmode's Rust core" in plan.stdout and "installing planmode into" in plan.stdout
