"""Tools and random workloads shared by the permission tests and the benchmark.

Real AgentScope tools (Bash, Read, Write, Edit, Glob, Grep) plus small custom tools that cover
every branch of the engine: read-only, writing with a coroutine ``match_rule``, a plain-function
``match_rule``, a safety ASK with ``bypass_immune``, a tool that decides ALLOW/DENY itself, a plain
ASK, and a Bash subclass overriding ``match_rule`` (which must not use the native matcher).
"""

from __future__ import annotations

import random
from typing import Any

from agentscope.permission import (
    PermissionBehavior,
    PermissionContext,
    PermissionDecision,
    PermissionMode,
    PermissionRule,
)
from agentscope.tool import Bash, Edit, Glob, Grep, Read, ToolBase, ToolChunk, Write

B = PermissionBehavior


class _Custom(ToolBase):
    """Base of the custom tools: no call needed (the engine never runs tools)."""

    description = "test tool"
    input_schema = {"type": "object", "properties": {"target": {"type": "string"}}}
    is_concurrency_safe = True
    is_read_only = False

    async def check_permissions(self, tool_input: dict[str, Any], context: PermissionContext) -> PermissionDecision:
        return PermissionDecision(behavior=B.PASSTHROUGH, message="")

    async def call(self, **kwargs: Any) -> ToolChunk:  # pragma: no cover - never executed
        raise AssertionError("not executed in these tests")


class Lookup(_Custom):
    """Read-only."""

    name = "lookup"
    is_read_only = True


class Deploy(_Custom):
    """Mutating, with a coroutine match_rule (substring of target) and its own suggestions."""

    name = "deploy"

    async def match_rule(self, rule_content: str | None, tool_input: dict[str, Any]) -> bool:
        return rule_content is None or rule_content in str(tool_input.get("target", ""))

    async def generate_suggestions(self, tool_input: dict[str, Any]) -> list[PermissionRule]:
        target = str(tool_input.get("target", ""))
        return [PermissionRule(tool_name=self.name, rule_content=target[:3], behavior=B.ALLOW, source="suggested")]


class Legacy(_Custom):
    """Mutating, with plain-function match_rule and generate_suggestions (AgentScope still supports them)."""

    name = "legacy"

    def match_rule(self, rule_content: str | None, tool_input: dict[str, Any]) -> bool:  # type: ignore[override]
        return str(tool_input.get("target", "")).startswith(rule_content or "")

    def generate_suggestions(self, tool_input: dict[str, Any]) -> list[PermissionRule]:  # type: ignore[override]
        return []


class Nuke(_Custom):
    """Returns a bypass-immune safety ASK for targets under /, else PASSTHROUGH."""

    name = "nuke"

    async def check_permissions(self, tool_input: dict[str, Any], context: PermissionContext) -> PermissionDecision:
        if str(tool_input.get("target", "")).startswith("/"):
            return PermissionDecision(
                behavior=B.ASK,
                message="Permission required: nuking the root",
                decision_reason="Safety check: root",
                bypass_immune=True,
            )
        return PermissionDecision(behavior=B.PASSTHROUGH, message="")


class Gate(_Custom):
    """Decides itself: ALLOW for 'ok*', DENY for 'no*', plain (not bypass-immune) ASK otherwise."""

    name = "gate"

    async def check_permissions(self, tool_input: dict[str, Any], context: PermissionContext) -> PermissionDecision:
        target = str(tool_input.get("target", ""))
        if target.startswith("ok"):
            return PermissionDecision(behavior=B.ALLOW, message="gate says ok")
        if target.startswith("no"):
            return PermissionDecision(behavior=B.DENY, message="gate says no", decision_reason="gate")
        return PermissionDecision(behavior=B.ASK, message="gate asks", decision_reason="gate")


class LoudBash(Bash):
    """A Bash whose rules match case-insensitively: the native Bash matcher must not be used."""

    async def match_rule(self, rule_content: str | None, tool_input: dict[str, Any]) -> bool:
        return rule_content is None or rule_content.lower() in str(tool_input.get("command", "")).lower()


def all_tools() -> list[ToolBase]:
    """One instance of every tool the tests use."""
    return [Bash(), Read(), Write(), Edit(), Glob(), Grep(), Lookup(), Deploy(), Legacy(), Nuke(), Gate(), LoudBash()]


