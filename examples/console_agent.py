"""Chat with a plan-mode agent in AgentScope's terminal console (or its TUI), offline.

    python examples/console_agent.py          # AgentScope's console, with planmode's plan review
    python examples/console_agent.py --tui    # AgentScope's full-screen TUI (needs planmode[tui])

Type any request (e.g. "add input validation"). The scripted agent plans read-only, writes
plans/PLAN.md and asks for approval: you see the plan (and, after you asked for changes, the diff
since the revision you reviewed) and answer approve / edit in $EDITOR / request changes / reject.
After an approval it builds; after a request for changes it writes a new revision and asks again.
Pass --model openai|dashscope to use a real model instead (see examples/real_model_agent.py).
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
from pathlib import Path
from typing import Any

from agentscope.agent import Agent
from agentscope.message import Msg
from agentscope.model import ChatResponse
from agentscope.tool import Toolkit

from planmode.agentscope import PlanMode, ScriptedChatModel, call_tool, plan_status, say
from planmode.agentscope.demo_tools import ReadFile, WriteFile

APP = 'def signup(email: str, password: str) -> dict:\n    return {"email": email}\n'
PLAN = "# Plan: validate signup input\n\n## Steps\n1. Add an email check to signup\n2. Add tests\n"


def scripted_model(agent_ref: list[Agent]) -> ScriptedChatModel:
    """Plans, asks, and then follows the human's answer: builds, or revises and asks again."""
    revisions = [PLAN]

    def after_answer(messages: list[Msg], tools: list[dict[str, Any]] | None) -> ChatResponse:
        agent = agent_ref[0]
        status = plan_status(agent)
        if status.phase == "building":
            agent.model.extend([say(f"Done: built revision {status.approved_revision} of the plan.")])  # type: ignore[attr-defined]
            return call_tool("write_file", {"path": "app.py", "content": APP.replace("return", "# validated\n    return")})
        if status.phase == "planning" and status.audit[-1].get("decision") == "request_changes":
            revised = revisions[-1] + f"{len(revisions) + 2}. {status.audit[-1].get('feedback')}\n"
            revisions.append(revised)
            agent.model.extend([call_tool("plan_exit", {"summary": "Revised as you asked."}), after_answer])  # type: ignore[attr-defined]
            return call_tool("plan_write", {"content": revised})
        return say("Understood: the plan was not approved, so I changed nothing.")

    return ScriptedChatModel([
        call_tool("plan_enter", {}),
        call_tool("read_file", {"path": "app.py"}),
        call_tool("plan_write", {"content": PLAN}),
        call_tool("plan_exit", {"summary": "Validate the email in signup, with a test."}),
        after_answer,
    ])


async def main(workspace: Path, tui: bool, model_kind: str | None) -> None:
    (workspace / "app.py").write_text(APP)
    plan = PlanMode(workspace_dir=workspace, plan_dir="plans")
    agent_ref: list[Agent] = []
    if model_kind:
        from real_model_agent import model_from_env  # the real-model example next to this file

        model: Any = model_from_env(model_kind)
    else:
        model = scripted_model(agent_ref)
    agent = Agent(
        name="dev",
        system_prompt="You are a careful engineer. Enter plan mode and plan before changing anything.",
        model=model,
        toolkit=Toolkit(tools=[ReadFile(workspace), WriteFile(workspace), *plan.tools()]),
        middlewares=[plan.middleware()],
    )
    agent_ref.append(agent)
    print(f"Workspace: {workspace}")
    if tui:
        from planmode.agentscope.tui import launch_tui

        await launch_tui(agent)
    else:
        from planmode.agentscope.console import launch_console

        await launch_console(agent)
    status = plan_status(agent)
    print(f"plan_status: phase={status.phase} revision={status.revision} "
          f"approved_revision={status.approved_revision} exited_by={status.exited_by}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tui", action="store_true", help="AgentScope's full-screen TUI instead of the console")
    parser.add_argument("--workspace", type=Path, help="project directory (default: a fresh temporary one)")
    parser.add_argument("--model", choices=["openai", "dashscope"], help="a real model configured from env vars")
    args = parser.parse_args()
    if args.workspace:
        args.workspace.mkdir(parents=True, exist_ok=True)
        asyncio.run(main(args.workspace, args.tui, args.model))
    else:
        with tempfile.TemporaryDirectory() as tmp:
            asyncio.run(main(Path(tmp), args.tui, args.model))
