"""Plan -> approve -> build with an AgentScope agent, offline (scripted model, no API key).

    python examples/plan_mode_agent.py          # asks you to approve the plan
    python examples/plan_mode_agent.py --yes    # approves unattended

What you will see: the agent enters PLAN mode, reads code, is DENIED when it tries to edit,
writes its plan to plans/PLAN.md and asks for approval; after approval it builds, tracking
progress with todo_write; finally the plan_status of the run is printed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from agentscope.agent import Agent
from agentscope.event import RequireUserConfirmEvent
from agentscope.message import Msg, ToolCallBlock, ToolResultBlock, UserMsg
from agentscope.model import ChatResponse
from agentscope.tool import Toolkit

from planmode.agentscope import PlanMode, ScriptedChatModel, answer_plan, call_tool, plan_status, say
from planmode.agentscope.demo_tools import ReadFile, WriteFile
from planmode.agentscope.scripted import ScriptStep

APP = 'def signup(email: str, password: str) -> dict:\n    return {"email": email}\n'
PLAN = """# Plan: validate signup input

## Goal
Reject malformed emails and short passwords in `signup`.

## Steps
1. Add an email check to signup
2. Add a password length check
3. Add tests for both checks

## Risks
Existing callers that pass bad data will now get a ValueError.

## Verification
Run the new tests.
"""
FIXED = (
    'def signup(email: str, password: str) -> dict:\n'
    '    if "@" not in email:\n        raise ValueError("invalid email")\n'
    '    if len(password) < 8:\n        raise ValueError("password too short")\n'
    '    return {"email": email}\n'
)
TESTS = "import pytest\nfrom app import signup\n\ndef test_bad_email():\n    with pytest.raises(ValueError):\n        signup('x', 'longenough')\n"


def todos(*states: str) -> ChatResponse:
    """A todo_write turn over the plan's three steps with the given statuses."""
    steps = ["Add an email check to signup", "Add a password length check", "Add tests for both checks"]
    return call_tool("todo_write", {"todos": [{"content": c, "status": s} for c, s in zip(steps, states, strict=True)]})


def script(agent_ref: list[Agent]) -> list[ScriptStep]:
    """What the (scripted) model does; after the human answers it follows the plan's status."""

    def after_answer(messages: list[Msg], tools: list[dict[str, Any]] | None) -> ChatResponse:
        agent = agent_ref[0]
        if plan_status(agent).phase == "building":
            agent.model.extend([  # type: ignore[attr-defined]
                call_tool("write_file", {"path": "app.py", "content": FIXED}),
                todos("completed", "completed", "in_progress"),
                call_tool("write_file", {"path": "test_app.py", "content": TESTS}),
                todos("completed", "completed", "completed"),
                say("Done: signup now validates its input, with tests."),
            ])
            return todos("in_progress", "pending", "pending")
        return say("Understood - I stay in PLAN mode and will revise the plan with your feedback.")

    return [
        call_tool("plan_enter", {}),
        call_tool("read_file", {"path": "app.py"}),
        call_tool("write_file", {"path": "app.py", "content": FIXED}),
        call_tool("plan_write", {"content": PLAN}),
        call_tool("plan_exit", {"summary": "Validate email and password in signup, with tests."}),
        after_answer,
    ]


def _first_sentence(text: str, limit: int = 100) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    sentence = line.split(". ")[0].rstrip(".") + "." if ". " in line else line
    return sentence if len(sentence) <= limit else sentence[: limit - 3] + "..."


def _short(value: Any, limit: int = 30) -> str:
    """A tool argument on one short line: `"def signup(email: str, ..."`."""
    text = value if isinstance(value, str) else json.dumps(value)
    return json.dumps(text if len(text) <= limit else text[: limit - 3] + "...")


