"""A real AgentScope Agent using planmode's Task tools, driven by the scripted model."""

from __future__ import annotations

from agentscope.agent import Agent
from agentscope.message import Msg, UserMsg
from agentscope.permission import PermissionMode
from agentscope.state import AgentState
from agentscope.tool import TaskCreate as BuiltinTaskCreate, Toolkit

from planmode import TaskGraph
from planmode.agentscope import TASK_TOOLS, ScriptedChatModel, call_tool, call_tools, say


def make_agent(model: ScriptedChatModel, state: AgentState | None = None) -> Agent:
    return Agent(
        name="dev",
        system_prompt="You plan work as tasks.",
        model=model,
        toolkit=Toolkit(tools=[tool() for tool in TASK_TOOLS]),
        state=state,
    )


def tool_results(agent: Agent) -> list[tuple[str, str, str]]:
    """(tool name, state, text) of every tool result in the agent's context."""
    out = []
    for msg in agent.state.context:
        if isinstance(msg, Msg) and isinstance(msg.content, list):
            for block in msg.content:
                if block.type == "tool_result":
                    output = block.output if isinstance(block.output, str) else "".join(o.text for o in block.output)
                    out.append((block.name, block.state, output))
    return out


async def test_agent_plans_with_tasks_and_resumes_after_a_round_trip() -> None:
    model = ScriptedChatModel(
        [
            call_tools(
                ("TaskCreate", {"subject": "Write the parser", "description": "tokens to AST"}),
                ("TaskCreate", {"subject": "Write the printer", "description": "AST to text"}),
                ("TaskCreate", {"subject": "Release", "description": "tag and publish"}),
            ),
            call_tool("TaskUpdate", {"task_id": "2", "add_blocked_by": ["1"]}),
            call_tool("TaskUpdate", {"task_id": "3", "add_blocked_by": ["2"], "owner": "ci"}),
            call_tool("TaskUpdate", {"task_id": "1", "add_blocked_by": ["3"]}),  # would close a cycle
            call_tool("TaskUpdate", {"task_id": "1", "status": "in_progress"}),
            call_tool("TaskList", {}),
            say("Planned three tasks."),
        ]
    )
    agent = make_agent(model)
    final = await agent.reply(UserMsg(name="user", content="plan the release"))
    assert final.get_text_content() == "Planned three tasks."
    results = tool_results(agent)
    assert [r[0] for r in results] == ["TaskCreate"] * 3 + ["TaskUpdate"] * 4 + ["TaskList"]
    assert results[5][1] == "error" and "would close a dependency cycle" in results[5][2]
    assert results[-1][2] == (
        "1 [in_progress] Write the parser\n2 [pending] Write the printer[blocked by 1]\n"
        "3 [pending] Release(ci)[blocked by 2]"
    )

    saved = agent.state.model_dump_json()
    restored = AgentState.model_validate_json(saved)
    model2 = ScriptedChatModel(
        [
            call_tool("TaskUpdate", {"task_id": "1", "status": "completed"}),
            call_tool("TaskCreate", {"subject": "Docs", "description": "write them"}),
            call_tool("TaskGet", {"task_id": "2"}),
            say("Parser done."),
        ]
    )
    agent2 = make_agent(model2, state=restored)
    await agent2.reply(UserMsg(name="user", content="continue"))
    new = tool_results(agent2)[-3:]
    assert new[0][2].startswith("Update task (id=1) status.\n\nTask completed.")
    assert new[1][2] == "Task (id=4) created successfully: Docs"
    assert new[2][2] == "Task (id=2): Write the printer\nStatus: pending\nDescription: AST to text\nBlocks: #3"
    graph = TaskGraph.from_state_dict(agent2.state.tasks_context.model_dump())
    assert graph.ready() == ["2", "4"]
    assert "t0 -.-> t1" in graph.to_mermaid()


async def test_task_tools_work_in_explore_mode_where_agentscopes_are_denied() -> None:
    def agent_with(tool: object) -> Agent:
        model = ScriptedChatModel([call_tool("TaskCreate", {"subject": "look around", "description": ""}), say("ok")])
        agent = Agent(name="dev", system_prompt="explore", model=model, toolkit=Toolkit(tools=[tool]))  # type: ignore[list-item]
        agent.state.permission_context.mode = PermissionMode.EXPLORE
        return agent

    ours = agent_with(TASK_TOOLS[0]())
    await ours.reply(UserMsg(name="user", content="explore"))
    assert tool_results(ours)[0][1] == "success" and len(ours.state.tasks_context.tasks) == 1

    theirs = agent_with(BuiltinTaskCreate())
    await theirs.reply(UserMsg(name="user", content="explore"))
    assert tool_results(theirs)[0][1] == "denied" and theirs.state.tasks_context.tasks == []


async def test_registering_ours_after_the_builtins_replaces_them() -> None:
    model = ScriptedChatModel([call_tool("TaskUpdate", {"task_id": "1", "add_blocked_by": ["1"]}), say("ok")])
    from agentscope.tool import TaskCreate, TaskGet, TaskList, TaskUpdate

    toolkit = Toolkit(tools=[TaskCreate(), TaskGet(), TaskList(), TaskUpdate(), *(t() for t in TASK_TOOLS)])
    agent = Agent(name="dev", system_prompt="x", model=model, toolkit=toolkit)
    agent.state.tasks_context.tasks.extend([])  # an empty seed is fine
    from agentscope.state import Task

    agent.state.tasks_context.tasks.append(Task(id="1", subject="seeded", description="", metadata={}))
    await agent.reply(UserMsg(name="user", content="go"))
    name, state, text = tool_results(agent)[0]
    assert (name, state) == ("TaskUpdate", "error") and "cannot block itself" in text
    assert agent.state.tasks_context.tasks[0].blocked_by == []