TOOL_NAMES = ["Bash", "Read", "Write", "Edit", "Glob", "Grep", "lookup", "deploy", "legacy", "nuke", "gate"]

COMMANDS = [
    "ls -la",
    "git status",
    "git log --oneline",
    "cat README.md | grep planmode",
    "git push origin main",
    "git commit -m 'wip'",
    "rm -rf build",
    "rm -rf /",
    "npm install express",
    "npm run build",
    "mkdir -p out/x",
    "sed -i s/a/b/ ~/.bashrc",
    "echo $(whoami)",
    "GIT add .",
    "make",
    "",
    "ls\nrm x",
    "git",
]
PATHS = ["src/main.py", "src/a/b.rs", "docs/guide.md", "/etc/passwd", "~/.bashrc", "x.py", "src", "", "a[1].txt"]
TARGETS = ["ok-ship", "no-way", "/", "/var/www", "prod-eu", "staging", "", "dev"]

BASH_RULES = ["git:*", "npm run:*", "rm -rf", "git *", "npm *", "ls * -la", "*", "git push*", "echo \\*", "a\\\\b", "make", "GIT"]
PATH_RULES = ["src/**", "*.py", "docs/*", "/etc/*", "**", "src/[ab]/*", "a[[]1].txt", "?.py", "[!s]*", "src"]
TARGET_RULES = ["ok", "pro", "/", "st", "dev"]


def random_content(rng: random.Random, tool_name: str, tool_level: float = 0.2, specific: float = 0.5) -> str | None:
    """A rule content for a tool: None or '' (a tool-level rule, with probability ``tool_level``),
    else (with probability ``specific``) a generated pattern of that tool's kind that rarely
    matches, as large real rule sets are mostly specific rules, or a pattern from the lists above."""
    roll = rng.random()
    if roll < tool_level:
        return None if roll < tool_level * 0.75 else ""
    n = rng.randrange(10_000)
    generated = rng.random() < specific
    if tool_name == "Bash":
        if generated:
            return rng.choice([f"tool{n}:*", f"tool{n} run*", f"tool{n} --flag", f"tool{n} * --x"])
        return rng.choice(BASH_RULES)
    if tool_name in ("Read", "Write", "Edit", "Glob", "Grep"):
        if generated:
            return rng.choice([f"dir{n}/**", f"*.ext{n}", f"src/mod{n}/*.py", f"/data/set{n}/[ab]*"])
        return rng.choice(PATH_RULES)
    return f"t{n}" if generated else rng.choice(TARGET_RULES)


def random_context(
    rng: random.Random,
    n_rules: int,
    tool_level: float = 0.2,
    weights: list[float] | None = None,
    specific: float = 0.5,
) -> PermissionContext:
    """A context with a random mode and ``n_rules`` random allow / deny / ask rules, spread over
    ``TOOL_NAMES`` with ``weights`` (uniformly by default); see ``random_content``."""
    context = PermissionContext(mode=rng.choice(list(PermissionMode)))
    behaviors = [B.ALLOW, B.ALLOW, B.DENY, B.ASK]
    for _ in range(n_rules):
        name = rng.choices(TOOL_NAMES, weights)[0]
        behavior = rng.choice(behaviors)
        rule = PermissionRule(
            tool_name=name, rule_content=random_content(rng, name, tool_level, specific), behavior=behavior, source="test"
        )
        target = {B.ALLOW: context.allow_rules, B.DENY: context.deny_rules, B.ASK: context.ask_rules}[behavior]
        target.setdefault(name, []).append(rule)
    return context


def random_input(rng: random.Random, tool: ToolBase) -> dict[str, Any]:
    """A plausible input for ``tool``."""
    if isinstance(tool, Bash):
        return {"command": rng.choice(COMMANDS)}
    if isinstance(tool, (Read, Write, Edit)):
        return {"file_path": rng.choice(PATHS), "content": "x"}
    if isinstance(tool, Glob):
        return {"pattern": rng.choice(["*.py", "src/**/*.rs", "docs/*"]), "path": rng.choice([*PATHS, None])}
    if isinstance(tool, Grep):
        return {"pattern": "TODO", "path": rng.choice([p for p in PATHS if p])}
    return {"target": rng.choice(TARGETS)}
