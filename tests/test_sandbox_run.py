"""planmode._core.run_sandboxed for real under Landlock: writes fail outside scratch, reads
match an unsandboxed run, the network is off, timeouts kill the whole process group, output
is capped, concurrent commands get their own scratch, cancellation cleans up."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest
from _sandbox_support import processes_with, require_sandbox, snapshot, survivors

from planmode._core import SandboxRun, run_sandboxed
from planmode.exceptions import InvalidInputError


def sh(line: str) -> list[str]:
    return ["/bin/sh", "-c", line]


async def test_writes_outside_scratch_are_refused(tmp_path: Path) -> None:
    require_sandbox()
    (tmp_path / "kept.txt").write_text("original")
    before = snapshot(tmp_path)
    run = await run_sandboxed(sh('cat kept.txt; echo x > kept.txt; rm kept.txt; mkdir d; '
                                 'chmod 000 kept.txt; touch kept.txt; echo ok > "$TMPDIR/t"; '
                                 'cat "$TMPDIR/t"'), cwd=str(tmp_path))
    assert run.stdout == b"originalok\n"
    assert snapshot(tmp_path) == before
    assert run.scratch_entries == ["tmp/t"] and run.scratch_removed
    assert not Path(run.scratch_dir).exists()
    assert any("Permission denied" in line for line in run.blocked)
    assert any("Operation not permitted" in line for line in run.blocked)


READ_ONLY_LINES = ["ls -la", "cat notes.txt", "wc -l notes.txt", "grep -n o notes.txt", "pwd",
                   "stat -c '%s %a' notes.txt", "head -c 5 notes.txt | od -c", "ls /proc/self/fd | wc -l",
                   "find . -name '*.txt' | sort", "python3 -c 'import sys; print(sys.version)'",
                   "git --version", "ls /nonexistent", "echo $HOME $USER", "sort notes.txt | uniq -c"]


@pytest.mark.parametrize("line", READ_ONLY_LINES)
async def test_read_only_output_matches_an_unsandboxed_run(tmp_path: Path, line: str) -> None:
    require_sandbox()
    (tmp_path / "notes.txt").write_text("one\ntwo\ntwo\n")
    plain = subprocess.run(sh(line), cwd=tmp_path, capture_output=True, stdin=subprocess.DEVNULL)
    run = await run_sandboxed(sh(line), cwd=str(tmp_path))
    assert (run.exit_code, run.stdout, run.stderr) == (plain.returncode, plain.stdout, plain.stderr)


async def test_tcp_is_blocked_unless_allowed() -> None:
    require_sandbox()
    accepted = []

    async def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        accepted.append(1)
        writer.close()

    server = await asyncio.start_server(on_connect, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    probe = [sys.executable, "-c",
             f"import socket; socket.create_connection(('127.0.0.1', {port}), 5); print('connected')"]
    async with server:
        blocked = await run_sandboxed(probe)
        assert blocked.network_blocked and blocked.exit_code != 0
        assert b"PermissionError" in blocked.stderr and accepted == []
        allowed = await run_sandboxed(probe, allow_network=True)
        assert not allowed.network_blocked and allowed.stdout == b"connected\n"
        for _ in range(1000):
            if accepted:
                break
            await asyncio.sleep(0.01)
        assert accepted == [1]


async def test_timeout_kills_a_process_tree_with_its_group() -> None:
    require_sandbox()
    # A bounded fork bomb: 2^7 - 1 shells and their sleeps, all in the command's group.
    bomb = "f() { if [ $1 -gt 0 ]; then f $(($1-1)) & f $(($1-1)) & fi; sleep 1000; }; f 6"
    run = await run_sandboxed(sh(bomb), timeout=1.5)
    assert run.timed_out and run.signal == 9
    assert await survivors(run.scratch_dir) == []
    assert run.scratch_removed


async def test_background_processes_do_not_outlive_the_command() -> None:
    require_sandbox()
    run = await run_sandboxed(sh("sleep 1000 & echo started"))
    assert run.stdout == b"started\n" and not run.timed_out
    assert await survivors(run.scratch_dir) == []


async def test_output_is_capped_and_the_rest_counted() -> None:
    require_sandbox()
    run = await run_sandboxed(sh("head -c 3000000 /dev/zero; head -c 5000 /dev/zero >&2"),
                              output_cap=10_000)
    assert len(run.stdout) == 10_000 and run.stdout_dropped == 2_990_000
    assert len(run.stderr) == 5000 and run.stderr_dropped == 0


async def test_concurrent_commands_have_their_own_scratch() -> None:
    require_sandbox()
    line = 'echo "$1" > "$TMPDIR/mine"; sleep 0.3; ls "$TMPDIR"; cat "$TMPDIR"/*'
    runs: list[SandboxRun] = await asyncio.gather(
        *[run_sandboxed(["/bin/sh", "-c", line, "sh", f"id{i}"]) for i in range(6)])
    assert [r.stdout for r in runs] == [f"mine\nid{i}\n".encode() for i in range(6)]
    assert len({r.scratch_dir for r in runs}) == 6
    assert all(not Path(r.scratch_dir).exists() for r in runs)


async def test_the_event_loop_keeps_running_while_a_command_runs(tmp_path: Path) -> None:
    """The command waits for a file that only the event loop creates, after the command
    started: a blocked loop would leave it waiting until its timeout."""
    require_sandbox()
    go = tmp_path / "go"
    pending = asyncio.ensure_future(run_sandboxed(
        sh(f"while [ ! -e {go} ]; do sleep 0.01; done; echo seen"), timeout=120))
    await asyncio.sleep(0.05)
    go.write_text("")
    run = await pending
    assert run.stdout == b"seen\n" and not run.timed_out


async def test_cancelling_the_await_kills_the_command_and_removes_scratch(tmp_path: Path) -> None:
    require_sandbox()
    marker = tmp_path / "scratch-path"
    task = asyncio.ensure_future(run_sandboxed(
        sh("sleep 1000"),
        env=[("PLANMODE_TEST_MARK", str(marker))]))
    for _ in range(200):
        pids = processes_with(str(marker))
        if pids:
            break
        await asyncio.sleep(0.01)
    assert pids
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await survivors(str(marker)) == []


@pytest.mark.parametrize("kwargs", [{"timeout": 0}, {"timeout": -1}, {"cwd": "/no/such/dir"},
                                    {"read_paths": ["relative"]}, {"env": [("A=B", "x")]}])
def test_bad_arguments_raise_before_anything_runs(kwargs: dict) -> None:
    with pytest.raises(InvalidInputError):
        run_sandboxed(["true"], **kwargs)


async def test_an_empty_argv_is_refused() -> None:
    with pytest.raises(InvalidInputError):
        run_sandboxed([])


async def test_reads_can_be_restricted(tmp_path: Path) -> None:
    require_sandbox()
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "key").write_text("hunter2")
    work = tmp_path / "work"
    work.mkdir()
    (work / "a.txt").write_text("visible")
    readable = [str(work), "/usr", "/bin", "/lib", "/lib64", "/etc", "/proc", "/dev"]
    run = await run_sandboxed(sh(f"cat a.txt; cat {secret}/key"), cwd=str(work),
                              read_paths=[p for p in readable if os.path.exists(p)])
    assert run.stdout == b"visible" and b"Permission denied" in run.stderr


def test_a_finished_script_exits_cleanly(tmp_path: Path) -> None:
    """asyncio.run + exit right after the await: no crash at interpreter finalization."""
    require_sandbox()
    script = ("import asyncio\nfrom planmode._core import run_sandboxed\n"
              "async def main():\n"
              "    runs = await asyncio.gather(*[run_sandboxed(['/bin/echo', str(i)]) for i in range(8)])\n"
              "    print(len(runs))\n"
              "asyncio.run(main())\n")
    for _ in range(3):
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
        assert (done.returncode, done.stdout, done.stderr) == (0, "8\n", "")


ESCAPES = [
    'ln kept.txt "$TMPDIR/h" && echo x >> "$TMPDIR/h"',  # a hard link into scratch
    'ln -s "$PWD/kept.txt" "$TMPDIR/s"; echo x >> "$TMPDIR/s"',  # a symlink from scratch
    'mv kept.txt "$TMPDIR/"',  # moving the file out
    'cp -r . "$TMPDIR/copy" && cd "$TMPDIR/copy" && echo x > kept.txt && mv kept.txt "$OLDPWD/"',
    'mkfifo ff', 'ln -s /etc/passwd link',
    'python3 -c "import os; os.utime(\'kept.txt\', (0, 0))"',
    'python3 -c "import os; os.chmod(\'kept.txt\', 0o777)"',
    'python3 -c "import os; os.truncate(\'kept.txt\', 0)"',
    'exec 3<>kept.txt; echo x >&3',
    'echo x > /dev/shm/planmode-escape', 'echo x > /proc/self/cwd/kept.txt',
]


@pytest.mark.parametrize("line", ESCAPES)
async def test_indirect_writes_are_refused_too(tmp_path: Path, line: str) -> None:
    require_sandbox()
    (tmp_path / "kept.txt").write_text("original")
    before = snapshot(tmp_path)
    shm = sorted(os.listdir("/dev/shm"))
    run = await run_sandboxed(sh(line), cwd=str(tmp_path))
    assert snapshot(tmp_path) == before, run.stderr
    assert sorted(os.listdir("/dev/shm")) == shm
    assert run.blocked, run.stderr  # the refusal reached the command, and the report
