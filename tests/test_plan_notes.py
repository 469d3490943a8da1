"""Plan-mode notes: their footprint grows with what changed, earlier messages are never rewritten,
and the model always sees the current plan-mode status and todo list — across replies, after a
restored state and after AgentScope's real context compression."""

from __future__ import annotations

from collections import deque
from itertools import pairwise
from pathlib import Path
from typing import Any

from _plan_support import PLAN, make_agent, run
from agentscope.agent import Agent, ContextConfig
from agentscope.message import HintBlock, Msg, TextBlock, ToolResultBlock
from agentscope.permission import PermissionMode
from agentscope.state import AgentState

from planmode.agentscope import PlanMode, ScriptedChatModel, call_tool, plan_status, say
from planmode.agentscope._plan import _texts


def todos(done: int, items: int = 10) -> list[dict[str, Any]]:
    """A list of ``items`` with the first ``done`` completed and the next one in progress."""
    return [{"content": f"Step {i + 1} of the build", "status":
             "completed" if i < done else "in_progress" if i == done else "pending"} for i in range(items)]


def block_text(block: Any) -> str:
    """The text of a hint, text or tool-result block ('' for others)."""
    if isinstance(block, HintBlock) and isinstance(block.hint, str):
        return block.hint
    if isinstance(block, TextBlock):
        return block.text
    if isinstance(block, ToolResultBlock):
        output = block.output
        return output if isinstance(output, str) else "".join(getattr(b, "text", "") for b in output)
    return ""


def texts(messages: list[Msg]) -> list[str]:
    """Every text the model is shown, in order."""
    return [msg.content if isinstance(msg.content, str) else block_text(block)
            for msg in messages for block in ([msg.content] if isinstance(msg.content, str) else msg.content)]


def visible(msg: Msg) -> tuple[str, list[str]]:
    """What the model sees of a message: its role and each block's kind and text (no ids, times)."""
    if isinstance(msg.content, str):
        return msg.role, [msg.content]
    return msg.role, [f"{block.type}: {block_text(block)}{getattr(block, 'input', '')}" for block in msg.content]


def newest(messages: list[Msg], tag: str) -> str | None:
    """The newest ``<tag>...</tag>`` part the model is shown (todo_write's "cleared" result shows
    the empty list)."""
    for text in reversed(texts(messages)):
        if tag == "todos" and text == _texts.todo_summary([]):
            return _texts.EMPTY_TODOS
        if (found := _texts.last_block(text, tag)) is not None:
            return found
    return None


class Brain:
    """A scripted model's turns: plays ``actions`` in order, answers AgentScope's compression
    calls with a summary, and records, at every ordinary call, what the model is shown."""

    def __init__(self, agent_ref: list[Agent], actions: list[Any]) -> None:
        self.agent_ref = agent_ref
        self.actions = deque(actions)
        self.compressions = 0
        self.seen: list[tuple[list[Msg], str | None, str | None, list[dict[str, Any]], str]] = []

    def steps(self) -> list[Any]:
        return [self.turn] * (len(self.actions) * 3 + 10)

    def turn(self, messages: list[Msg], tools: list[dict[str, Any]] | None) -> Any:
        names = {t["function"]["name"] for t in tools or []}
        if "generate_structured_output" in names and len(names) == 1:
            self.compressions += 1
            schema = ContextConfig().summary_schema
            return call_tool("generate_structured_output", {k: "summary" for k in schema["properties"]})
        agent = self.agent_ref[0]
        status = plan_status(agent)
        self.seen.append(([m.model_copy(deep=True) for m in messages], newest(messages, "todos"),
                          newest(messages, "plan-mode"), status.todos, status.phase))
        return self.actions.popleft() if self.actions else say("done")


def build_agent(tmp_path: Path, actions: list[Any], *, context_size: int | None = None) -> tuple[Agent, Brain]:
    ref: list[Agent] = []
    brain = Brain(ref, actions)
    plan = PlanMode(workspace_dir=tmp_path, auto_approve_in_bypass=True)
    agent, model, _ = make_agent(tmp_path, brain.steps(), plan=plan, mode=PermissionMode.BYPASS)
    ref.append(agent)
    agent.react_config.max_iters = 10_000
    if context_size is not None:
        model.context_size = context_size
        agent.context_config = ContextConfig(trigger_ratio=0.8, reserve_ratio=0.3)
    return agent, brain


def approve_then(steps: list[Any]) -> list[Any]:
    return [call_tool("plan_enter", {}), call_tool("plan_write", {"content": PLAN}), call_tool("plan_exit", {}), *steps]


