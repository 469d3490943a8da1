"""Run AgentScope's real app offline: a scripted model the app can build from a credential.

AgentScope's app builds each turn's model from a stored credential
(``CredentialFactory``), so a test or demo cannot hand it a model object.
:class:`ScriptedCredential` names :class:`DirectedScriptedModel`, a
:class:`~planmode.testing.ScriptedChatModel` whose script travels in
the conversation itself: the user message carries ``PLANMODE-SCRIPT:`` followed
by a JSON list of steps, and the model plays the step whose index is the number
of model turns (tool calls and answers) since that message. The script is therefore the same on
every process, which is what lets a run start on one node and finish on another.

>>> text = script_message([tool_step("plan_enter", {}), say_step("planning")])
"""

from __future__ import annotations

import builtins
import json
import os
from typing import Any, Literal

from agentscope.credential import CredentialBase
from agentscope.message import Msg
from agentscope.model import ChatModelBase, ChatResponse

from planmode.testing import ScriptedChatModel, ScriptStep, call_tool, say

__all__ = [
    "SCRIPT_MARKER",
    "DirectedScriptedModel",
    "ScriptedCredential",
    "create_scripted_app",
    "planning_script",
    "app_from_env",
    "say_step",
    "script_message",
    "tool_step",
]

SCRIPT_MARKER = "PLANMODE-SCRIPT:"
"""Marks a user message whose remaining text is the JSON list of scripted steps."""