def show_new(agent: Agent, seen: set[str]) -> None:
    """Prints each new tool call with the first sentence of its result."""
    calls: dict[str, ToolCallBlock] = {}
    for msg in agent.state.context:
        for block in msg.content if isinstance(msg.content, list) else []:
            if isinstance(block, ToolCallBlock):
                calls[block.id] = block
            elif isinstance(block, ToolResultBlock) and block.id not in seen:
                seen.add(block.id)
                call = calls.get(block.id)
                args = json.loads(call.input) if call and call.input else {}
                shown = ", ".join(f"{k}={_short(v)}" for k, v in args.items()
                                  if not k.startswith("_") and k != "todos")
                text = block.output if isinstance(block.output, str) else "".join(
                    getattr(b, "text", "") for b in block.output)
                print(f"  {block.name}({shown})")
                print(f"    -> [{block.state}] {_first_sentence(text)}")
                if block.name == "todo_write":
                    print("\n".join("       " + line for line in text.splitlines()[1:]))


def ask_human(request: RequireUserConfirmEvent, agent: Agent, auto_yes: bool) -> Any:
    """Shows the plan and asks for a decision in the terminal."""
    status = plan_status(agent)
    print("\n" + "=" * 72)
    print(f"The agent asks you to approve its plan (revision {status.revision}, {status.plan_relpath}):\n")
    print((status.plan_content or "").rstrip())
    print("=" * 72)
    if auto_yes:
        print("Approve? [y]es / [c]hanges / [r]eject: y   (--yes)")
        return answer_plan(request, "approve")
    try:
        choice = input("Approve? [y]es / [c]hanges / [r]eject: ").strip().lower()
        if choice.startswith("y"):
            return answer_plan(request, "approve")
        feedback = input("Your feedback for the agent: ").strip() or None
    except EOFError:
        print("\nNo answer (stdin is closed): rejecting the plan. Run with --yes to approve unattended.")
        return answer_plan(request, "reject", feedback="No human answered the approval request.")
    return answer_plan(request, "request_changes" if choice.startswith("c") else "reject", feedback=feedback)


async def main(auto_yes: bool, workspace: Path) -> None:
    (workspace / "app.py").write_text(APP)
    plan = PlanMode(workspace_dir=workspace, plan_dir="plans")
    agent_ref: list[Agent] = []
    agent = Agent(
        name="dev",
        system_prompt="You are a careful engineer. Plan non-trivial changes before making them.",
        model=ScriptedChatModel(script(agent_ref)),
        toolkit=Toolkit(tools=[ReadFile(workspace), WriteFile(workspace), *plan.tools()]),
        middlewares=[plan.middleware()],  # plan mode's middleware goes FIRST
    )
    agent_ref.append(agent)
    print(f"Workspace: {workspace}\n\nUser: Add input validation to signup.\n")
    print("--- the agent plans (read-only) ---")
    seen: set[str] = set()
    inputs: Any = UserMsg(name="user", content="Add input validation to signup.")
    while inputs is not None:
        events = [e async for e in agent.reply_stream(inputs)]
        show_new(agent, seen)
        request = next((e for e in events if isinstance(e, RequireUserConfirmEvent)), None)
        inputs = ask_human(request, agent, auto_yes) if request else None
        if inputs is not None:
            print("\n--- the agent continues with your answer ---")
    final = agent.state.context[-1]
    print(f"\nAgent: {final.get_text_content()}")
    status = plan_status(agent)
    print("\nplan_status:")
    print(f"  outcome={status.outcome} phase={status.phase} revision={status.revision} "
          f"approved_revision={status.approved_revision} exited_by={status.exited_by}")
    print(f"  plan_path={status.plan_path}\n  sha256={(status.sha256 or '')[:12]}")
    for t in status.todos:
        print(f"  todo [{t['status']}] {t['content']}")
    print("  audit: " + ", ".join(a["kind"] + (f"({a['decision']})" if "decision" in a else "")
                                  for a in status.audit))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--yes", action="store_true", help="approve the plan without asking")
    parser.add_argument("--workspace", type=Path, help="project directory (default: a fresh temporary one)")
    args = parser.parse_args()
    if args.workspace:
        args.workspace.mkdir(parents=True, exist_ok=True)
        asyncio.run(main(args.yes, args.workspace))
    else:
        with tempfile.TemporaryDirectory(prefix="planmode-example-") as tmp:
            asyncio.run(main(args.yes, Path(tmp)))
    sys.exit(0)