def assert_always_current(brain: Brain) -> None:
    """At every ordinary model call, the newest todo list and status shown are the current ones."""
    for _, shown_todos, shown_status, current, phase in brain.seen:
        assert shown_todos == (_texts.todos_block(current) if current or shown_todos else None), shown_todos
        if phase == "building":
            assert shown_status is not None and "BUILD mode" in shown_status
        elif phase == "planning":
            assert shown_status is not None and "PLAN MODE is active" in shown_status


def note_bytes(agent: Agent) -> int:
    return sum(len(b.hint) for m in agent.state.context if isinstance(m.content, list) for b in m.content
               if isinstance(b, HintBlock) and b.source == _texts.HINT_SOURCE and isinstance(b.hint, str))


async def test_notes_do_not_grow_with_the_number_of_todo_changes(tmp_path: Path) -> None:
    steps = [call_tool("todo_write", {"todos": todos(i % 10)}) for i in range(60)]
    agent, brain = build_agent(tmp_path, approve_then(steps[:20]))
    await run(agent)
    after_20 = note_bytes(agent)
    brain.actions.extend(steps[20:])
    agent.model.extend(brain.steps())  # type: ignore[attr-defined]
    await run(agent, "go on")
    assert note_bytes(agent) == after_20, "40 more todo changes added no note bytes"
    assert after_20 < 2_000, "one build note (and the seeded list), not one note per change"
    assert_always_current(brain)


async def test_earlier_messages_are_never_rewritten(tmp_path: Path) -> None:
    steps = [call_tool("todo_write", {"todos": todos(i)}) for i in range(8)]
    agent, brain = build_agent(tmp_path, approve_then(steps))
    await run(agent)
    shown = [[visible(m) for m in messages] for messages, *_ in brain.seen]
    assert len(shown) >= 10
    for before, after in pairwise(shown):
        assert len(after) >= len(before)
        assert after[:len(before) - 1] == before[:-1]
        last_before, same = before[-1], after[len(before) - 1]
        assert same[0] == last_before[0] and same[1][:len(last_before[1])] == last_before[1]


async def test_a_seeded_list_and_the_build_status_are_shown_at_once(tmp_path: Path) -> None:
    agent, brain = build_agent(tmp_path, approve_then([say("built")]))
    await run(agent)
    _, shown_todos, shown_status, current, phase = brain.seen[-1]
    assert phase == "building" and current, "the approval seeded the todo list from the plan's steps"
    assert shown_todos == _texts.todos_block(current)
    assert shown_status is not None and "BUILD mode" in shown_status
    assert_always_current(brain)


async def test_the_state_is_shown_again_after_agentscopes_compression(tmp_path: Path) -> None:
    steps = [call_tool("todo_write", {"todos": todos(i % 10)}) for i in range(40)]
    agent, brain = build_agent(tmp_path, approve_then(steps), context_size=6_000)
    await run(agent)
    assert brain.compressions >= 2 and agent.state.summary, "AgentScope compressed the context"
    assert_always_current(brain)
    assert note_bytes(agent) > 0


async def test_a_restored_state_shows_the_current_state(tmp_path: Path) -> None:
    steps = [call_tool("todo_write", {"todos": todos(i)}) for i in range(3)]
    agent, brain = build_agent(tmp_path, approve_then(steps))
    await run(agent)
    restored = AgentState.model_validate_json(agent.state.model_dump_json())
    restored.context = []  # a fresh context (e.g. a new session) over the stored plan state
    ref: list[Agent] = []
    brain2 = Brain(ref, [say("resumed")])
    plan = PlanMode(workspace_dir=tmp_path)
    agent2, _, _ = make_agent(tmp_path, brain2.steps(), plan=plan, state=restored)
    ref.append(agent2)
    await run(agent2, "resume")
    _, shown_todos, shown_status, current, _ = brain2.seen[0]
    assert current == todos(2) and shown_todos == _texts.todos_block(current)
    assert shown_status is not None and "BUILD mode" in shown_status


async def test_a_cleared_list_is_shown_as_empty_once(tmp_path: Path) -> None:
    agent, brain = build_agent(tmp_path, approve_then([call_tool("todo_write", {"todos": []}), say("x"), say("y")]))
    await run(agent)
    assert brain.seen[-1][3] == [] and brain.seen[-1][1] == _texts.EMPTY_TODOS
    assert_always_current(brain)
    model: ScriptedChatModel = agent.model  # type: ignore[assignment]
    model.extend(brain.steps())
    before = note_bytes(agent)
    await run(agent, "again")
    assert note_bytes(agent) == before