def tool_step(name: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
    """A scripted step that calls one tool."""
    return {"tool": name, "args": args or {}}


def say_step(text: str) -> dict[str, Any]:
    """A scripted step that answers with text (ending the reply)."""
    return {"say": text}


def script_message(steps: list[dict[str, Any]]) -> str:
    """The user-message text that makes :class:`DirectedScriptedModel` play ``steps``."""
    return SCRIPT_MARKER + json.dumps(steps)


def planning_script(plan: str, summary: str = "Plan ready for review", built: str = "Build finished.") -> list[
    dict[str, Any]
]:
    """The steps of an agent that enters plan mode, writes ``plan``, asks for approval, and once
    resumed starts building (first todo in progress) and reports ``built``."""
    return [
        tool_step("plan_enter", {}),
        tool_step("plan_write", {"content": plan}),
        tool_step("plan_exit", {"summary": summary}),
        tool_step("todo_write", {"todos": [{"content": "Build the approved plan", "status": "in_progress"}]}),
        say_step(built),
    ]


def _blocks(message: Msg) -> list[Any]:
    return [] if isinstance(message.content, str) else list(message.content)


def _script_text(message: Msg, block: Any) -> str | None:
    """The text of a block that may carry a script: a user's text, or a hint (a team message
    delivered to a worker's inbox, which is how a team leader hands its workers their script)."""
    if getattr(block, "type", None) == "hint":
        hint = getattr(block, "hint", None)
        return hint if isinstance(hint, str) else None
    if message.role == "user" and getattr(block, "type", None) == "text":
        return str(getattr(block, "text", ""))
    return None


def _directed_step(messages: list[Msg], _tools: list[dict[str, Any]] | None) -> ChatResponse:
    """Plays the step numbered by the model turns taken since the last script (in a user message or
    a team message)."""
    found: tuple[int, int, str] | None = None
    for index, message in enumerate(messages):
        if isinstance(message.content, str):
            if message.role == "user" and SCRIPT_MARKER in message.content:
                found = (index, -1, message.content)
            continue
        for position, block in enumerate(message.content):
            text = _script_text(message, block)
            if text is not None and SCRIPT_MARKER in text:
                found = (index, position, text)
    if found is None:
        return say("(no script in the conversation)")
    start, at, text = found
    steps, _ = json.JSONDecoder().raw_decode(text, text.index(SCRIPT_MARKER) + len(SCRIPT_MARKER))
    taken = 0
    for index, message in enumerate(messages[start:], start):
        if message.role != "assistant":
            continue
        blocks = _blocks(message)[at + 1:] if index == start else _blocks(message)
        taken += sum(1 for block in blocks if getattr(block, "type", None) in ("tool_call", "text"))
    if taken >= len(steps):
        return say("(script exhausted)")
    step = steps[taken]
    if "say" in step:
        return say(step["say"])
    # call_tool's ids are unique across processes: the reply merges blocks that share an id.
    return call_tool(step["tool"], step.get("args", {}))


class DirectedScriptedModel(ScriptedChatModel):
    """A scripted model built the way the app builds models, reading its script from the conversation."""

    def __init__(self, credential: Any = None, model: str = "scripted", parameters: Any = None, **_: Any) -> None:
        super().__init__()

    def _next_step(self) -> ScriptStep:
        """Every turn plays the step the conversation's script names for it."""
        return _directed_step


class ScriptedCredential(CredentialBase):
    """A credential needing no secret; pass it in ``create_app(extra_credentials=[...])``."""

    type: Literal["planmode_scripted_credential"] = "planmode_scripted_credential"

    @classmethod
    def get_chat_model_class(cls) -> builtins.type[ChatModelBase]:  # `type` is a field name in this class
        """The model class this credential builds: :class:`DirectedScriptedModel`."""
        return DirectedScriptedModel


def create_scripted_app(
    *,
    redis_host: str = "127.0.0.1",
    redis_port: int = 6379,
    workspace_dir: str = "workspaces",
    admin_token: str,
    plan_dir: str = "plans",
    wiring_options: dict[str, Any] | None = None,
    decision_lease_secs: int = 60,
    storage_url: str | None = None,
) -> Any:
    """AgentScope's app on Redis with plan mode wired into every session and the admin router mounted
    (``wiring_options``: more ``PlanModeWiring`` options; ``storage_url``: keep the sessions in SQL
    through AgentScope's ``AsyncSQLAlchemyStorage`` at that URL instead of Redis)."""
    from agentscope.app import create_app
    from agentscope.app.message_bus import RedisMessageBus
    from agentscope.app.storage import RedisStorage
    from agentscope.app.workspace_manager import LocalWorkspaceManager

    from planmode.agentscope import PlanModeWiring, admin_router

    wiring = PlanModeWiring(plan_dir=plan_dir, **(wiring_options or {}))
    storage: Any = RedisStorage(host=redis_host, port=redis_port)
    if storage_url:
        from agentscope.app.storage import AsyncSQLAlchemyStorage

        storage = AsyncSQLAlchemyStorage(storage_url)
    app = create_app(
        storage=storage,
        message_bus=RedisMessageBus(host=redis_host, port=redis_port),
        workspace_manager=LocalWorkspaceManager(basedir=workspace_dir),
        enable_scheduler=False,
        extra_credentials=[ScriptedCredential],
        extra_agent_middlewares=wiring.middlewares,
    )
    app.include_router(admin_router(token=admin_token, decision_lease_secs=decision_lease_secs))
    return app


def app_from_env() -> Any:
    """``uvicorn --factory devtools.scripted_app:app_from_env`` (PLANMODE_REDIS_PORT,
    PLANMODE_WORKSPACE_DIR, PLANMODE_ADMIN_TOKEN, optional PLANMODE_REDIS_HOST and
    PLANMODE_WIRING_OPTIONS, a JSON object of ``PlanModeWiring`` options, and PLANMODE_STORAGE_URL, a
    SQLAlchemy URL to keep the sessions in SQL; for fault tests
    PLANMODE_RUN_LOCK_TTL_SECS shortens AgentScope's session-run lease and PLANMODE_DECISION_LEASE_SECS
    the admin decision lease)."""
    from agentscope.app.message_bus import MessageBusKeys

    if os.environ.get("PLANMODE_RUN_LOCK_TTL_SECS"):
        MessageBusKeys.SESSION_RUN_TTL_SECS = int(os.environ["PLANMODE_RUN_LOCK_TTL_SECS"])
    return create_scripted_app(
        redis_host=os.environ.get("PLANMODE_REDIS_HOST", "127.0.0.1"),
        redis_port=int(os.environ["PLANMODE_REDIS_PORT"]),
        workspace_dir=os.environ["PLANMODE_WORKSPACE_DIR"],
        admin_token=os.environ["PLANMODE_ADMIN_TOKEN"],
        wiring_options=json.loads(os.environ.get("PLANMODE_WIRING_OPTIONS") or "{}"),
        decision_lease_secs=int(os.environ.get("PLANMODE_DECISION_LEASE_SECS", "60")),
        storage_url=os.environ.get("PLANMODE_STORAGE_URL") or None,
    )
