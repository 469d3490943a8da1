"""Plan -> approve -> build with a real model: AgentScope's own OpenAI-compatible or DashScope chat model.

    export OPENAI_API_KEY=sk-...                 # OpenAI, or any OpenAI-compatible server:
    export OPENAI_BASE_URL=http://localhost:8000/v1   #   (optional) vLLM, DeepSeek, a proxy ...
    python examples/real_model_agent.py --model openai

    export DASHSCOPE_API_KEY=sk-...              # Alibaba Cloud Model Studio (DashScope)
    python examples/real_model_agent.py --model dashscope

PLANMODE_MODEL names the model (default gpt-4.1-mini / qwen-plus). Without --model the first
provider whose key is set is used; with no key the script says which variables are missing and exits
with status 2. The plan review happens in AgentScope's console (planmode's plan review); --yes
approves the first plan unattended and sends one request instead of opening the console.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

PROVIDERS = {
    "openai": {"key": "OPENAI_API_KEY", "base_url": "OPENAI_BASE_URL", "default_model": "gpt-4.1-mini"},
    "dashscope": {"key": "DASHSCOPE_API_KEY", "base_url": "DASHSCOPE_BASE_URL", "default_model": "qwen-plus"},
}
TASK = "Add input validation to signup in app.py: reject emails without '@'. Plan it first."
APP = 'def signup(email: str, password: str) -> dict:\n    return {"email": email}\n'


class MissingConfiguration(SystemExit):
    """No usable provider configuration in the environment (exit status 2, with the reason)."""

    def __init__(self, message: str) -> None:
        super().__init__(2)
        self.message = message


def choose_provider(requested: str | None, env: dict[str, str]) -> str:
    """The provider to use: the requested one if its key is set, else the first with a key."""
    if requested is not None:
        key = PROVIDERS[requested]["key"]
        if not env.get(key):
            raise MissingConfiguration(f"--model {requested} needs {key} in the environment (it is not set)")
        return requested
    for name, spec in PROVIDERS.items():
        if env.get(spec["key"]):
            return name
    wanted = " or ".join(spec["key"] for spec in PROVIDERS.values())
    raise MissingConfiguration(
        f"no model API key found: set {wanted} (and optionally OPENAI_BASE_URL for an OpenAI-compatible "
        "server, PLANMODE_MODEL for the model name). To try planmode without a key: "
        "python examples/plan_mode_agent.py"
    )


def model_from_env(requested: str | None = None, env: dict[str, str] | None = None) -> Any:
    """AgentScope's chat model for the provider configured in ``env`` (default: ``os.environ``)."""
    env = dict(os.environ if env is None else env)
    name = choose_provider(requested, env)
    spec = PROVIDERS[name]
    model_name = env.get("PLANMODE_MODEL") or spec["default_model"]
    base_url = env.get(spec["base_url"]) or None
    if name == "openai":
        from agentscope.credential import OpenAICredential
        from agentscope.model import OpenAIChatModel

        return OpenAIChatModel(OpenAICredential(api_key=env[spec["key"]], base_url=base_url), model_name)
    from agentscope.credential import DashScopeCredential
    from agentscope.model import DashScopeChatModel

    fields: dict[str, Any] = {"api_key": env[spec["key"]]}
    if base_url:
        fields["base_url"] = base_url
    return DashScopeChatModel(DashScopeCredential(**fields), model_name)


async def main(workspace: Path, requested: str | None, auto_yes: bool) -> None:
    from agentscope.agent import Agent
    from agentscope.event import RequireUserConfirmEvent
    from agentscope.message import UserMsg
    from agentscope.tool import Toolkit

    from planmode.agentscope import PlanMode, answer_plan, plan_status
    from planmode.agentscope.console import launch_console
    from planmode.agentscope.demo_tools import ReadFile, WriteFile

    model = model_from_env(requested)
    (workspace / "app.py").write_text(APP)
    plan = PlanMode(workspace_dir=workspace, plan_dir="plans")
    agent = Agent(
        name="dev",
        system_prompt="You are a careful engineer. For any change, call plan_enter, investigate with "
                      "read_file, record the plan with plan_write, then call plan_exit and wait.",
        model=model,
        toolkit=Toolkit(tools=[ReadFile(workspace), WriteFile(workspace), *plan.tools()]),
        middlewares=[plan.middleware()],
    )
    print(f"Workspace: {workspace}  model: {type(model).__name__} {model.model}")
    if not auto_yes:
        await launch_console(agent)
    else:
        inputs: Any = UserMsg(name="user", content=TASK)
        answered = False
        while inputs is not None:
            events = [e async for e in agent.reply_stream(inputs)]
            request = next((e for e in events if isinstance(e, RequireUserConfirmEvent)), None)
            inputs = None
            if request is not None and not answered:
                print(f"approving revision {plan_status(agent).revision} (--yes)")
                inputs, answered = answer_plan(request, "approve"), True
        print(f"Agent: {agent.state.context[-1].get_text_content()}")
    status = plan_status(agent)
    print(f"plan_status: phase={status.phase} revision={status.revision} approved_revision={status.approved_revision}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", choices=sorted(PROVIDERS), help="the provider (default: the first with a key)")
    parser.add_argument("--yes", action="store_true", help="approve the first plan unattended (no console)")
    parser.add_argument("--workspace", type=Path, help="project directory (default: a fresh temporary one)")
    args = parser.parse_args()
    try:
        choose_provider(args.model, dict(os.environ))
    except MissingConfiguration as missing:
        print(f"real_model_agent: {missing.message}", file=sys.stderr)
        raise
    if args.workspace:
        args.workspace.mkdir(parents=True, exist_ok=True)
        asyncio.run(main(args.workspace, args.model, args.yes))
    else:
        with tempfile.TemporaryDirectory() as tmp:
            asyncio.run(main(Path(tmp), args.model, args.yes))
