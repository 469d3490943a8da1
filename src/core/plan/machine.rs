//! The transitions of the plan-mode state machine:
//! never_entered -> planning -> awaiting_approval -> building (-> planning on re-entry).
//!
//! Every method checks everything before changing anything, so a refused call leaves the
//! state exactly as it was.

use super::actor::validate_actor;
use super::claim::{Channel, check_authority};
use super::content::{sha256_hex, validate_plan_text};
use super::error::{PlanError, PlanResult};
use super::grant::{Grant, check_grants};
use super::mode::validate_mode;
use super::scope_choice::{ScopeChoice, describe_change};
use super::state::{AuditEntry, AuditKind, Decision, Pending, Phase, PlanState, Revision};
use super::todo::{Todo, todos_from_steps};

/// Size limits applied by the machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Largest plan text, in bytes.
    pub max_plan_bytes: usize,
    /// How many revisions keep their full text (older ones keep only hash and metadata).
    pub max_revisions_kept: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_plan_bytes: super::content::DEFAULT_MAX_PLAN_BYTES,
            max_revisions_kept: DEFAULT_REVISIONS_KEPT,
        }
    }
}

/// Default number of revisions whose full text is kept.
pub const DEFAULT_REVISIONS_KEPT: usize = 20;

/// Longest feedback or summary accepted, in bytes.
pub const MAX_NOTE_BYTES: usize = 64 * 1024;

/// What `enter` did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EnterOutcome {
    /// First entry.
    Entered,
    /// Entered again after a build phase; the previous plan is kept.
    Reentered,
    /// Already in plan mode; nothing changed.
    AlreadyActive,
}

/// What `force_exit` did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ForceExit {
    /// Plan mode was not active; nothing changed.
    NotActive,
    /// Plan mode ended; `cancelled` is the approval request that was withdrawn, if any.
    Exited {
        /// The withdrawn approval request.
        cancelled: Option<Box<Pending>>,
    },
}

/// What `write` did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WriteOutcome {
    /// The latest revision number after the write.
    pub revision: u32,
    /// Its sha256.
    pub sha256: String,
    /// True when the text equals the latest revision (no new revision).
    pub unchanged: bool,
}

/// A human (or policy) answer to apply.
#[derive(Clone, Debug, Default)]
pub struct Answer {
    /// The decision.
    pub decision: Option<Decision>,
    /// Who answered.
    pub actor: String,
    /// Feedback for the model, verbatim.
    pub feedback: Option<String>,
    /// A replacement plan text from the human.
    pub edited_plan: Option<String>,
    /// The plan file's current text, when it differs from the latest revision (a human edit).
    pub file_text: Option<String>,
    /// The revision the answer is about; must equal the pending one when given.
    pub revision: Option<u32>,
    /// Permission mode to switch to on approval.
    pub next_mode: Option<String>,
    /// Allow rules granted with an approval (expire on the next entry).
    pub grants: Vec<Grant>,
    /// How the answer arrived (decides which actors, modes and grants it may carry).
    pub channel: Channel,
    /// Lets a chat answer switch the mode, grant rules or widen the scope (a deployment's opt-in).
    pub may_escalate: bool,
    /// The scope chosen for an approval, replacing the declared one (None: keep it).
    pub scope: Option<ScopeChoice>,
}

/// What a decision did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecisionOutcome {
    /// The decision as recorded (an approval with edits is `approve_with_edits`).
    pub decision: Decision,
    /// The latest revision after applying edits.
    pub revision: u32,
    /// Its sha256.
    pub sha256: String,
    /// True when a human edit became a new revision.
    pub edited: bool,
    /// The feedback, verbatim.
    pub feedback: Option<String>,
    /// The mode chosen with an approval.
    pub next_mode: Option<String>,
}

fn labels(grants: &[Grant]) -> String {
    grants.iter().map(Grant::label).collect::<Vec<_>>().join(", ")
}

fn check_note(note: Option<&str>, what: &str) -> PlanResult<()> {
    match note {
        Some(n) if n.len() > MAX_NOTE_BYTES => Err(PlanError::InvalidInput(format!(
            "{what} is {} bytes, over the limit of {MAX_NOTE_BYTES} bytes",
            n.len()
        ))),
        Some(n) if n.contains('\0') => Err(PlanError::InvalidInput(format!(
            "{what} contains a NUL character"
        ))),
        _ => Ok(()),
    }
}

