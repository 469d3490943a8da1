"""`make wheel` and `make wheel-check`, as CI runs them: the sdist builds, the wheel built from it is a
manylinux abi3 wheel (checked by auditwheel), and fresh venvs of Python 3.12 and 3.13 install it and run
both examples. The build is a release build without LTO (same artifact, a few minutes less)."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


# Two release builds from scratch (sdist, then the zig-linked wheel) and two fresh venvs installing it:
# minutes on 2 shared cores, each step bounded by its own 1800 s subprocess timeout.
@pytest.mark.timeout(3600)
def test_the_wheel_and_sdist_build_install_and_run_on_other_pythons(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    env = {**os.environ, "CARGO_PROFILE_RELEASE_LTO": "off", "CARGO_PROFILE_RELEASE_CODEGEN_UNITS": "16"}
    python = os.path.relpath(sys.executable, ROOT)  # relative, as `make wheel` passes it
    build = subprocess.run(["bash", "scripts/build-wheel.sh", python, str(dist)], cwd=ROOT,
                           env=env, capture_output=True, text=True, timeout=1800)
    assert build.returncode == 0, f"{build.stdout[-3000:]}\n{build.stderr[-3000:]}"

    wheels = list(dist.glob("*.whl"))
    assert [w.name for w in wheels] == ["planmode-0.1.0-cp311-abi3-manylinux2014_x86_64.manylinux_2_17_x86_64.whl"]
    assert (dist / "planmode-0.1.0.tar.gz").is_file()
    assert '"manylinux_2_17_x86_64"' in (dist / "auditwheel.txt").read_text()
    names = set(zipfile.ZipFile(wheels[0]).namelist())
    assert {"planmode/_core.abi3.so", "planmode/py.typed", "planmode/_core.pyi",
            "planmode-0.1.0.dist-info/licenses/LICENSE",
            "planmode/agentscope/_admin/static/review.js"} <= names
    # only the package and its metadata: the checkout's devtools (process launcher, scripted app) stay out
    assert all(n.startswith(("planmode/", "planmode-0.1.0.dist-info/")) for n in names), sorted(names)
    assert not [n for n in names if "scripted_app" in n or "_nodes" in n or "devtools" in n]
    metadata = zipfile.ZipFile(wheels[0]).read("planmode-0.1.0.dist-info/METADATA").decode()
    assert "Requires-Dist: agentscope>=2.0.11,<3 ; extra == 'agentscope'" in metadata
    assert "License: Apache-2.0" in metadata or "License-Expression: Apache-2.0" in metadata

    check = subprocess.run(["bash", str(ROOT / "scripts" / "check-wheel.sh"), str(dist)],
                           capture_output=True, text=True, timeout=1800)
    assert check.returncode == 0, f"{check.stdout[-4000:]}\n{check.stderr[-2000:]}"
    for version in ("3.12", "3.13"):
        assert f"[{version}] check-wheel: Python {version}: examples/plan_mode_agent.py --yes" in check.stdout
        assert f"[{version}] planmode 0.1.0 (works with AgentScope >=2.0.11,<3; installed: 2.0.11)" in check.stdout
    assert "the wheel installs and runs both examples on Python 3.12 3.13" in check.stdout
