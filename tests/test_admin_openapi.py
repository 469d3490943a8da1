"""The real app's OpenAPI schema documents every planmode admin route: its success response has a schema
(a pydantic model; the review page is text/html), its refusals are documented, and real responses of a
running node validate against the published schema."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

import httpx
import jsonschema
from admin_fixtures import TOKEN

from devtools.nodes import create_scripted_session, send_user_text, settled_in, wait_for
from devtools.scripted_app import planning_script, script_message
from planmode.agentscope import PlanStatus

PREFIX = "/v1/admin"
PLAN = "# Plan\n\n1. Fix `src/app.py`\n2. Run the tests\n\n## Scope\n- `src/**/*.py`\n"


def _spec(client: httpx.Client) -> dict[str, Any]:  # noqa: F811
    response = client.get("/openapi.json")
    assert response.status_code == 200, response.text
    spec: dict[str, Any] = response.json()
    return spec


def _success_schema(spec: dict[str, Any], path: str, method: str) -> dict[str, Any]:
    responses = spec["paths"][path][method]["responses"]
    code = next(c for c in responses if c.startswith("2"))
    return dict(responses[code]["content"]["application/json"]["schema"])


def _check(spec: dict[str, Any], path: str, method: str, body: Any) -> None:
    schema = {**_success_schema(spec, path, method), "components": spec["components"]}
    jsonschema.Draft202012Validator(schema).validate(body)


def test_every_planmode_route_documents_its_response(client: httpx.Client) -> None:  # noqa: F811
    spec = _spec(client)
    routes = [(path, method, op) for path, ops in spec["paths"].items() if path.startswith(PREFIX)
              for method, op in ops.items()]  # fmt: skip
    assert {path for path, _, _ in routes} == {
        f"{PREFIX}/sessions/{{session_id}}/plan", f"{PREFIX}/sessions/{{session_id}}:enter-plan-mode",
        f"{PREFIX}/sessions/{{session_id}}:exit-plan-mode", f"{PREFIX}/sessions/{{session_id}}/plan:restore-file",
        f"{PREFIX}/sessions/{{session_id}}/plan:decide", f"{PREFIX}/sessions/{{session_id}}/plan/review",
    }  # fmt: skip
    for path, method, op in routes:
        success = {code: r for code, r in op["responses"].items() if code.startswith("2")}
        assert len(success) == 1, (path, op["responses"])
        content = next(iter(success.values()))["content"]
        if path.endswith("/plan/review"):
            assert content["text/html"]["schema"] == {"type": "string"}
            continue
        ref = content["application/json"]["schema"].get("$ref", "")
        name = ref.rsplit("/", 1)[-1]
        assert ref.startswith("#/components/schemas/") and name in spec["components"]["schemas"], (path, content)
        assert spec["components"]["schemas"][name]["properties"], name
        codes = ("401", "403", "404", "409", "422") if method == "post" else ("404", "422")
        for code in codes:
            assert op["responses"][code]["content"]["application/json"]["schema"]["$ref"].endswith("/ErrorDetail")
        assert method == "post" or not {"401", "403"} & set(op["responses"]), "reads need no token"
    decide = spec["paths"][f"{PREFIX}/sessions/{{session_id}}/plan:decide"]["post"]
    assert decide["responses"]["202"]["content"]["application/json"]["schema"]["$ref"].endswith("/DecisionAccepted")
    view = spec["components"]["schemas"]["PlanView"]["properties"]
    assert {"scope", "approved_scope", "progress", "review_base", "review_changes", "disk"} <= set(view)


def test_real_responses_validate_against_the_schema(client: httpx.Client) -> None:  # noqa: F811
    spec = _spec(client)
    agent_id, session_id = create_scripted_session(client)
    send_user_text(client, agent_id, session_id, script_message(planning_script(PLAN)))
    parked = wait_for(lambda: settled_in(client, agent_id, session_id, "awaiting_approval"), "the plan to park")
    session = f"{PREFIX}/sessions/{{session_id}}"
    _check(spec, f"{session}/plan", "get", parked)
    assert {f.name for f in fields(PlanStatus)} <= set(parked), "the response model drops nothing plan_status has"
    write = {"params": {"agent_id": agent_id}, "headers": {"X-Admin-Token": TOKEN}}
    restored = client.post(f"{PREFIX}/sessions/{session_id}/plan:restore-file", **write)  # type: ignore[arg-type]
    assert restored.status_code == 200, restored.text
    _check(spec, f"{session}/plan:restore-file", "post", restored.json())
    decided = client.post(f"{PREFIX}/sessions/{session_id}/plan:decide", json={"revision": 1, "decision": "approve",
                          "scope": {"paths": ["src/app.py"]}}, **write)  # type: ignore[arg-type]  # fmt: skip
    assert decided.status_code == 202, decided.text
    _check(spec, f"{session}/plan:decide", "post", decided.json())
    assert decided.json()["scope"] == {"paths": ["src/app.py"], "commands": []}
    built = wait_for(lambda: settled_in(client, agent_id, session_id, "building"), "the build phase")
    _check(spec, f"{session}/plan", "get", built)
    for switch in ("enter", "exit"):
        answer = client.post(f"{PREFIX}/sessions/{session_id}:{switch}-plan-mode", **write)  # type: ignore[arg-type]
        assert answer.status_code == 200, answer.text
        _check(spec, f"{session}:{switch}-plan-mode", "post", answer.json())
    refused = client.post(f"{PREFIX}/sessions/{session_id}/plan:decide", json={"revision": 1, "decision": "approve"},
                          **write)  # type: ignore[arg-type]  # fmt: skip
    assert refused.status_code == 409
    error = {"$ref": "#/components/schemas/ErrorDetail", "components": spec["components"]}
    jsonschema.Draft202012Validator(error).validate(refused.json())
