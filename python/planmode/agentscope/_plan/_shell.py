"""Shell commands in plan mode: allowed only when both the shell tool's own
``check_read_only`` and planmode's classifier prove the command read-only (fail closed)."""

from __future__ import annotations

import re
import shlex
from typing import Any

from agentscope.tool import ToolBase

#: Characters that make a command unanalysable here (redirections, pipes, substitution, ...).
_META = re.compile(r"[;&|<>`$(){}\n\r\\*?\[\]!#~]")
#: Read-only programs whose every option is harmless.
_SIMPLE = frozenset({"ls", "cat", "head", "tail", "wc", "pwd", "stat", "file", "du", "df",
                     "which", "whoami", "echo", "grep", "tree", "basename", "dirname",
                     "realpath", "date", "uname", "true"})
_GIT_READ = frozenset({"status", "log", "diff", "show", "blame", "rev-parse", "ls-files",
                       "shortlog", "describe"})
_FIND_WRITES = frozenset({"-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint",
                          "-fprint0", "-fprintf", "-fls"})


def _fallback_classify(command: str) -> tuple[bool, str]:
    """A conservative allow-list, used only when ``planmode.classify_shell`` is unavailable."""
    if _META.search(command):
        return False, "contains shell operators, redirection or expansion"
    try:
        words = shlex.split(command)
    except ValueError as exc:
        return False, f"cannot be parsed ({exc})"
    if not words:
        return False, "empty command"
    prog, args = words[0], words[1:]
    if prog in _SIMPLE:
        return True, f"{prog} only reads"
    if prog == "find" and not _FIND_WRITES.intersection(args):
        return True, "find without actions that write or execute"
    if prog == "git" and args and args[0] in _GIT_READ and not any(a.startswith("--output") for a in args):
        return True, f"git {args[0]} only reads"
    return False, f"{prog} is not on the read-only allow-list"


def classify(command: str) -> tuple[bool, str]:
    """(read_only, reason) from ``planmode.classify_shell`` or, until it exists, the allow-list."""
    try:
        from planmode import classify_shell  # type: ignore[attr-defined]
    except ImportError:
        return _fallback_classify(command)
    verdict = classify_shell(command)
    return bool(verdict.read_only), str(verdict.reason)


async def shell_is_read_only(tool: ToolBase, tool_input: dict[str, Any]) -> bool:
    """True only if the command is a non-empty string that both checks prove read-only."""
    command = tool_input.get("command")
    if not isinstance(command, str) or not command.strip():
        return False
    try:
        if not await tool.check_read_only(tool_input):
            return False
    except Exception:  # a checker that fails proves nothing: fail closed
        return False
    return classify(command)[0]