impl PlanState {
    /// Enters plan mode (idempotent while active). Re-entry keeps the plan and its revisions.
    pub fn enter(&mut self, actor: &str, at: &str) -> PlanResult<EnterOutcome> {
        validate_actor(actor)?;
        let outcome = match self.phase {
            Phase::Planning | Phase::AwaitingApproval => return Ok(EnterOutcome::AlreadyActive),
            Phase::NeverEntered => EnterOutcome::Entered,
            Phase::Building => EnterOutcome::Reentered,
        };
        self.phase = Phase::Planning;
        self.approved_scope_choice = None;
        let mut e = AuditEntry::new(AuditKind::Entered, actor, at);
        e.revision = self.latest().map(|r| r.number);
        let expired = std::mem::take(&mut self.grants);
        self.scope_asks.clear(); // the scope ends with the plan: so do its questions
        if !expired.is_empty() {
            e.detail = Some(format!("grants expired: {}", labels(&expired)));
        }
        self.push_audit(e);
        Ok(outcome)
    }

    /// Records `text` as a new revision (while planning). Identical text adds nothing.
    pub fn write(&mut self, text: &str, actor: &str, at: &str, limits: &Limits) -> PlanResult<WriteOutcome> {
        validate_actor(actor)?;
        if self.phase != Phase::Planning {
            return Err(PlanError::Phase(match self.phase {
                Phase::AwaitingApproval => "the plan is awaiting approval; it cannot be rewritten now".into(),
                _ => "Not in PLAN mode: call plan_enter first, then record the plan with plan_write.".into(),
            }));
        }
        validate_plan_text(text, limits.max_plan_bytes, "plan content")?;
        Ok(self.add_revision(text, actor, false, at, limits))
    }

    /// Pushes a revision (text already validated) unless it equals the latest one.
    fn add_revision(
        &mut self,
        text: &str,
        actor: &str,
        edited: bool,
        at: &str,
        limits: &Limits,
    ) -> WriteOutcome {
        let sha = sha256_hex(text);
        if let Some(last) = self.latest()
            && last.sha256 == sha
        {
            return WriteOutcome {
                revision: last.number,
                sha256: sha,
                unchanged: true,
            };
        }
        let number = self.latest().map_or(1, |r| r.number + 1);
        let step_ids = super::step_ids::ids_for_new_revision(&self.revisions, text);
        self.revisions.push(Revision {
            number,
            sha256: sha.clone(),
            bytes: text.len() as u64,
            author: actor.to_string(),
            edited_by_user: edited,
            at: at.to_string(),
            content: Some(text.to_string()),
            step_ids,
        });
        let mut e = AuditEntry::new(AuditKind::Written, actor, at);
        e.revision = Some(number);
        if edited {
            e.detail = Some("edited by user".into());
        }
        self.push_audit(e);
        self.trim_revisions(limits.max_revisions_kept);
        WriteOutcome {
            revision: number,
            sha256: sha,
            unchanged: false,
        }
    }

    /// Records a human edit of the plan file found on disk (any phase with a plan). While
    /// awaiting approval the request moves to the new revision and an accepted answer about
    /// the old one is void: the human reviews the edit before anything is approved.
    pub fn record_file_edit(
        &mut self,
        text: &str,
        actor: &str,
        at: &str,
        limits: &Limits,
    ) -> PlanResult<WriteOutcome> {
        validate_actor(actor)?;
        validate_plan_text(text, limits.max_plan_bytes, "the edited plan file")?;
        let out = self.add_revision(text, actor, true, at, limits);
        if !out.unchanged
            && let Some(p) = self.pending.as_mut()
        {
            p.revision = out.revision;
            p.claim = None;
        }
        Ok(out)
    }

    /// True when `text` (the plan file's content) is a human edit: it differs from every
    /// recorded revision. A copy of an older revision (a node that missed later writes) is
    /// stale, not an edit, and so is a progress mirror (see `progress`).
    pub fn is_human_edit(&self, text: &str) -> bool {
        if self.latest().is_none() || text.trim().is_empty() {
            return false;
        }
        let sha = sha256_hex(text);
        !self.revisions.iter().any(|r| r.sha256 == sha) && !self.is_mirror(text)
    }

    /// Checks that `plan_exit` may ask for approval now; returns the revision to approve.
    pub fn check_exit(&self) -> PlanResult<u32> {
        match self.phase {
            Phase::Planning => self.latest().map(|r| r.number).ok_or_else(|| {
                PlanError::Phase(
                    "No plan has been written yet: record the complete plan with plan_write, then call \
                     plan_exit. No approval was requested."
                        .into(),
                )
            }),
            Phase::AwaitingApproval => {
                Err(PlanError::Phase("approval of the plan is already pending".into()))
            }
            Phase::NeverEntered | Phase::Building => Err(PlanError::Phase(
                "You are not in plan mode. plan_exit is only for asking approval of a plan written in plan \
                 mode. If your plan was already approved, continue with the implementation."
                    .into(),
            )),
        }
    }

