//! `PlanBook`: the plan-mode state machine over the JSON stored in
//! `agent.state.middle_context["planmode"]`. Load it, apply one transition, store `to_state()`.

use pyo3::prelude::*;
use pyo3::types::PyDict;
use serde::Serialize;
use serde_json::{Value, json};

use super::text_arg;
use super::workspace::PyPlanWorkspace;
use crate::core::plan::bounds::{Bounds, DEFAULT_AUDIT_ENTRIES, DEFAULT_REVISION_RECORDS};
use crate::core::plan::content::DEFAULT_MAX_PLAN_BYTES;
use crate::core::plan::grant::Grant;
use crate::core::plan::machine::DEFAULT_REVISIONS_KEPT;
use crate::core::plan::machine::{DecisionOutcome, WriteOutcome};
use crate::core::plan::scope::parse_scope;
use crate::core::plan::scope_check;
use crate::core::plan::scope_choice::ScopeChoice;
use crate::core::plan::step_ids;
use crate::core::plan::{
    Answer, Channel, Decision, EnterOutcome, ForceExit, Limits, PlanResult, PlanState, clock, parse_todos,
};
use crate::py::convert::{to_json_value, to_py};
use crate::py::errors::{InvalidInput, StateLoad};
use crate::py::shared::Shared;

/// The plan-mode state of one agent with its transitions. Every method either applies
/// completely or raises and changes nothing. `at` (RFC 3339) defaults to now.
///
/// Safe to share between threads: calls on one book take turns (a caller waits with the GIL
/// released), so each sees and leaves a whole state; a call made from inside another call on
/// the same thread raises PlanModeError.
#[pyclass(module = "planmode._core", name = "PlanBook", frozen)]
pub struct PyPlanBook {
    inner: Shared<Book>,
}

/// The state and limits one `PlanBook` guards.
#[derive(Clone)]
struct Book {
    state: PlanState,
    limits: Limits,
}

fn ser<'py, T: Serialize>(py: Python<'py>, v: &T) -> PyResult<Bound<'py, PyAny>> {
    to_py(py, &serde_json::to_value(v).unwrap_or(Value::Null))
}

fn at_or_now(at: Option<String>) -> String {
    at.unwrap_or_else(clock::now_rfc3339)
}

fn opt_text(obj: Option<&Bound<'_, PyAny>>, what: &str) -> PyResult<Option<String>> {
    obj.filter(|o| !o.is_none())
        .map(|o| text_arg(o, what))
        .transpose()
}

/// An answer from the keyword arguments of `decide` / `claim` / `check_answer`, with its scope
/// choice still raw (read by [`with_scope`]).
#[allow(clippy::too_many_arguments)]
fn build_answer(
    decision: &str,
    actor: &str,
    feedback: Option<&Bound<'_, PyAny>>,
    edited_plan: Option<&Bound<'_, PyAny>>,
    file_text: Option<&Bound<'_, PyAny>>,
    revision: Option<u32>,
    next_mode: Option<String>,
    grants: Option<&Bound<'_, PyAny>>,
    channel: &str,
    may_escalate: bool,
    scope: Option<&Bound<'_, PyAny>>,
) -> PyResult<(Answer, Option<Value>)> {
    let scope = match scope.filter(|s| !s.is_none()) {
        Some(s) => Some(to_json_value(s, "scope")?),
        None => None,
    };
    let grants: Vec<Grant> = match grants.filter(|g| !g.is_none()) {
        Some(g) => serde_json::from_value(to_json_value(g, "grants")?).map_err(|e| {
            InvalidInput(format!(
                "grants must be a list of {{tool_name, rule_content?}} objects: {e}"
            ))
        })?,
        None => Vec::new(),
    };
    Ok(Answer {
        decision: Some(Decision::parse(decision)?),
        actor: actor.to_string(),
        feedback: opt_text(feedback, "feedback")?,
        edited_plan: opt_text(edited_plan, "edited plan")?,
        file_text: opt_text(file_text, "edited plan file")?,
        revision,
        next_mode,
        grants,
        channel: Channel::parse(channel)?,
        may_escalate,
        // Read against the workspace under the book's lock (see `with_scope`).
        scope: None,
    })
    .map(|a| (a, scope))
}

/// The answer with its scope choice read (an absolute path may name a file of the bound workspace).
fn with_scope(state: &PlanState, (mut answer, scope): (Answer, Option<Value>)) -> PlanResult<Answer> {
    if let Some(v) = scope {
        answer.scope = ScopeChoice::from_value(&v, state.workspace_dir.as_deref())?;
    }
    Ok(answer)
}

