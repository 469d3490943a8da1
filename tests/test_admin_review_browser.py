"""The approval page in a real headless Chromium: load it, edit the plan, approve, and see the agent's state change."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from admin_fixtures import TOKEN, USER
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from devtools.nodes import AppNode, create_scripted_session, send_user_text, settled_in, wait_for
from devtools.scripted_app import say_step, script_message, tool_step

PLAN = "# Ship the parser\n\n1. Read `lexer.rs`\n2. Write the parser\n\n<script>alert('plan')</script>\n"
EDITED = "# Ship the parser (edited)\n\n1. Read `lexer.rs`\n2. Write the parser\n3. Fuzz it\n"
SCRIPT = [
    tool_step("plan_enter"),
    tool_step("plan_write", {"content": PLAN}),
    tool_step("todo_write", {"todos": [{"content": "Read lexer.rs", "status": "completed"},
                                       {"content": "Write the parser", "status": "in_progress"}]}),
    tool_step("TaskCreate", {"subject": "Read lexer.rs", "description": "tokens"}),
    tool_step("TaskCreate", {"subject": "Write the parser", "description": "grammar"}),
    tool_step("TaskUpdate", {"task_id": "2", "add_blocked_by": ["1"]}),
    tool_step("plan_exit", {"summary": "Parser plan"}),
    say_step("Building."),
]  # fmt: skip
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage")  # fmt: skip


@pytest.fixture(scope="module")
def browser() -> Iterator[webdriver.Chrome]:
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def test_edit_and_approve_in_chromium(one_node: AppNode, browser: webdriver.Chrome) -> None:
    with one_node.client(USER) as client:
        agent_id, session_id = create_scripted_session(client)
        send_user_text(client, agent_id, session_id, script_message(SCRIPT))
        before = wait_for(lambda: settled_in(client, agent_id, session_id, "awaiting_approval"), "the plan to park")

        browser.get(
            f"{one_node.url}/v1/admin/sessions/{session_id}/plan/review?agent_id={agent_id}&user_id={USER}"
        )
        assert browser.find_element(By.CSS_SELECTOR, "#plan h1").text == "Ship the parser"
        assert browser.find_element(By.CSS_SELECTOR, "#plan ol").text.splitlines() == ["Read lexer.rs",
                                                                                      "Write the parser"]  # fmt: skip
        assert "<script>alert('plan')</script>" in browser.find_element(By.ID, "plan").text  # shown, not run
        assert browser.find_element(By.ID, "phase").text == "awaiting_approval"
        assert browser.find_element(By.ID, "summary").text == "Parser plan"
        assert browser.find_element(By.ID, "todos").text.splitlines() == ["completed Read lexer.rs",
                                                                         "in_progress Write the parser"]  # fmt: skip
        levels = browser.find_elements(By.CSS_SELECTOR, "#task-graph .level")
        assert [level.find_element(By.TAG_NAME, "h3").text for level in levels] == ["Level 0", "Level 1"]
        assert "#1 Read lexer.rs" in levels[0].text
        assert "#2 Write the parser" in levels[1].text and "after #1" in levels[1].text
        audit = browser.find_element(By.ID, "audit").text
        assert "entered" in audit and "written" in audit and "exit_requested" in audit
        wait = WebDriverWait(browser, 30)
        result = browser.find_element(By.ID, "result")

        browser.find_element(By.ID, "token").send_keys("wrong-token")
        browser.find_element(By.ID, "btn-approve").click()
        wait.until(lambda _: result.text.startswith("Refused"))
        assert result.text == "Refused (403): the X-Admin-Token header is wrong"

        browser.find_element(By.ID, "token").clear()
        browser.find_element(By.ID, "token").send_keys(TOKEN)
        browser.find_element(By.ID, "actor").send_keys("reviewer-ruth")
        browser.find_element(By.ID, "btn-approve-edits").click()  # opens the editor
        editor = browser.find_element(By.ID, "editor")
        assert editor.is_displayed() and editor.get_property("value") == PLAN
        editor.clear()
        editor.send_keys(EDITED)
        browser.find_element(By.ID, "btn-approve-edits").click()
        wait.until(lambda _: result.text.startswith("Decision sent"))
        assert result.text == (
            f"Decision sent: approve_with_edits (revision {before['revision']}). The agent resumes."
        )

        after = wait_for(lambda: settled_in(client, agent_id, session_id, "building"), "the build phase")
        assert after["plan_content"] == EDITED
        assert after["revision"] == before["revision"] + 1
        decision = [entry for entry in after["audit"] if entry["kind"] == "decision"][-1]
        assert (decision["decision"], decision["actor"]) == ("approve_with_edits", "admin:reviewer-ruth")

        browser.refresh()
        assert browser.find_element(By.ID, "phase").text == "building"
        assert browser.find_element(By.CSS_SELECTOR, "#plan h1").text == "Ship the parser (edited)"
        assert "+3. Fuzz it" in browser.find_element(By.ID, "diff").text  # diff against the model's revision
        assert browser.find_elements(By.ID, "no-pending")
        errors = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
        assert [e for e in errors if "403" not in e["message"]] == []  # no CSP violation, no script error


def _parked_page(one_node: AppNode, browser: webdriver.Chrome, plan: str) -> tuple[str, str, dict]:
    with one_node.client(USER) as client:
        agent_id, session_id = create_scripted_session(client)
        script = [tool_step("plan_enter"), tool_step("plan_write", {"content": plan}), tool_step("plan_exit"),
                  say_step("Building.")]  # fmt: skip
        send_user_text(client, agent_id, session_id, script_message(script))
        view = wait_for(lambda: settled_in(client, agent_id, session_id, "awaiting_approval"), "the plan to park")
    return agent_id, session_id, view


def test_an_unreviewed_disk_edit_is_shown_with_its_diff_before_the_buttons(
    one_node: AppNode, browser: webdriver.Chrome
) -> None:
    agent_id, session_id, view = _parked_page(one_node, browser, PLAN)
    Path(view["disk"]["path"]).write_text(EDITED)
    browser.get(f"{one_node.url}/v1/admin/sessions/{session_id}/plan/review?agent_id={agent_id}&user_id={USER}")
    box = browser.find_element(By.ID, "disk-edit")
    assert "nobody has reviewed it" in box.text
    added = [e.text for e in box.find_elements(By.CSS_SELECTOR, "#disk-diff .add")]
    assert "+3. Fuzz it" in added
    sections = [s.get_attribute("id") or s.find_element(By.TAG_NAME, "h2").text
                for s in browser.find_elements(By.CSS_SELECTOR, "main > section")]  # fmt: skip
    assert sections.index("disk-edit") < sections.index("Decision")
    browser.find_element(By.ID, "token").send_keys(TOKEN)
    browser.find_element(By.ID, "btn-approve").click()
    result = browser.find_element(By.ID, "result")
    WebDriverWait(browser, 30).until(lambda _: result.text.startswith("Refused"))
    assert "Refused (409)" in result.text and "recorded as revision 2" in result.text


def test_the_page_notices_when_the_plan_changes_while_open(
    one_node: AppNode, browser: webdriver.Chrome
) -> None:
    agent_id, session_id, view = _parked_page(one_node, browser, PLAN)
    browser.get(f"{one_node.url}/v1/admin/sessions/{session_id}/plan/review?agent_id={agent_id}&user_id={USER}")
    changed = browser.find_element(By.ID, "changed")
    assert not changed.is_displayed()
    Path(view["disk"]["path"]).write_text(EDITED)  # someone edits the plan while the human reads it
    WebDriverWait(browser, 30).until(lambda _: changed.is_displayed())
    assert "The plan changed since this page was loaded" in changed.text
    assert browser.find_element(By.ID, "btn-approve").get_attribute("disabled") is not None


SCOPED_V1 = ("# Ship the parser\n\n1. Read `lexer.rs`\n2. Write the <b onmouseover=alert(3)>parser</b>\n"
             "3. Delete the old parser\n\n## Scope\n- `src/<img src=x onerror=alert(1)>.rs`\n"
             "- `$ cargo test <script>alert(2)</script>`\n")  # fmt: skip
SCOPED_V2 = SCOPED_V1.replace("1. Read `lexer.rs`\n2. Write the", "1. Write the").replace(
    "parser</b>\n", "parser</b> with its tests\n").replace(
    "3. Delete the old parser\n", "2. Read `lexer.rs`\n3. Fuzz the parser hard\n")


def test_scope_step_diff_and_progress_in_chromium(one_node: AppNode, browser: webdriver.Chrome) -> None:  # noqa: F811
    """The page shows the declared scope (hostile entries as text), the per-step diff against the revision
    last reviewed, approves with another scope typed into its fields (audited), then shows progress."""
    script = [tool_step("plan_enter"), tool_step("plan_write", {"content": SCOPED_V1}), tool_step("plan_exit"),
              tool_step("plan_write", {"content": SCOPED_V2}), tool_step("plan_exit"), say_step("Building.")]
    with one_node.client(USER) as client:
        agent_id, session_id = create_scripted_session(client)
        send_user_text(client, agent_id, session_id, script_message(script))
        wait_for(lambda: settled_in(client, agent_id, session_id, "awaiting_approval"), "the first plan to park")
        sent_back = client.post(f"/v1/admin/sessions/{session_id}/plan:decide", params={"agent_id": agent_id},
                                json={"revision": 1, "decision": "request_changes", "feedback": "reorder"},
                                headers={"X-Admin-Token": TOKEN})  # fmt: skip
        assert sent_back.status_code == 202, sent_back.text
        view = wait_for(lambda: (v := settled_in(client, agent_id, session_id, "awaiting_approval"))
                        and v["revision"] == 2 and v, "the second plan to park")  # fmt: skip
        declared = view["scope"]
        browser.get_log("browser")  # forget what earlier tests logged
        assert declared == {"paths": ["src/<img src=x onerror=alert(1)>.rs"],
                            "commands": ["cargo test <script>alert(2)</script>"]}  # fmt: skip

        browser.get(f"{one_node.url}/v1/admin/sessions/{session_id}/plan/review?agent_id={agent_id}&user_id={USER}")
        scope = browser.find_element(By.ID, "scope").text
        assert declared["paths"][0] in scope and "$ " + declared["commands"][0] in scope
        assert browser.find_elements(By.CSS_SELECTOR, "main img") == []
        assert browser.find_element(By.ID, "review-base").text == "1"
        rows = [row.text for row in browser.find_elements(By.CSS_SELECTOR, "#step-changes tbody tr")]
        kinds = {row.split()[0]: row.split()[1] for row in rows}
        assert set(kinds.values()) >= {"changed", "added", "removed"}, rows
        assert any("<b onmouseover=alert(3)>parser</b>" in row for row in rows)  # shown, not parsed
        paths = browser.find_element(By.ID, "scope-paths")
        assert paths.get_property("value") == declared["paths"][0]
        assert browser.find_element(By.ID, "scope-commands").get_property("value") == declared["commands"][0]
        paths.clear()
        paths.send_keys("src/parser.rs")
        browser.find_element(By.ID, "scope-commands").clear()
        assert browser.find_element(By.ID, "scope-mode").get_property("value") == "custom"
        browser.find_element(By.ID, "token").send_keys(TOKEN)
        browser.find_element(By.ID, "btn-approve").click()
        result = browser.find_element(By.ID, "result")
        WebDriverWait(browser, 30).until(lambda _: result.text.startswith("Decision sent"))

        after = wait_for(lambda: settled_in(client, agent_id, session_id, "building"), "the build phase")
        assert after["approved_scope"] == {"paths": ["src/parser.rs"], "commands": []}
        decision = [entry for entry in after["audit"] if entry["kind"] == "decision"][-1]
        assert decision["detail"].startswith("scope widened: added paths src/parser.rs; dropped paths src/<img")
        browser.refresh()
        progress = browser.find_element(By.ID, "progress").text.splitlines()
        assert [line.split()[1] for line in progress] == [step["status"] for step in after["progress"]]
        assert len(progress) == 3
        assert all(step["status"] in ("pending", "in_progress", "completed") for step in after["progress"])
        assert "src/parser.rs" in browser.find_element(By.ID, "approved-scope").text
        errors = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
        assert errors == []  # no CSP violation, no script error, nothing injected ran
