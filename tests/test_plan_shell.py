"""Shell in plan mode (allow_shell_in_plan_mode=True): a corpus of mutating commands, all
denied under every permission mode with nothing changed on disk; read-only ones run."""

from __future__ import annotations

from pathlib import Path

import pytest
from _plan_support import make_agent, results, run, text_of
from agentscope.agent import Agent
from agentscope.permission import PermissionBehavior, PermissionMode, PermissionRule
from agentscope.tool import Bash

from planmode.agentscope import PlanMode, call_tool, call_tools, say
from planmode.agentscope._plan._texts import DENIED

# Every command targets files inside the test's workspace (the Bash tool's cwd), so even a
# gate failure could not harm the machine; the test then fails on the snapshot check.
MUTATING = [
    "rm notes.txt", "rm -rf sub", "touch new.txt", "mkdir build", "rmdir sub", "mv notes.txt moved.txt",
    "cp notes.txt copy.txt", "ln -s notes.txt link.txt", "chmod 000 notes.txt", "chown nobody notes.txt",
    "echo hacked > notes.txt", "echo hacked >> notes.txt", "printf x > out.txt", "cat notes.txt > copy.txt",
    "ls > listing.txt", "ls 2> err.txt", "ls &> all.txt", "> notes.txt", "tee out.txt < notes.txt",
    "echo hi | tee out.txt", "sed -i s/original/hacked/ notes.txt", "sed -i.bak 's/o/x/' notes.txt",
    "perl -i -pe 's/o/x/' notes.txt", "python -c \"open('x.txt','w').write('1')\"",
    "python3 -c 'import os; os.remove(\"notes.txt\")'", "node -e \"require('fs').writeFileSync('x.txt','1')\"",
    "ruby -e 'File.write(\"x.txt\", \"1\")'", "cat <<EOF > script.sh\necho pwned\nEOF",
    "python3 - <<EOF\nopen('x.txt','w')\nEOF", "bash -c 'rm notes.txt'", "sh -c 'touch x.txt'",
    "eval 'rm notes.txt'", "ls $(touch x.txt)", "echo `touch x.txt`", "cat <(touch x.txt)",
    "find . -name notes.txt -delete", "find . -name notes.txt -exec rm {} \\;", "xargs rm < list.txt",
    "ls | xargs rm", "git init", "git add .", "git commit -m x", "git push --force", "git reset --hard",
    "git checkout -- .", "git clean -fdx", "git stash", "git branch -D main", "git tag v1",
    "git diff --output=patch.txt", "pip install --no-index nonexistent-pkg-xyz",
    "npm install --offline left-pad", "apt-get install -y nonexistent-pkg-xyz", "cargo add serde",
    "dd if=/dev/zero of=disk.img bs=1 count=1", "truncate -s 0 notes.txt", "sort -o notes.txt notes.txt",
    "curl -o page.html file:///etc/hostname", "wget -O page.html http://127.0.0.1:9/", "make install",
    "sudo touch x.txt", "tar cf a.tar notes.txt", "install -m 644 notes.txt copy.txt", "shred notes.txt",
    "ls; rm notes.txt", "ls && rm notes.txt", "ls || touch x.txt", "true\ntouch x.txt",
    "awk 'BEGIN{print 1 > \"x.txt\"}'", "env touch x.txt", "nohup touch x.txt", "time touch x.txt",
]
READ_ONLY = ["ls", "ls -la", "cat notes.txt", "head -n 1 notes.txt", "tail -n 1 notes.txt", "wc -l notes.txt",
             "grep original notes.txt", "pwd", "stat notes.txt", "find . -name notes.txt"]


def _workspace(root: Path) -> Path:
    (root / "notes.txt").write_text("original notes\n")
    (root / "sub").mkdir()
    (root / "list.txt").write_text("notes.txt\n")
    return root


def _planning_shell_agent(root: Path, commands: list[str], mode: PermissionMode) -> Agent:
    """An agent (shell allowed in plan mode) whose model enters plan mode, then runs ``commands`` at once."""
    plan = PlanMode(workspace_dir=root, allow_shell_in_plan_mode=True)
    agent, _, _ = make_agent(root, [call_tool("plan_enter", {}),
                                    call_tools(*[("Bash", {"command": c}) for c in commands]), say("ok")],
                             plan=plan, tools=[Bash(cwd=str(root))], mode=mode)
    return agent


def _snapshot(root: Path) -> dict[str, tuple[str, int]]:
    return {str(p.relative_to(root)): (p.read_text(errors="replace") if p.is_file() else "<dir>", p.stat().st_mode)
            for p in sorted(root.rglob("*")) if "plans" not in p.parts}


def test_corpus_is_big_enough() -> None:
    assert len(set(MUTATING)) >= 60


@pytest.mark.parametrize("mode", list(PermissionMode), ids=[m.value for m in PermissionMode])
async def test_mutating_commands_denied_in_every_mode(tmp_path: Path, mode: PermissionMode) -> None:
    root = _workspace(tmp_path)
    agent = _planning_shell_agent(root, MUTATING, mode)
    agent.state.permission_context.allow_rules["Bash"] = [
        PermissionRule(tool_name="Bash", rule_content=None, behavior=PermissionBehavior.ALLOW, source="user")]
    before = _snapshot(root)
    await run(agent)
    res = [r for r in results(agent).values() if r.name == "Bash"]
    assert len(res) == len(MUTATING)
    leaked = [(c, r.state, text_of(r)) for c, r in zip(MUTATING, res, strict=True) if r.state != "denied" or text_of(r) != DENIED]
    assert leaked == []
    assert _snapshot(root) == before


@pytest.mark.parametrize("mode", list(PermissionMode), ids=[m.value for m in PermissionMode])
async def test_read_only_commands_run(tmp_path: Path, mode: PermissionMode) -> None:
    agent = _planning_shell_agent(_workspace(tmp_path), READ_ONLY, mode)
    await run(agent)
    res = [r for r in results(agent).values() if r.name == "Bash"]
    assert len(res) == len(READ_ONLY)
    assert [(c, r.state) for c, r in zip(READ_ONLY, res, strict=True)] == [(c, "success") for c in READ_ONLY]
    assert "original notes" in text_of(res[2])