/// `{decision, revision, sha256, edited, feedback, next_mode}` of an applied decision.
fn outcome<'py>(py: Python<'py>, d: &DecisionOutcome) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    out.set_item("decision", d.decision.as_str())?;
    out.set_item("revision", d.revision)?;
    out.set_item("sha256", &d.sha256)?;
    out.set_item("edited", d.edited)?;
    out.set_item("feedback", &d.feedback)?;
    out.set_item("next_mode", &d.next_mode)?;
    Ok(out)
}

/// A transition that records a plan text as a revision (`write`, `record_file_edit`).
type Revise = fn(&mut PlanState, &str, &str, &str, &Limits) -> PlanResult<WriteOutcome>;

impl PyPlanBook {
    /// A book guarding `book`.
    fn holding(book: Book) -> Self {
        Self {
            inner: Shared::new(book, "PlanBook"),
        }
    }

    /// Applies `record` to `content` (a str, named `what` in errors) and returns
    /// `{revision, sha256, unchanged}`.
    fn revise<'py>(
        &self,
        py: Python<'py>,
        content: &Bound<'py, PyAny>,
        what: &str,
        actor: &str,
        at: Option<String>,
        record: Revise,
    ) -> PyResult<Bound<'py, PyAny>> {
        let text = text_arg(content, what)?;
        let mut b = self.inner.lock(py)?;
        let Book { state, limits } = &mut *b;
        let w = record(state, &text, actor, &at_or_now(at), limits)?;
        drop(b);
        to_py(
            py,
            &json!({"revision": w.revision, "sha256": w.sha256, "unchanged": w.unchanged}),
        )
    }
}