    /// Parks `plan_exit` on approval of the latest revision.
    pub fn request_exit(
        &mut self,
        reply_id: &str,
        tool_call_id: &str,
        summary: Option<&str>,
        auto: bool,
        at: &str,
    ) -> PlanResult<u32> {
        let revision = self.check_exit()?;
        check_note(summary, "summary")?;
        self.pending = Some(Pending {
            reply_id: reply_id.to_string(),
            tool_call_id: tool_call_id.to_string(),
            revision,
            summary: summary.map(str::to_string),
            requested_at: at.to_string(),
            auto,
            claim: None,
        });
        self.phase = Phase::AwaitingApproval;
        let mut e = AuditEntry::new(AuditKind::ExitRequested, "model", at);
        e.revision = Some(revision);
        e.detail = summary.map(str::to_string);
        self.push_audit(e);
        Ok(revision)
    }

    /// Records a `plan_exit` refused before reaching a human (e.g. DONT_ASK: no human available).
    pub fn record_exit_refused(&mut self, reason: &str, at: &str) {
        let mut e = AuditEntry::new(AuditKind::ExitRefused, "policy", at);
        e.revision = self.latest().map(|r| r.number);
        e.detail = Some(reason.to_string());
        self.push_audit(e);
    }

    /// Judges an answer against the pending approval without changing anything: the one
    /// place that says what each decision requires and who may give it. Returns the
    /// decision and the pending request it answers.
    pub fn check_answer(&self, answer: &Answer, limits: &Limits) -> PlanResult<(Decision, Pending)> {
        let decision = answer
            .decision
            .ok_or_else(|| PlanError::InvalidInput("no decision given".into()))?;
        if decision == Decision::Cancel {
            return Err(PlanError::InvalidInput(
                "cancel is not an answer: use approve, approve_with_edits, request_changes or reject".into(),
            ));
        }
        validate_actor(&answer.actor)?;
        check_authority(
            answer.channel,
            &answer.actor,
            decision,
            answer.next_mode.as_deref(),
            &answer.grants,
            answer.may_escalate,
        )?;
        if answer.revision.is_some() && answer.file_text.is_some() {
            return Err(PlanError::InvalidInput(
                "an answer bound to a revision cannot carry a plan-file edit: record the edit first \
                 (it becomes a revision of its own to review)"
                    .into(),
            ));
        }
        check_note(answer.feedback.as_deref(), "feedback")?;
        if decision == Decision::RequestChanges
            && answer.feedback.as_deref().is_none_or(|f| f.trim().is_empty())
        {
            return Err(PlanError::InvalidInput(
                "request_changes needs feedback: say what to change".into(),
            ));
        }
        if answer.edited_plan.is_some() && !decision.approves() {
            return Err(PlanError::InvalidInput(format!(
                "an edited plan goes only with an approval (decision is {}): send the text as feedback, or \
                 approve_with_edits",
                decision.as_str()
            )));
        }
        if let Some(mode) = &answer.next_mode {
            validate_mode(mode)?;
            if !decision.approves() {
                return Err(PlanError::InvalidInput(format!(
                    "next_mode applies only to approvals, not to {}",
                    decision.as_str()
                )));
            }
        }
        check_grants(&answer.grants)?;
        if !answer.grants.is_empty() && !decision.approves() {
            return Err(PlanError::InvalidInput(format!(
                "grants apply only to approvals, not to {}",
                decision.as_str()
            )));
        }
        for (text, what) in [
            (&answer.file_text, "the edited plan file"),
            (&answer.edited_plan, "edited plan"),
        ] {
            if let Some(t) = text {
                validate_plan_text(t, limits.max_plan_bytes, what)?;
            }
        }
        let latest_sha = self.latest().map(|r| r.sha256.as_str());
        let differs = |t: &Option<String>| {
            t.as_deref()
                .is_some_and(|t| Some(sha256_hex(t).as_str()) != latest_sha)
        };
        if decision == Decision::ApproveWithEdits
            && !differs(&answer.edited_plan)
            && !differs(&answer.file_text)
        {
            return Err(PlanError::InvalidInput(format!(
                "approve_with_edits needs an edited plan that differs from revision {}: pass edited_plan, or \
                 approve",
                self.latest().map_or(0, |r| r.number)
            )));
        }
        // The answer is well-formed; does it fit the request it answers?
        let pending = self
            .pending
            .clone()
            .filter(|_| self.phase == Phase::AwaitingApproval)
            .ok_or_else(|| PlanError::Phase("no plan approval is pending".into()))?;
        if let Some(r) = answer.revision
            && r != pending.revision
        {
            return Err(PlanError::Phase(format!(
                "the answer is about revision {r} but revision {} is awaiting approval: review revision {} \
                 and decide again",
                pending.revision, pending.revision
            )));
        }
        self.check_answer_scope(answer, decision, pending.revision)?;
        Ok((decision, pending))
    }

