"""Every snippet in README.md and docs/*.md runs as written (like doctests).

How a fenced block is treated, by its language tag:

* ``python``: the blocks of one file run in order in one namespace (so a later block can use an
  earlier block's ``agent``), in a fresh working directory; top-level ``await`` is allowed; a block
  written as a ``>>>`` session runs as a doctest and its printed results must match. The namespace
  starts with the reader's own objects the docs talk about: ``model`` (an offline
  ``ScriptedChatModel``), ``toolkit`` (an empty ``Toolkit``), ``my_tools`` and ``other_middlewares``
  (both ``[]``).
* ``bash`` / ``sh`` / ``console``: the blocks of one file run in order as one ``bash -euo pipefail``
  script, with the project's virtualenv first on ``PATH`` (as after ``. .venv/bin/activate``).
* ``json``: must parse. ``text``, ``markdown``, ``toml``, ``yaml``, ``diff``, ``mermaid``, ``dot``: data, not run.
* A block that is deliberately not runnable (a fragment, a reference with ``<placeholders>``, a
  command that is this test suite itself) carries the marker ``<!-- snippet: skip REASON -->`` on
  the line before its fence; the reason is required. A block without a language tag, or with a
  language this test does not know, fails: label it, or mark it.
"""

from __future__ import annotations

import ast
import doctest
import json
import os
import re
import socket
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md")])
SKIP = re.compile(r"^<!--\s*snippet:\s*skip\b(?P<reason>.*?)-->\s*$")
FENCE = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,})(?P<info>[^`]*)$")
RUN_PYTHON = {"python", "py", "pycon"}
RUN_SHELL = {"bash", "sh", "shell", "console"}
DATA = {"text", "toml", "yaml", "yml", "diff", "mermaid", "dot", "ini", "csv", "html", "markdown", "md"}


@dataclass(frozen=True)
class Snippet:
    """One fenced block: where it is, its language, its text, and the skip reason if marked."""

    path: Path
    line: int
    language: str
    code: str
    skip: str | None

    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def snippets(path: Path) -> list[Snippet]:
    """The fenced blocks of a Markdown file (``` or ~~~ fences, any length, up to 3 spaces indent)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found: list[Snippet] = []
    i = 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if not opening:
            i += 1
            continue
        fence, indent = opening["fence"], len(opening["indent"])
        language = (opening["info"].strip().split() or [""])[0].lower()
        before = next((lines[j] for j in range(i - 1, -1, -1) if lines[j].strip()), "")
        marker = SKIP.match(before.strip())
        body: list[str] = []
        j = i + 1
        while j < len(lines) and not re.match(rf"^ {{0,3}}{fence[0]}{{{len(fence)},}}\s*$", lines[j]):
            body.append(lines[j][indent:] if lines[j][:indent].strip() == "" else lines[j])
            j += 1
        reason = marker["reason"].strip(" :-—") if marker else None
        found.append(Snippet(path, i + 1, language, "\n".join(body) + "\n", reason))
        i = j + 1
    return found


ALL = [s for path in DOCS for s in snippets(path)]


def test_the_extractor_finds_the_snippets() -> None:
    """A guard against an extractor that silently finds nothing."""
    assert len(ALL) >= 20
    assert {s.language for s in ALL} >= {"python", "bash"}


@pytest.mark.parametrize("snippet", [s for s in ALL if s.skip is not None], ids=Snippet.where)
def test_every_skip_says_why(snippet: Snippet) -> None:
    assert len(snippet.skip or "") >= 10, f"{snippet.where()}: <!-- snippet: skip REASON --> needs a reason"


@pytest.mark.parametrize("snippet", [s for s in ALL if s.skip is None], ids=Snippet.where)
def test_every_block_is_labelled(snippet: Snippet) -> None:
    known = RUN_PYTHON | RUN_SHELL | DATA | {"json"}
    assert snippet.language in known, (
        f"{snippet.where()}: a ```{snippet.language or '(no language)'} block: give it a language "
        f"({', '.join(sorted(known))}) or mark it <!-- snippet: skip REASON -->"
    )
    if snippet.language == "json":
        json.loads(snippet.code)


def _reader_namespace() -> dict[str, Any]:
    from agentscope.tool import Toolkit

    from planmode.agentscope import ScriptedChatModel

    return {"__name__": "__snippet__", "model": ScriptedChatModel(), "toolkit": Toolkit(), "my_tools": [],
            "other_middlewares": []}


async def _run_python_block(snippet: Snippet, namespace: dict[str, Any]) -> None:
    if snippet.code.lstrip().startswith(">>>"):
        test = doctest.DocTestParser().get_doctest(snippet.code, namespace, snippet.where(), str(snippet.path),
                                                     snippet.line)
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
        out: list[str] = []
        runner.run(test, out=out.append, clear_globs=False)
        assert runner.failures == 0, f"{snippet.where()}: doctest failed\n{''.join(out)}"
        return
    code = compile(snippet.code, snippet.where(), "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    result = eval(code, namespace)  # noqa: S307 - the docs' own code, as a reader would run it
    if result is not None:  # top-level await compiles to a coroutine
        await result


PYTHON_FILES = sorted({s.path for s in ALL if s.language in RUN_PYTHON and s.skip is None})


@pytest.mark.parametrize("path", PYTHON_FILES, ids=lambda p: str(p.relative_to(ROOT)))
async def test_python_snippets_run(path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    namespace = _reader_namespace()
    for snippet in snippets(path):
        if snippet.language in RUN_PYTHON and snippet.skip is None:
            try:
                await _run_python_block(snippet, namespace)
            except AssertionError:
                raise
            except Exception as exc:
                pytest.fail(f"{snippet.where()} raised {type(exc).__name__}: {exc}\n{textwrap.indent(snippet.code, '    ')}")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


SHELL_FILES = sorted({s.path for s in ALL if s.language in RUN_SHELL and s.skip is None})


@pytest.mark.parametrize("path", SHELL_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_shell_snippets_run(path: Path, tmp_path: Path) -> None:
    script = "\n".join(s.code for s in snippets(path) if s.language in RUN_SHELL and s.skip is None)
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("PLANMODE_")},
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
           "REDIS_PORT": str(_free_port()), "APP_PORT": str(_free_port())}  # the docs' defaults may be taken
    done = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, (
        f"{path.relative_to(ROOT)}: the shell snippets failed ({done.returncode})\n--- stdout\n{done.stdout[-4000:]}"
        f"\n--- stderr\n{done.stderr[-4000:]}"
    )


def test_a_marker_needs_to_be_right_before_its_fence(tmp_path: Path) -> None:
    """The extractor's own rules, on a made-up file: markers, fences, languages."""
    doc = tmp_path / "doc.md"
    doc.write_text(
        "text\n<!-- snippet: skip a fragment of the above -->\n\n```python\nx = (\n```\n\n"
        "<!-- snippet: skip unrelated -->\nprose in between\n```bash\necho hi\n```\n"
        "````\nnested ``` fence\n````\n  ~~~py\n  y = 1\n  ~~~\n"
    )
    found = snippets(doc)
    assert [(s.language, s.skip) for s in found] == [
        ("python", "a fragment of the above"), ("bash", None), ("", None), ("py", None)]
    assert found[2].code == "nested ``` fence\n" and found[3].code == "y = 1\n"