#[pymethods]
impl PyPlanBook {
    #[new]
    #[pyo3(signature = (state = None, *, max_plan_bytes = DEFAULT_MAX_PLAN_BYTES,
                        max_revisions_kept = DEFAULT_REVISIONS_KEPT,
                        max_revision_records = DEFAULT_REVISION_RECORDS,
                        max_audit_entries = DEFAULT_AUDIT_ENTRIES))]
    fn new(
        state: Option<&Bound<'_, PyAny>>,
        max_plan_bytes: usize,
        max_revisions_kept: usize,
        max_revision_records: usize,
        max_audit_entries: usize,
    ) -> PyResult<Self> {
        if max_plan_bytes == 0 || max_revisions_kept == 0 {
            return Err(
                InvalidInput("max_plan_bytes and max_revisions_kept must be at least 1".into()).into(),
            );
        }
        let bounds = Bounds::new(max_revision_records, max_audit_entries)?;
        let value = match state {
            Some(s) if !s.is_none() => {
                to_json_value(s, "plan-mode state").map_err(|e| StateLoad(e.to_string()))?
            }
            _ => Value::Null,
        };
        let mut state = PlanState::from_json(value)?;
        state.bounds = bounds;
        let limits = Limits {
            max_plan_bytes,
            max_revisions_kept,
        };
        Ok(Self::holding(Book { state, limits }))
    }

    /// The JSON-ready dict to store in `middle_context["planmode"]`.
    fn to_state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let b = self.inner.lock(py)?;
        to_py(py, &b.state.to_json())
    }

    /// An independent copy.
    fn copy(&self, py: Python<'_>) -> PyResult<Self> {
        let book = self.inner.lock(py)?.clone();
        Ok(Self::holding(book))
    }

    /// `never_entered`, `planning`, `awaiting_approval` or `building`.
    #[getter]
    fn phase(&self, py: Python<'_>) -> PyResult<&'static str> {
        let b = self.inner.lock(py)?;
        Ok(b.state.phase.as_str())
    }

    /// `never_entered`, `planning_with_plan`, `planning_without_plan`, `exited_with_plan`, `exited_without_plan`.
    #[getter]
    fn outcome(&self, py: Python<'_>) -> PyResult<&'static str> {
        let b = self.inner.lock(py)?;
        Ok(b.state.outcome().as_str())
    }

    /// True while planning or awaiting approval.
    #[getter]
    fn active(&self, py: Python<'_>) -> PyResult<bool> {
        let b = self.inner.lock(py)?;
        Ok(b.state.phase.is_active())
    }

    /// Latest revision number, or None before any plan.
    #[getter]
    fn revision(&self, py: Python<'_>) -> PyResult<Option<u32>> {
        let b = self.inner.lock(py)?;
        Ok(b.state.latest().map(|r| r.number))
    }

    /// sha256 of the latest revision.
    #[getter]
    fn sha256(&self, py: Python<'_>) -> PyResult<Option<String>> {
        let b = self.inner.lock(py)?;
        Ok(b.state.latest().map(|r| r.sha256.clone()))
    }

    /// Text of the latest revision.
    #[getter]
    fn plan_content(&self, py: Python<'_>) -> PyResult<Option<String>> {
        let b = self.inner.lock(py)?;
        Ok(b.state.latest().and_then(|r| r.content.clone()))
    }

    /// Workspace-relative plan file path (set once by `bind`).
    #[getter]
    fn plan_path(&self, py: Python<'_>) -> PyResult<Option<String>> {
        let b = self.inner.lock(py)?;
        Ok(b.state.plan_path.clone())
    }

    /// Owner key of the plan file (set once by `bind`).
    #[getter]
    fn agent_key(&self, py: Python<'_>) -> PyResult<Option<String>> {
        let b = self.inner.lock(py)?;
        Ok(b.state.agent_key.clone())
    }

    /// The revision approved last.
    #[getter]
    fn approved_revision(&self, py: Python<'_>) -> PyResult<Option<u32>> {
        let b = self.inner.lock(py)?;
        Ok(b.state.approved_revision)
    }

    /// Who ended plan mode last.
    #[getter]
    fn exited_by(&self, py: Python<'_>) -> PyResult<Option<String>> {
        let b = self.inner.lock(py)?;
        Ok(b.state.exited_by.clone())
    }

    /// The parked approval request as a dict, or None.
    #[getter]
    fn pending<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let b = self.inner.lock(py)?;
        ser(py, &b.state.pending)
    }

    /// Allow rules granted with the last approval (list of dicts); they expire on re-entry.
    #[getter]
    fn grants<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let b = self.inner.lock(py)?;
        ser(py, &b.state.grants)
    }

    /// The todo list (list of dicts).
    #[getter]
    fn todos<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let b = self.inner.lock(py)?;
        ser(py, &b.state.todos)
    }

    /// The audit log (list of dicts), oldest first.
    #[getter]
    fn audit<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let b = self.inner.lock(py)?;
        ser(py, &b.state.audit)
    }

    /// Every revision (list of dicts; `content` is None for pruned ones).
    #[getter]
    fn revisions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let b = self.inner.lock(py)?;
        ser(py, &b.state.revisions)
    }

    /// Sets the owner key and plan path once (later calls keep the stored values) and records
    /// the workspace directory in use.
    fn bind(&self, py: Python<'_>, agent_key: &str, plan_path: &str, workspace_dir: &str) -> PyResult<()> {
        let mut b = self.inner.lock(py)?;
        b.state
            .bind(agent_key, plan_path, workspace_dir)
            .map_err(PyErr::from)
    }

    /// The workspace directory the plan file was last used in.
    #[getter]
    fn workspace_dir(&self, py: Python<'_>) -> PyResult<Option<String>> {
        let b = self.inner.lock(py)?;
        Ok(b.state.workspace_dir.clone())
    }

    /// Enters plan mode: returns `entered`, `reentered` or `already_active`.
    #[pyo3(signature = (actor = "model", at = None))]
    fn enter(&self, py: Python<'_>, actor: &str, at: Option<String>) -> PyResult<&'static str> {
        let mut b = self.inner.lock(py)?;
        let out = b.state.enter(actor, &at_or_now(at))?;
        Ok(match out {
            EnterOutcome::Entered => "entered",
            EnterOutcome::Reentered => "reentered",
            EnterOutcome::AlreadyActive => "already_active",
        })
    }

    /// Records a plan revision (planning only): `{revision, sha256, unchanged}`.
    #[pyo3(signature = (content, actor = "model", at = None))]
    fn write<'py>(
        &self,
        py: Python<'py>,
        content: &Bound<'py, PyAny>,
        actor: &str,
        at: Option<String>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.revise(py, content, "plan content", actor, at, PlanState::write)
    }

    /// Records a human edit of the plan file as a revision marked edited by the user.
    #[pyo3(signature = (content, actor = "user", at = None))]
    fn record_file_edit<'py>(
        &self,
        py: Python<'py>,
        content: &Bound<'py, PyAny>,
        actor: &str,
        at: Option<String>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.revise(
            py,
            content,
            "edited plan file",
            actor,
            at,
            PlanState::record_file_edit,
        )
    }

    /// Raises PlanStateError unless `plan_exit` may ask for approval now; returns the revision.
    fn check_exit(&self, py: Python<'_>) -> PyResult<u32> {
        let b = self.inner.lock(py)?;
        b.state.check_exit().map_err(PyErr::from)
    }

    /// Parks `plan_exit` on approval of the latest revision; returns that revision.
    #[pyo3(signature = (reply_id, tool_call_id, summary = None, *, auto = false, at = None))]
    fn request_exit(
        &self,
        py: Python<'_>,
        reply_id: &str,
        tool_call_id: &str,
        summary: Option<&Bound<'_, PyAny>>,
        auto: bool,
        at: Option<String>,
    ) -> PyResult<u32> {
        let summary = opt_text(summary, "summary")?;
        let mut b = self.inner.lock(py)?;
        b.state
            .request_exit(reply_id, tool_call_id, summary.as_deref(), auto, &at_or_now(at))
            .map_err(PyErr::from)
    }

    /// Records a `plan_exit` refused before reaching a human.
    #[pyo3(signature = (reason, at = None))]
    fn record_exit_refused(&self, py: Python<'_>, reason: &str, at: Option<String>) -> PyResult<()> {
        let mut b = self.inner.lock(py)?;
        b.state.record_exit_refused(reason, &at_or_now(at));
        Ok(())
    }

    /// Applies the answer to the pending approval; returns
    /// `{decision, revision, sha256, edited, feedback, next_mode}`.
    #[pyo3(signature = (decision, actor = "user", *, feedback = None, edited_plan = None,
                        file_text = None, revision = None, next_mode = None, grants = None,
                        channel = "in_process", may_escalate = false, scope = None, at = None))]
    #[allow(clippy::too_many_arguments)]
    fn decide<'py>(
        &self,
        py: Python<'py>,
        decision: &str,
        actor: &str,
        feedback: Option<&Bound<'py, PyAny>>,
        edited_plan: Option<&Bound<'py, PyAny>>,
        file_text: Option<&Bound<'py, PyAny>>,
        revision: Option<u32>,
        next_mode: Option<String>,
        grants: Option<&Bound<'py, PyAny>>,
        channel: &str,
        may_escalate: bool,
        scope: Option<&Bound<'py, PyAny>>,
        at: Option<String>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let answer = build_answer(
            decision,
            actor,
            feedback,
            edited_plan,
            file_text,
            revision,
            next_mode,
            grants,
            channel,
            may_escalate,
            scope,
        )?;
        let mut b = self.inner.lock(py)?;
        let limits = b.limits;
        let answer = with_scope(&b.state, answer)?;
        let d = b.state.decide(&answer, &at_or_now(at), &limits)?;
        outcome(py, &d).map(Bound::into_any)
    }

    /// Judges an answer without changing anything (what `decide` or `claim` would refuse).
    #[pyo3(signature = (decision, actor = "user", *, feedback = None, edited_plan = None,
                        revision = None, next_mode = None, grants = None,
                        channel = "in_process", may_escalate = false, scope = None))]
    #[allow(clippy::too_many_arguments)]
    fn check_answer<'py>(
        &self,
        py: Python<'_>,
        decision: &str,
        actor: &str,
        feedback: Option<&Bound<'py, PyAny>>,
        edited_plan: Option<&Bound<'py, PyAny>>,
        revision: Option<u32>,
        next_mode: Option<String>,
        grants: Option<&Bound<'py, PyAny>>,
        channel: &str,
        may_escalate: bool,
        scope: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<()> {
        let answer = build_answer(
            decision,
            actor,
            feedback,
            edited_plan,
            None,
            revision,
            next_mode,
            grants,
            channel,
            may_escalate,
            scope,
        )?;
        let b = self.inner.lock(py)?;
        let answer = with_scope(&b.state, answer)?;
        b.state
            .check_answer(&answer, &b.limits)
            .map(|_| ())
            .map_err(PyErr::from)
    }

    /// Accepts an answer for the parked call (judged completely) and records it as the claim
    /// the resumed `plan_exit` applies; refused while another claim is live. Returns the claim.
    #[pyo3(signature = (decision, actor = "user", *, feedback = None, edited_plan = None,
                        revision = None, next_mode = None, grants = None, channel = "admin",
                        may_escalate = false, scope = None, lease_secs = 60, at = None))]
    #[allow(clippy::too_many_arguments)]
    fn claim<'py>(
        &self,
        py: Python<'py>,
        decision: &str,
        actor: &str,
        feedback: Option<&Bound<'py, PyAny>>,
        edited_plan: Option<&Bound<'py, PyAny>>,
        revision: Option<u32>,
        next_mode: Option<String>,
        grants: Option<&Bound<'py, PyAny>>,
        channel: &str,
        may_escalate: bool,
        scope: Option<&Bound<'py, PyAny>>,
        lease_secs: u64,
        at: Option<String>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let answer = build_answer(
            decision,
            actor,
            feedback,
            edited_plan,
            None,
            revision,
            next_mode,
            grants,
            channel,
            may_escalate,
            scope,
        )?;
        let mut b = self.inner.lock(py)?;
        let limits = b.limits;
        let answer = with_scope(&b.state, answer)?;
        let c = b
            .state
            .claim(&answer, &at_or_now(at), clock::now_unix(), lease_secs, &limits)?;
        ser(py, &c)
    }

    /// The live claim of the pending approval (dict), or None when none blocks a decision.
    #[getter]
    fn live_claim<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let b = self.inner.lock(py)?;
        ser(py, &b.state.live_claim(clock::now_unix()))
    }

    /// Raises PlanStateError unless `tool_call_id` is the parked `plan_exit` call and an
    /// accepted answer waits for it.
    fn check_resume(&self, py: Python<'_>, tool_call_id: &str) -> PyResult<()> {
        let b = self.inner.lock(py)?;
        b.state
            .check_resume(tool_call_id)
            .map(|_| ())
            .map_err(PyErr::from)
    }

    /// Applies the accepted answer of the parked call `tool_call_id`; `file_text` (the plan
    /// file's text) is used only when the answer is not bound to a revision.
    #[pyo3(signature = (tool_call_id, file_text = None, at = None))]
    fn apply_claim<'py>(
        &self,
        py: Python<'py>,
        tool_call_id: &str,
        file_text: Option<&Bound<'py, PyAny>>,
        at: Option<String>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let file_text = opt_text(file_text, "edited plan file")?;
        let mut b = self.inner.lock(py)?;
        let answer = b.state.claimed_answer(tool_call_id, file_text)?;
        let limits = b.limits;
        let d = b.state.decide(&answer, &at_or_now(at), &limits)?;
        let out = outcome(py, &d)?;
        out.set_item("actor", answer.actor)?;
        out.set_item("grants", ser(py, &answer.grants)?)?;
        Ok(out.into_any())
    }

    /// This node's plan file next to state (read only): `{path, exists, sha256, text,
    /// matches_state, edited_on_disk, error}`, or None when no plan path is bound.
    fn inspect_file<'py>(&self, py: Python<'py>, workspace: &PyPlanWorkspace) -> PyResult<Bound<'py, PyAny>> {
        let b = self.inner.lock(py)?;
        let max = b.limits.max_plan_bytes;
        let Some(v) = py.detach(|| b.state.inspect_file(workspace.inner(), max)) else {
            return Ok(py.None().into_bound(py));
        };
        to_py(
            py,
            &json!({"path": v.path, "exists": v.exists, "sha256": v.sha256, "text": v.text,
                    "matches_state": v.matches_state, "edited_on_disk": v.edited_on_disk, "error": v.error}),
        )
    }

    /// The plan file's text when it is a human edit (text no revision has), else None; raises when
    /// the file cannot be read safely (a symlink, not UTF-8, too big...).
    fn human_edit(&self, py: Python<'_>, workspace: &PyPlanWorkspace) -> PyResult<Option<String>> {
        let b = self.inner.lock(py)?;
        let max = b.limits.max_plan_bytes;
        py.detach(|| b.state.read_for_sync(workspace.inner(), max))
            .map_err(PyErr::from)
    }

    /// Records a human edit of this node's plan file (text no revision has) as a new revision
    /// marked edited by the user; while awaiting approval the request moves to it. Returns the
    /// new revision number, or None when the file holds no human edit (or is missing). Raises
    /// when the file cannot be read safely (a symlink, a hard link, not UTF-8, too big).
    #[pyo3(signature = (workspace, actor = "user", at = None))]
    fn sync_file(
        &self,
        py: Python<'_>,
        workspace: &PyPlanWorkspace,
        actor: &str,
        at: Option<String>,
    ) -> PyResult<Option<u32>> {
        let mut b = self.inner.lock(py)?;
        let max = b.limits.max_plan_bytes;
        let view = py.detach(|| b.state.read_for_sync(workspace.inner(), max))?;
        let Some(text) = view else {
            return Ok(None);
        };
        let limits = b.limits;
        let w = b.state.record_file_edit(&text, actor, &at_or_now(at), &limits)?;
        Ok(Some(w.revision))
    }

    /// Writes the latest revision (while building after an approval: its progress mirror) to this
    /// node's plan file when it is missing, a stale copy of an older revision or a mirror of other
    /// progress (never over a human edit); records it and returns True when it wrote.
    /// With `audit=False` nothing is recorded (the file follows a decision just recorded).
    #[pyo3(signature = (workspace, at = None, *, audit = true))]
    fn restore_file(
        &self,
        py: Python<'_>,
        workspace: &PyPlanWorkspace,
        at: Option<String>,
        audit: bool,
    ) -> PyResult<bool> {
        let mut b = self.inner.lock(py)?;
        let max = b.limits.max_plan_bytes;
        let state = &mut b.state;
        let wrote = py.detach(|| state.restore_file(workspace.inner(), max))?;
        if wrote && audit {
            b.state.record_restored(&at_or_now(at));
        }
        Ok(wrote)
    }

    /// Mirrors the todos' progress into this node's plan file while building after an approval
    /// of the latest revision (no new revision): completed steps ticked `[x]`. Returns `{wrote,
    /// human_edit}`; a file holding a human edit is left alone (`human_edit` True: `sync_file`
    /// records it). Does nothing in other phases. Raises, changing nothing, when the file cannot
    /// be read or written safely (a symlink, a hard link, not UTF-8, too big).
    fn mirror_progress<'py>(
        &self,
        py: Python<'py>,
        workspace: &PyPlanWorkspace,
    ) -> PyResult<Bound<'py, PyAny>> {
        let mut b = self.inner.lock(py)?;
        let max = b.limits.max_plan_bytes;
        let state = &mut b.state;
        let (wrote, human_edit) = py.detach(|| state.mirror_progress(workspace.inner(), max))?;
        drop(b);
        to_py(py, &json!({"wrote": wrote, "human_edit": human_edit}))
    }

    /// The text the plan file should hold: the latest revision, or while building after an
    /// approval its progress mirror (steps marked `[ ]`, `[~]`, `[x]`); None before any plan.
    #[getter]
    fn expected_file_text(&self, py: Python<'_>) -> PyResult<Option<String>> {
        let b = self.inner.lock(py)?;
        Ok(b.state.expected_file_text())
    }

    /// What bounding dropped: `{revision_texts, revision_records, audit_entries, folded_refusals}`.
    #[getter]
    fn trimmed<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let b = self.inner.lock(py)?;
        ser(py, &b.state.trimmed)
    }

    /// Ends plan mode without a human. Returns None when not active, else
    /// `{"cancelled": <pending dict or None>}`.
    #[pyo3(signature = (actor, at = None))]
    fn force_exit<'py>(
        &self,
        py: Python<'py>,
        actor: &str,
        at: Option<String>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let mut b = self.inner.lock(py)?;
        match b.state.force_exit(actor, &at_or_now(at), clock::now_unix())? {
            ForceExit::NotActive => Ok(py.None().into_bound(py)),
            ForceExit::Exited { cancelled } => {
                let d = PyDict::new(py);
                d.set_item("cancelled", ser(py, &cancelled)?)?;
                Ok(d.into_any())
            }
        }
    }

    /// Withdraws a pending approval (stays in plan mode); False when nothing was pending.
    #[pyo3(signature = (actor, detail, at = None))]
    fn cancel_pending(
        &self,
        py: Python<'_>,
        actor: &str,
        detail: &str,
        at: Option<String>,
    ) -> PyResult<bool> {
        let mut b = self.inner.lock(py)?;
        b.state
            .cancel_pending(actor, detail, &at_or_now(at))
            .map_err(PyErr::from)
    }

    /// Records a permission-mode change (mode values: default, accept_edits, explore, bypass, dont_ask).
    #[pyo3(signature = (actor, from_mode, to_mode, at = None))]
    fn record_mode_change(
        &self,
        py: Python<'_>,
        actor: &str,
        from_mode: &str,
        to_mode: &str,
        at: Option<String>,
    ) -> PyResult<()> {
        let mut b = self.inner.lock(py)?;
        b.state
            .record_mode_change(actor, from_mode, to_mode, &at_or_now(at))
            .map_err(PyErr::from)
    }

    /// Records that the plan file was restored from state.
    #[pyo3(signature = (at = None))]
    fn record_restored(&self, py: Python<'_>, at: Option<String>) -> PyResult<()> {
        let mut b = self.inner.lock(py)?;
        b.state.record_restored(&at_or_now(at));
        Ok(())
    }

    /// Replaces the todo list after validating it; returns the stored list.
    fn set_todos<'py>(&self, py: Python<'py>, todos: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let parsed = parse_todos(&to_json_value(todos, "todos")?)?;
        let mut b = self.inner.lock(py)?;
        b.state.set_todos(parsed);
        ser(py, &b.state.todos)
    }

    /// Seeds an empty todo list from the approved plan's steps (each todo carries its step id); True when seeded.
    fn seed_todos_from_plan(&self, py: Python<'_>) -> PyResult<bool> {
        let mut b = self.inner.lock(py)?;
        Ok(b.state.seed_todos_from_plan())
    }

    /// The steps of a revision (the latest by default) as `{id, text, status, files, action}`;
    /// `status` is the linked todo's (`None` when no todo carries the step); `files` and `action`
    /// are those written under the step (a structured plan renders them).
    #[pyo3(signature = (revision = None))]
    fn steps<'py>(&self, py: Python<'py>, revision: Option<u32>) -> PyResult<Bound<'py, PyAny>> {
        let b = self.inner.lock(py)?;
        let steps = step_ids::steps_of(&b.state, revision)?;
        let details = step_ids::details_of(&b.state, revision);
        let status = |id: &str| {
            b.state
                .todos
                .iter()
                .find(|t| t.step_id.as_deref() == Some(id))
                .map(|t| serde_json::to_value(t.status).unwrap_or(Value::Null))
        };
        let out: Vec<Value> = steps
            .iter()
            .enumerate()
            .map(|(i, (id, text))| {
                let (files, action) = details.get(i).cloned().unwrap_or_default();
                json!({"id": id, "text": text, "status": status(id), "files": files, "action": action})
            })
            .collect();
        to_py(py, &Value::Array(out))
    }

    /// The per-step diff (added / removed / changed / moved) from revision `old` (default: the
    /// one before `new`) to revision `new` (default: the latest).
    #[pyo3(signature = (old = None, new = None))]
    fn step_diff<'py>(
        &self,
        py: Python<'py>,
        old: Option<u32>,
        new: Option<u32>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let b = self.inner.lock(py)?;
        ser(py, &step_ids::diff_revisions(&b.state, old, new)?)
    }

    /// The approved plan's scope (`{paths, commands}`) while building after an approval; None
    /// when there is none (never approved, forced exit, planning again, or none declared).
    fn approved_scope<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let b = self.inner.lock(py)?;
        ser(py, &b.state.approved_scope())
    }

    /// The scope a revision (the latest by default) declares (`{paths, commands}`), or None.
    #[pyo3(signature = (revision = None))]
    fn declared_scope<'py>(&self, py: Python<'py>, revision: Option<u32>) -> PyResult<Bound<'py, PyAny>> {
        let b = self.inner.lock(py)?;
        let number = revision.or_else(|| b.state.latest().map(|r| r.number));
        let text = number
            .and_then(|n| b.state.revision(n))
            .and_then(|r| r.content.as_deref());
        ser(py, &text.and_then(parse_scope))
    }

    /// The revision to compare `revision` (the latest by default) with on review: the last one
    /// decided on before it, else the one before it; None for the first.
    #[pyo3(signature = (revision = None))]
    fn review_base(&self, py: Python<'_>, revision: Option<u32>) -> PyResult<Option<u32>> {
        let b = self.inner.lock(py)?;
        let number = revision.or_else(|| b.state.latest().map(|r| r.number));
        Ok(number.and_then(|n| b.state.review_base(n)))
    }

    /// True when the approved scope allows touching `path` (workspace-relative) or running
    /// `command`; `kind` is `"path"` or `"command"`. False when there is no approved scope.
    fn scope_allows(&self, py: Python<'_>, kind: &str, value: &str) -> PyResult<bool> {
        let b = self.inner.lock(py)?;
        let Some(scope) = b.state.approved_scope() else {
            return Ok(false);
        };
        match kind {
            "path" => Ok(scope.allows_path(value)),
            "command" => Ok(scope.allows_command(value)),
            other => Err(InvalidInput(format!(
                "unknown scope kind {other:?}: use \"path\" or \"command\""
            ))
            .into()),
        }
    }

    /// Records a drift entry in the audit log (`detail`: what was touched outside the scope).
    #[pyo3(signature = (detail, actor = "model", at = None))]
    fn record_drift(&self, py: Python<'_>, detail: &str, actor: &str, at: Option<String>) -> PyResult<()> {
        let mut b = self.inner.lock(py)?;
        b.state
            .record_drift(actor, detail, &at_or_now(at))
            .map_err(PyErr::from)
    }

    /// What a build-phase call would touch outside the approved scope (descriptions; empty:
    /// inside), judged on the disk under `workspace`: a shell `command`'s simple commands and
    /// redirections, else every path `tool_input` names; relative paths start at `base`
    /// (default: the workspace). None when there is no approved scope.
    #[pyo3(signature = (tool_input, workspace, *, command = None, base = None))]
    fn scope_outside(
        &self,
        py: Python<'_>,
        tool_input: &Bound<'_, PyAny>,
        workspace: &str,
        command: Option<&str>,
        base: Option<&str>,
    ) -> PyResult<Option<Vec<String>>> {
        let Some(scope) = self.inner.lock(py)?.state.approved_scope() else {
            return Ok(None);
        };
        let input = to_json_value(tool_input, "tool input")?;
        let (root, base) = (std::path::Path::new(workspace), base.map(std::path::Path::new));
        Ok(Some(py.detach(|| {
            scope_check::outside_parts(&scope, root, base, command, &input)
        })))
    }

    /// Records that the human is asked about the call `tool_call_id` (parked in reply
    /// `reply_id`) with `tool_input`, outside the approved scope.
    fn ask_scope(
        &self,
        py: Python<'_>,
        tool_call_id: &str,
        reply_id: &str,
        tool: &str,
        tool_input: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let input = to_json_value(tool_input, "tool input")?;
        self.inner
            .lock(py)?
            .state
            .ask_scope(tool_call_id, reply_id, tool, &input);
        Ok(())
    }

    /// Takes the human's confirmation of `tool_call_id` in reply `reply_id` for `tool` with
    /// `tool_input` (None: unreadable): accepted only for the question asked about that very
    /// call, tool and input. True when a question was answered or closed.
    fn answer_scope(
        &self,
        py: Python<'_>,
        tool_call_id: &str,
        reply_id: &str,
        tool: &str,
        tool_input: Option<&Bound<'_, PyAny>>,
        confirmed: bool,
    ) -> PyResult<bool> {
        let input = tool_input.and_then(|i| to_json_value(i, "tool input").ok());
        let mut b = self.inner.lock(py)?;
        Ok(b.state
            .answer_scope(tool_call_id, reply_id, tool, input.as_ref(), confirmed))
    }

    /// True (once) when the human allowed exactly this call of `tool` outside the approved scope.
    fn take_scope_pass(
        &self,
        py: Python<'_>,
        tool_call_id: &str,
        tool: &str,
        tool_input: &Bound<'_, PyAny>,
    ) -> PyResult<bool> {
        let input = to_json_value(tool_input, "tool input")?;
        Ok(self
            .inner
            .lock(py)?
            .state
            .take_scope_pass(tool_call_id, tool, &input))
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let b = self.inner.lock(py)?;
        let rev = b
            .state
            .latest()
            .map_or_else(|| "None".to_string(), |r| r.number.to_string());
        Ok(format!(
            "PlanBook(phase={:?}, revision={rev})",
            b.state.phase.as_str()
        ))
    }

    fn __getnewargs_ex__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyDict>)> {
        let b = self.inner.lock(py)?;
        let args = pyo3::types::PyTuple::new(py, [to_py(py, &b.state.to_json())?])?.into_any();
        let kw = PyDict::new(py);
        kw.set_item("max_plan_bytes", b.limits.max_plan_bytes)?;
        kw.set_item("max_revisions_kept", b.limits.max_revisions_kept)?;
        kw.set_item("max_revision_records", b.state.bounds.max_revision_records)?;
        kw.set_item("max_audit_entries", b.state.bounds.max_audit_entries)?;
        Ok((args, kw))
    }
}