    /// Applies the answer to the pending approval (after [`Self::check_answer`]).
    pub fn decide(&mut self, answer: &Answer, at: &str, limits: &Limits) -> PlanResult<DecisionOutcome> {
        let (decision, pending) = self.check_answer(answer, limits)?;
        let (declared, chosen) = self.answer_scopes(answer, pending.revision);
        // Checks done; apply.
        let before = self.latest().map(|r| r.number);
        for text in [&answer.file_text, &answer.edited_plan].into_iter().flatten() {
            self.add_revision(text, &answer.actor, true, at, limits);
        }
        let latest = self
            .latest()
            .cloned()
            .ok_or_else(|| PlanError::Phase("no plan written".into()))?;
        let edited = self.latest().map(|r| r.number) != before;
        let recorded = match decision {
            Decision::Approve | Decision::ApproveWithEdits if edited => Decision::ApproveWithEdits,
            Decision::ApproveWithEdits => Decision::Approve,
            d => d,
        };
        self.pending = None;
        if recorded.approves() {
            self.phase = Phase::Building;
            self.approved_revision = Some(latest.number);
            self.exited_by = Some(answer.actor.clone());
            self.grants = answer
                .grants
                .iter()
                .map(|g| Grant {
                    revision: latest.number,
                    ..g.clone()
                })
                .collect();
            self.approved_scope_choice = answer.scope.clone();
        } else {
            self.phase = Phase::Planning;
        }
        let mut e = AuditEntry::new(AuditKind::Decision, &answer.actor, at);
        e.revision = Some(if recorded.approves() {
            latest.number
        } else {
            pending.revision
        });
        e.decision = Some(recorded);
        e.feedback = answer.feedback.clone();
        e.to_mode = answer.next_mode.clone();
        if recorded.approves() {
            let granted = (!self.grants.is_empty()).then(|| format!("granted: {}", labels(&self.grants)));
            let scope = describe_change(declared.as_ref(), chosen.as_ref());
            let details: Vec<String> = granted.into_iter().chain(scope).collect();
            e.detail = (!details.is_empty()).then(|| details.join("; "));
        }
        self.push_audit(e);
        Ok(DecisionOutcome {
            decision: recorded,
            revision: latest.number,
            sha256: latest.sha256,
            edited,
            feedback: answer.feedback.clone(),
            next_mode: answer.next_mode.clone(),
        })
    }

    /// Ends plan mode without a human (programmatic/admin), cancelling a pending approval.
    /// Does nothing (and records nothing) when plan mode is not active.
    /// Refused while an accepted answer is being applied (its claim is live): the decision
    /// wins, and plan mode can be ended once it applied or its lease ran out.
    pub fn force_exit(&mut self, actor: &str, at: &str, now_unix: u64) -> PlanResult<ForceExit> {
        validate_actor(actor)?;
        if !self.phase.is_active() {
            return Ok(ForceExit::NotActive);
        }
        if let Some(c) = self.live_claim(now_unix) {
            return Err(PlanError::Phase(format!(
                "a decision is being applied ({} of revision {} by {} at {}): plan mode ends with it; \
                 exit again after it applied, or after its lease ends (unix time {})",
                c.decision.as_str(),
                c.revision.map_or_else(|| "?".into(), |r| r.to_string()),
                c.actor,
                c.at,
                c.expires_unix
            )));
        }
        let cancelled = self.pending.take();
        if let Some(p) = &cancelled {
            let mut e = AuditEntry::new(AuditKind::Decision, actor, at);
            e.revision = Some(p.revision);
            e.decision = Some(Decision::Cancel);
            e.detail = Some("plan mode ended without approval".into());
            self.push_audit(e);
        }
        self.phase = Phase::Building;
        self.exited_by = Some(actor.to_string());
        let mut e = AuditEntry::new(AuditKind::ForcedExit, actor, at);
        e.revision = self.latest().map(|r| r.number);
        self.push_audit(e);
        Ok(ForceExit::Exited {
            cancelled: cancelled.map(Box::new),
        })
    }

