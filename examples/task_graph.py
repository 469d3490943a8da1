"""A task graph an agent keeps while it works, offline (a scripted model stands in for the LLM).

Run:  .venv/bin/python examples/task_graph.py

The agent uses planmode's drop-in Task tools (same names and results as AgentScope's, plus
refusal of bad dependencies), saves its state, and a new agent picks up where it left off.
The task graph is then drawn as a Mermaid flowchart.
"""

from __future__ import annotations

import asyncio

from agentscope.agent import Agent
from agentscope.message import UserMsg
from agentscope.state import AgentState
from agentscope.tool import Toolkit

from planmode import TaskGraph
from planmode.agentscope import TASK_TOOLS, ScriptedChatModel, call_tool, call_tools, say


def new_agent(model: ScriptedChatModel, state: AgentState | None = None) -> Agent:
    """An agent whose toolkit holds the four planmode Task tools."""
    return Agent(
        name="builder",
        system_prompt="You break work into tasks and track them.",
        model=model,
        toolkit=Toolkit(tools=[tool() for tool in TASK_TOOLS]),
        state=state,
    )


def print_tool_results(agent: Agent, since: int) -> int:
    """Prints the tool results added to the agent's context since message `since`."""
    for msg in agent.state.context[since:]:
        if isinstance(msg.content, list):
            for block in msg.content:
                if block.type == "tool_result":
                    text = block.output if isinstance(block.output, str) else "".join(o.text for o in block.output)
                    print(f"[{block.name} -> {block.state}]\n{text}\n")
    return len(agent.state.context)


async def main() -> None:
    planning = ScriptedChatModel(
        [
            call_tools(
                ("TaskCreate", {"subject": "Design the schema", "description": "tables and keys"}),
                ("TaskCreate", {"subject": "Write the migrations", "description": "up and down"}),
                ("TaskCreate", {"subject": "Ship it", "description": "deploy and announce"}),
            ),
            call_tool("TaskUpdate", {"task_id": "2", "add_blocked_by": ["1"]}),
            call_tool("TaskUpdate", {"task_id": "3", "add_blocked_by": ["2"]}),
            call_tool("TaskUpdate", {"task_id": "1", "add_blocked_by": ["3"]}),  # a cycle: refused
            call_tool("TaskUpdate", {"task_id": "1", "status": "in_progress", "owner": "builder"}),
            call_tool("TaskList", {}),
            say("Plan recorded: three tasks, each waiting on the previous one."),
        ]
    )
    agent = new_agent(planning)
    reply = await agent.reply(UserMsg(name="user", content="Plan the database change."))
    seen = print_tool_results(agent, 0)
    print(f"agent: {reply.get_text_content()}\n")

    saved = agent.state.model_dump_json()  # what AgentScope's session storage keeps
    print(f"--- state saved ({len(saved)} bytes); a new agent resumes from it ---\n")

    resuming = ScriptedChatModel(
        [
            call_tool("TaskUpdate", {"task_id": "1", "status": "completed"}),
            call_tool("TaskGet", {"task_id": "2"}),
            say("Schema done; the migrations are unblocked."),
        ]
    )
    agent2 = new_agent(resuming, state=AgentState.model_validate_json(saved))
    seen = len(agent2.state.context)
    reply = await agent2.reply(UserMsg(name="user", content="The schema is done."))
    print_tool_results(agent2, seen)
    print(f"agent: {reply.get_text_content()}\n")

    graph = TaskGraph.from_state_dict(agent2.state.tasks_context.model_dump())
    print("ready to start:", graph.ready())
    print("order:", graph.topological_order())
    print("\nMermaid (paste into any Mermaid viewer):\n")
    print(graph.to_mermaid())


if __name__ == "__main__":
    asyncio.run(main())
