// Plan review page: sends the human's decision to POST .../plan:decide and shows the answer, and polls
// GET .../plan to say when the plan changes while the page is open.
"use strict";
(function () {
  const page = document.getElementById("page");
  const changed = document.getElementById("changed");
  const POLL_MS = 2000;

  function differs(view) {
    const disk = view.disk || {};
    const pending = view.pending || {};
    const now = [view.revision, view.sha256, disk.sha256, pending.tool_call_id].map((v) => (v === null || v === undefined ? "" : String(v)));
    const then = [page.dataset.revision, page.dataset.sha, page.dataset.diskSha, page.dataset.pending];
    return now.some((value, index) => value !== then[index]);
  }

  async function poll() {
    if (page.dataset.decided) return; // our own decision changes the plan: nothing to warn about
    try {
      const response = await fetch(page.dataset.statusUrl, { headers: { "X-User-ID": page.dataset.user, Accept: "application/json" } });
      if (response.ok && differs(await response.json())) {
        changed.hidden = false;
        document.querySelectorAll("button[data-decision]").forEach((button) => { button.disabled = true; });
        return;
      }
    } catch (error) {
      // The server is unreachable for now: try again at the next tick.
    }
    window.setTimeout(poll, POLL_MS);
  }
  if (page && page.dataset.statusUrl) window.setTimeout(poll, POLL_MS);

  const form = document.getElementById("decide");
  if (!form) return;
  const result = document.getElementById("result");
  const field = (id) => document.getElementById(id).value;

  form.addEventListener("submit", (event) => event.preventDefault());

  async function decide(decision) {
    const body = { decision: decision, revision: Number(form.dataset.revision) };
    const feedback = field("feedback").trim();
    if (feedback) body.feedback = feedback;
    if (decision === "approve_with_edits") body.edited_plan = field("editor");
    const scopeMode = field("scope-mode");
    const lines = (id) => field(id).split("\n").map((line) => line.trim()).filter((line) => line);
    if (decision.startsWith("approve") && scopeMode === "none") body.scope = "none";
    if (decision.startsWith("approve") && scopeMode === "custom") {
      body.scope = { paths: lines("scope-paths"), commands: lines("scope-commands") };
    }
    const headers = {
      "Content-Type": "application/json",
      "X-Admin-Token": field("token"),
      "X-User-ID": form.dataset.user,
    };
    const actor = field("actor").trim();
    if (actor) headers["X-Actor"] = actor;
    result.textContent = "Sending…";
    result.className = "";
    try {
      const response = await fetch(form.dataset.url, { method: "POST", headers: headers, body: JSON.stringify(body) });
      const data = await response.json().catch(() => ({}));
      if (response.ok) {
        result.textContent = "Decision sent: " + decision + " (revision " + body.revision + "). The agent resumes.";
        result.className = "ok";
        if (page) page.dataset.decided = "1";
        form.querySelectorAll("button").forEach((button) => { button.disabled = true; });
      } else {
        const detail = typeof data.detail === "string" ? data.detail : JSON.stringify(data.detail);
        result.textContent = "Refused (" + response.status + "): " + detail;
        result.className = "error";
      }
    } catch (error) {
      result.textContent = "Could not reach the server: " + error;
      result.className = "error";
    }
  }

  ["scope-paths", "scope-commands"].forEach((id) => {
    document.getElementById(id).addEventListener("input", () => { document.getElementById("scope-mode").value = "custom"; });
  });

  form.querySelectorAll("button[data-decision]").forEach((button) => {
    button.addEventListener("click", () => {
      if (button.dataset.decision === "approve_with_edits") {
        const box = document.getElementById("edit-box");
        if (!box.open) { box.open = true; result.textContent = "Edit the plan, then press Approve with edits again."; return; }
      }
      decide(button.dataset.decision);
    });
  });
})();