    /// Withdraws a pending approval without a decision (the parked reply was interrupted);
    /// the agent stays in plan mode. Returns false when nothing was pending.
    pub fn cancel_pending(&mut self, actor: &str, detail: &str, at: &str) -> PlanResult<bool> {
        validate_actor(actor)?;
        let Some(p) = self.pending.take() else {
            return Ok(false);
        };
        self.phase = Phase::Planning;
        let mut e = AuditEntry::new(AuditKind::Decision, actor, at);
        e.revision = Some(p.revision);
        e.decision = Some(Decision::Cancel);
        e.detail = Some(detail.to_string());
        self.push_audit(e);
        Ok(true)
    }

    /// Records a permission-mode change.
    pub fn record_mode_change(&mut self, actor: &str, from: &str, to: &str, at: &str) -> PlanResult<()> {
        validate_actor(actor)?;
        validate_mode(from)?;
        validate_mode(to)?;
        let mut e = AuditEntry::new(AuditKind::ModeChange, actor, at);
        e.from_mode = Some(from.to_string());
        e.to_mode = Some(to.to_string());
        self.push_audit(e);
        Ok(())
    }

    /// Records that the plan file was restored from state into the workspace.
    pub fn record_restored(&mut self, at: &str) {
        let mut e = AuditEntry::new(AuditKind::Restored, "system", at);
        e.revision = self.latest().map(|r| r.number);
        e.detail = self.plan_path.clone();
        self.push_audit(e);
    }

    /// The scope of the approved plan while building after an approval (not after a forced
    /// exit, and it ends when plan mode is entered again); None when it declares none.
    pub fn approved_scope(&self) -> Option<super::scope::Scope> {
        if !self.built_after_approval() {
            return None;
        }
        if let Some(choice) = &self.approved_scope_choice {
            return choice.scope();
        }
        let text = self.revision(self.approved_revision?)?.content.as_deref()?;
        super::scope::parse_scope(text)
    }

    /// Records a drift: `detail` says what was touched outside the approved scope; the step
    /// in progress (the `in_progress` todo's step id) is added to it.
    pub fn record_drift(&mut self, actor: &str, detail: &str, at: &str) -> PlanResult<()> {
        validate_actor(actor)?;
        let mut e = AuditEntry::new(AuditKind::Drift, actor, at);
        e.revision = self.approved_revision;
        let step = self
            .todos
            .iter()
            .find(|t| t.status == super::todo::TodoStatus::InProgress)
            .and_then(|t| t.step_id.as_deref());
        e.detail = Some(match step {
            Some(id) => format!("{detail} (step {id} in progress)"),
            None => detail.to_string(),
        });
        self.push_audit(e);
        Ok(())
    }

    /// Replaces the todo list (already validated by `parse_todos`); a todo given without a
    /// step id keeps the one of the current todo with the same content.
    pub fn set_todos(&mut self, mut todos: Vec<Todo>) {
        for t in todos.iter_mut().filter(|t| t.step_id.is_none()) {
            t.step_id = self
                .todos
                .iter()
                .find(|old| old.content.trim() == t.content.trim())
                .and_then(|old| old.step_id.clone());
        }
        self.todos = todos;
    }

    /// Seeds the todo list from the steps of the approved plan (with their ids) when it is empty.
    /// Returns true when todos were seeded.
    pub fn seed_todos_from_plan(&mut self) -> bool {
        if !self.todos.is_empty() {
            return false;
        }
        let steps = self
            .approved_revision
            .and_then(|n| self.revision(n))
            .and_then(super::step_ids::revision_steps)
            .unwrap_or_default();
        if steps.is_empty() {
            return false;
        }
        self.todos = todos_from_steps(&steps);
        true
    }

    /// Sets the owner key and plan path once; later calls keep the stored values.
    /// Also records `workspace_dir`, the directory the plan file lives in now.
    pub fn bind(&mut self, agent_key: &str, plan_path: &str, workspace_dir: &str) -> PlanResult<()> {
        super::path::check_relative(plan_path)?;
        if agent_key.trim().is_empty() || workspace_dir.is_empty() {
            return Err(PlanError::InvalidInput(
                "agent_key and workspace_dir must not be blank".into(),
            ));
        }
        if self.workspace_dir.as_deref() != Some(workspace_dir) {
            self.workspace_dir = Some(workspace_dir.to_string());
        }
        if self.agent_key.is_none() {
            self.agent_key = Some(agent_key.to_string());
        }
        if self.plan_path.is_none() {
            self.plan_path = Some(plan_path.to_string());
        }
        Ok(())
    }
}
