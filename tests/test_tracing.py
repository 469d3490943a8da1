"""The plan lifecycle in AgentScope's OpenTelemetry traces (PlanTracingMiddleware), read back from an
in-memory span exporter: a real Agent, AgentScope's own tracing spans, the scripted model."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from agentscope.agent import Agent
from agentscope.permission import PermissionMode
from agentscope.tool import Toolkit
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from planmode.agentscope import (
    PlanMode,
    PlanTracingMiddleware,
    ScriptedChatModel,
    answer_plan,
    call_tool,
    say,
)
from planmode.agentscope.demo_tools import ReadFile, WriteFile
from tests._plan_support import PLAN, confirm_request, run

EXPORTER = InMemorySpanExporter()


@pytest.fixture(scope="module", autouse=True)
def tracer_provider() -> None:
    """One SDK provider for the process (OpenTelemetry allows setting it once)."""
    provider = trace.get_tracer_provider()
    if not isinstance(provider, TracerProvider):
        provider = TracerProvider()
        trace.set_tracer_provider(provider)
    provider.add_span_processor(SimpleSpanProcessor(EXPORTER))


@pytest.fixture(autouse=True)
def clear() -> None:
    EXPORTER.clear()


def traced_agent(root: Path, script: list[Any]) -> Agent:
    plan = PlanMode(workspace_dir=root)
    return Agent(name="dev", system_prompt="plan first", model=ScriptedChatModel(script),
                 toolkit=Toolkit(tools=[WriteFile(root), ReadFile(root), *plan.tools()]),
                 middlewares=[plan.middleware(), PlanTracingMiddleware()])


def reply_spans() -> list[ReadableSpan]:
    """The agent reply spans, oldest first (AgentScope names them ``invoke_agent <name>``)."""
    return [s for s in EXPORTER.get_finished_spans() if s.name.startswith("invoke_agent")]


def events(span: ReadableSpan) -> list[tuple[str, dict[str, Any]]]:
    return [(e.name, dict(e.attributes or {})) for e in span.events if e.name.startswith("planmode.")]


async def test_the_whole_lifecycle_is_in_the_reply_spans(tmp_path: Path) -> None:
    agent = traced_agent(tmp_path, [
        call_tool("plan_enter", {}),
        call_tool("write_file", {"path": "a.py", "content": "x"}),
        call_tool("plan_write", {"content": PLAN}),
        call_tool("plan_exit", {"summary": "first"}),
        call_tool("plan_write", {"content": PLAN + "4. Roll back\n"}),
        call_tool("plan_exit", {"summary": "second"}),
        call_tool("write_file", {"path": "a.py", "content": "x"}),
        say("done"),
    ])
    request = confirm_request(await run(agent))
    assert request is not None
    first = reply_spans()
    assert len(first) == 1
    names = [n for n, _ in events(first[0])]
    assert names == ["planmode.entered", "planmode.gate_denied", "planmode.written", "planmode.exit_requested"]
    by_name = dict(events(first[0]))
    assert by_name["planmode.entered"]["planmode.actor"] == "model"
    assert by_name["planmode.gate_denied"]["planmode.tool_name"] == "write_file"
    assert by_name["planmode.gate_denied"]["planmode.phase"] == "planning"
    assert by_name["planmode.written"]["planmode.revision"] == 1
    assert by_name["planmode.exit_requested"]["planmode.revision"] == 1
    assert by_name["planmode.exit_requested"]["planmode.detail"] == "first"
    attributes = dict(first[0].attributes or {})
    assert attributes["planmode.phase"] == "awaiting_approval" and attributes["planmode.revision"] == 1
    assert attributes["planmode.plan_path"] == "plans/PLAN.md"
    # AgentScope's own spans are still there: the model calls and the tool executions
    assert any(s.name.startswith("execute_tool plan_write") for s in EXPORTER.get_finished_spans())
    assert any(s.name.startswith("chat") for s in EXPORTER.get_finished_spans())

    EXPORTER.clear()
    request = confirm_request(await run(agent, answer_plan(request, "request_changes", feedback="Add a rollback")))
    assert request is not None
    second = dict(events(reply_spans()[0]))
    assert second["planmode.decision"]["planmode.decision"] == "request_changes"
    assert second["planmode.decision"]["planmode.actor"] == "user"
    assert second["planmode.decision"]["planmode.feedback"] == "Add a rollback"
    assert second["planmode.decision"]["planmode.revision"] == 1
    assert second["planmode.written"]["planmode.revision"] == 2

    EXPORTER.clear()
    await run(agent, answer_plan(request, "approve", next_mode="accept_edits"))
    third = events(reply_spans()[0])
    names = [n for n, _ in third]
    assert "planmode.gate_denied" not in names  # the build phase: the write ran
    decision = dict(third)["planmode.decision"]
    assert decision["planmode.decision"] == "approve" and decision["planmode.actor"] == "user"
    assert decision["planmode.revision"] == 2
    change = dict(third)["planmode.mode_change"]
    assert change["planmode.to_mode"] == "accept_edits"
    assert names.count("planmode.mode_change") == 1  # audited once, not doubled by the mode watch
    assert dict(reply_spans()[0].attributes or {})["planmode.phase"] == "building"


async def test_a_plain_agent_gets_no_plan_events(tmp_path: Path) -> None:
    agent = traced_agent(tmp_path, [say("hello")])
    await run(agent)
    span = reply_spans()[0]
    assert events(span) == []
    assert not any(k.startswith("planmode.") for k in (span.attributes or {}))


async def test_a_mode_change_that_plan_mode_did_not_audit_is_still_traced(tmp_path: Path) -> None:
    agent_ref: list[Agent] = []

    def switch_mode(messages: Any, tools: Any) -> Any:  # something else changes the mode mid-reply
        agent_ref[0].state.permission_context.mode = PermissionMode.ACCEPT_EDITS
        return say("switched")

    agent = traced_agent(tmp_path, [switch_mode])
    agent_ref.append(agent)
    await run(agent)
    assert events(reply_spans()[0]) == [("planmode.mode_change", {
        "planmode.from_mode": "default", "planmode.to_mode": "accept_edits", "planmode.actor": "unknown"})]


async def test_tracing_off_changes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without an SDK provider AgentScope's middleware short-circuits, and so does planmode's."""
    import agentscope.middleware._tracing._trace as agentscope_trace

    monkeypatch.setattr(agentscope_trace, "_check_tracing_enabled", lambda: False)
    agent = traced_agent(tmp_path, [call_tool("plan_enter", {}), say("planning")])
    await run(agent)
    assert EXPORTER.get_finished_spans() == ()
