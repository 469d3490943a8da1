"""The approved plan as a contract, offline: a plan declares its scope, the build stays inside it
except for one step, which asks the human (answered here), and is recorded as drift; then
`planmode report` counts the run.

    python examples/plan_scope_agent.py [--workspace DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
from pathlib import Path

from agentscope.agent import Agent
from agentscope.event import ConfirmResult, RequireUserConfirmEvent, UserConfirmResultEvent
from agentscope.message import UserMsg
from agentscope.tool import Toolkit

from planmode.agentscope import PlanMode, ScriptedChatModel, answer_plan, call_tool, plan_status, say
from planmode.agentscope.demo_tools import ReadFile, WriteFile
from planmode.report import format_report, report_from_states

PLAN = """# Plan: document the date parser

## Steps
1. Write the usage notes
2. Add the changelog entry

## Scope
- `notes/*.md`
"""


async def reply(agent: Agent, message: object) -> RequireUserConfirmEvent | None:
    """One reply; the confirmation request it ends with, if any."""
    asked = None
    async for event in agent.reply_stream(message):
        if isinstance(event, RequireUserConfirmEvent):
            asked = event
    return asked


async def main(workspace: Path) -> None:
    """Plans, approves, builds with one out-of-scope step, reports."""
    plan = PlanMode(workspace_dir=workspace)  # scope_enforcement="ask" by default
    model = ScriptedChatModel([
        call_tool("plan_enter", {}), call_tool("plan_write", {"content": PLAN}), call_tool("plan_exit", {}),
        call_tool("write_file", {"path": "notes/usage.md", "content": "# Usage\n"}),
        call_tool("todo_write", {"todos": [{"content": "Write the usage notes", "status": "completed"},
                                           {"content": "Add the changelog entry", "status": "in_progress"}]}),
        call_tool("write_file", {"path": "CHANGELOG.md", "content": "- documented the parser\n"}),
        say("Notes and changelog written."),
    ])
    agent = Agent(name="dev", system_prompt="You plan, then build.", model=model,
                  toolkit=Toolkit(tools=[WriteFile(workspace), ReadFile(workspace), *plan.tools()]),
                  middlewares=[plan.middleware()])
    asked = await reply(agent, UserMsg(name="user", content="Document the date parser"))
    print("steps:", [(s["id"], s["text"]) for s in plan_status(agent).steps])
    print("scope:", "notes/*.md")
    asked = await reply(agent, answer_plan(asked, "approve", next_mode="accept_edits"))
    print("wrote notes/usage.md inside the scope:", (workspace / "notes" / "usage.md").exists())
    assert asked is not None, "the out-of-scope write should ask"
    print("asked:", asked.tool_calls[0].name, asked.tool_calls[0].input)
    print("human: yes, the changelog is fine")
    await reply(agent, UserConfirmResultEvent(
        reply_id=asked.reply_id, confirm_results=[ConfirmResult(confirmed=True, tool_call=asked.tool_calls[0])]))
    print("wrote CHANGELOG.md once allowed:", (workspace / "CHANGELOG.md").exists())
    for entry in plan_status(agent).audit:
        if entry["kind"] == "drift":
            print("drift:", entry["detail"])
    print(format_report(report_from_states([agent.state])))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workspace", help="workspace directory (default: a new temporary one)")
    args = parser.parse_args()
    asyncio.run(main(Path(args.workspace) if args.workspace else Path(tempfile.mkdtemp(prefix="planmode-scope-"))))
