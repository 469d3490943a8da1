//! The plan-mode state of one agent, as stored (plain JSON) in
//! `agent.state.middle_context["planmode"]`, and its load-time validation.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::actor::validate_actor;
use super::content::sha256_hex;
use super::error::{PlanError, PlanResult};
use super::todo::{Todo, check_list};

/// The `agent.state.middle_context` key holding plan-mode state.
pub const STATE_KEY: &str = "planmode";

/// Version of the stored JSON format.
pub const STATE_VERSION: u32 = 1;

/// Where an agent stands in the plan -> approve -> build lifecycle.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Plan mode was never used.
    #[default]
    NeverEntered,
    /// Read-only planning.
    Planning,
    /// `plan_exit` is waiting for a human.
    AwaitingApproval,
    /// Plan mode ended (approved or forced); the agent may modify things.
    Building,
}

impl Phase {
    /// Every phase, in lifecycle order.
    pub const ALL: [Self; 4] = [
        Self::NeverEntered,
        Self::Planning,
        Self::AwaitingApproval,
        Self::Building,
    ];

    /// The stored name of the phase.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::NeverEntered => "never_entered",
            Self::Planning => "planning",
            Self::AwaitingApproval => "awaiting_approval",
            Self::Building => "building",
        }
    }

    /// True while plan mode restricts the agent (planning or awaiting approval).
    pub fn is_active(self) -> bool {
        matches!(self, Self::Planning | Self::AwaitingApproval)
    }
}

/// The human's answer to a plan (or a cancellation).
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// The plan is approved as written.
    Approve,
    /// The plan is approved after the human edited it.
    ApproveWithEdits,
    /// Keep planning and address the feedback.
    RequestChanges,
    /// The plan is rejected; keep planning.
    Reject,
    /// The request was withdrawn without a decision (interrupt or forced exit).
    Cancel,
}

impl Decision {
    /// Every decision, in the order the docs list them.
    pub const ALL: [Self; 5] = [
        Self::Approve,
        Self::ApproveWithEdits,
        Self::RequestChanges,
        Self::Reject,
        Self::Cancel,
    ];

    /// Parses a decision name.
    pub fn parse(s: &str) -> PlanResult<Self> {
        match s {
            "approve" => Ok(Self::Approve),
            "approve_with_edits" => Ok(Self::ApproveWithEdits),
            "request_changes" => Ok(Self::RequestChanges),
            "reject" => Ok(Self::Reject),
            "cancel" => Ok(Self::Cancel),
            other => Err(PlanError::InvalidInput(format!(
                "unknown decision {other:?}: use approve, approve_with_edits, request_changes, reject \
                 or cancel"
            ))),
        }
    }

    /// The stored name of the decision.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Approve => "approve",
            Self::ApproveWithEdits => "approve_with_edits",
            Self::RequestChanges => "request_changes",
            Self::Reject => "reject",
            Self::Cancel => "cancel",
        }
    }

    /// True for the two approvals.
    pub fn approves(self) -> bool {
        matches!(self, Self::Approve | Self::ApproveWithEdits)
    }
}

/// One version of the plan text.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Revision {
    /// 1, 2, 3... in write order.
    pub number: u32,
    /// sha256 (hex) of the text.
    pub sha256: String,
    /// Size of the text in bytes.
    pub bytes: u64,
    /// Who wrote it (`model`, or the human who edited it).
    pub author: String,
    /// True when a human edited the plan (passed in, or changed in the file).
    pub edited_by_user: bool,
    /// When it was recorded (RFC 3339, UTC).
    pub at: String,
    /// The text; `None` once pruned (only old revisions beyond the kept count).
    pub content: Option<String>,
    /// The id of each step of the text, in order (see `step_ids`); empty when it has none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub step_ids: Vec<String>,
}

/// A `plan_exit` call parked on human approval.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Pending {
    /// The reply that is parked.
    pub reply_id: String,
    /// The parked `plan_exit` tool call.
    pub tool_call_id: String,
    /// The revision the human is asked to approve.
    pub revision: u32,
    /// The model's summary, if any.
    pub summary: Option<String>,
    /// When approval was requested.
    pub requested_at: String,
    /// True when a policy (`auto_approve_in_bypass`) approves instead of a human.
    #[serde(default)]
    pub auto: bool,
    /// The accepted answer waiting to be applied, if one was accepted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claim: Option<super::claim::Claim>,
}

/// What an audit entry records.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum AuditKind {
    /// Plan mode was entered (or re-entered).
    Entered,
    /// A plan revision was recorded.
    Written,
    /// `plan_exit` asked for approval.
    ExitRequested,
    /// `plan_exit` was refused before reaching a human (e.g. no human available).
    ExitRefused,
    /// A human (or policy) answered.
    Decision,
    /// Plan mode was ended without approval (programmatic / admin).
    ForcedExit,
    /// The permission mode changed.
    ModeChange,
    /// The plan file was restored from state into the workspace.
    Restored,
    /// An answer was accepted and waits for the parked reply to apply it.
    DecisionClaimed,
    /// An accepted answer was not applied within its lease and no longer blocks a decision.
    ClaimExpired,
    /// In the build phase, a write or command outside the approved scope was attempted.
    Drift,
}

/// One line of the audit log.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct AuditEntry {
    /// What happened.
    pub kind: AuditKind,
    /// Who did it.
    pub actor: String,
    /// When (RFC 3339, UTC).
    pub at: String,
    /// The revision concerned, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision: Option<u32>,
    /// The decision, for `decision` entries.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision: Option<Decision>,
    /// The human's feedback, verbatim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub feedback: Option<String>,
    /// Previous permission mode, for `mode_change` entries.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from_mode: Option<String>,
    /// New permission mode (`mode_change`, or the mode chosen with an approval).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to_mode: Option<String>,
    /// Free-form detail.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// How many identical entries in a row this one stands for (repeated refusals are folded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u32>,
}

impl AuditEntry {
    /// An entry with only kind, actor and time set.
    pub fn new(kind: AuditKind, actor: &str, at: &str) -> Self {
        Self {
            kind,
            actor: actor.to_string(),
            at: at.to_string(),
            revision: None,
            decision: None,
            feedback: None,
            from_mode: None,
            to_mode: None,
            detail: None,
            count: None,
        }
    }
}

/// The terminal states a run can be classified into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Plan mode was never used.
    NeverEntered,
    /// In plan mode, a plan has been written.
    PlanningWithPlan,
    /// In plan mode, no plan written yet.
    PlanningWithoutPlan,
    /// Plan mode ended with a plan (approved, or forced after writing).
    ExitedWithPlan,
    /// Plan mode ended before any plan was written (forced exit).
    ExitedWithoutPlan,
}

impl Outcome {
    /// Every outcome, in lifecycle order.
    pub const ALL: [Self; 5] = [
        Self::NeverEntered,
        Self::PlanningWithPlan,
        Self::PlanningWithoutPlan,
        Self::ExitedWithPlan,
        Self::ExitedWithoutPlan,
    ];

    /// The public name of the outcome.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::NeverEntered => "never_entered",
            Self::PlanningWithPlan => "planning_with_plan",
            Self::PlanningWithoutPlan => "planning_without_plan",
            Self::ExitedWithPlan => "exited_with_plan",
            Self::ExitedWithoutPlan => "exited_without_plan",
        }
    }
}

/// Everything plan mode knows about one agent.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq, Default)]
#[serde(deny_unknown_fields)]
pub struct PlanState {
    /// Format version ([`STATE_VERSION`]).
    pub version: u32,
    /// Current phase.
    pub phase: Phase,
    /// Identity of the agent owning the plan file (random, set once).
    pub agent_key: Option<String>,
    /// Plan file path relative to the workspace (POSIX separators), set once.
    pub plan_path: Option<String>,
    /// The workspace directory the plan file was last used in (informational: another
    /// machine may use another directory).
    #[serde(default)]
    pub workspace_dir: Option<String>,
    /// Every plan revision, oldest first.
    pub revisions: Vec<Revision>,
    /// The revision approved last, if any.
    pub approved_revision: Option<u32>,
    /// The parked approval request, while awaiting approval.
    pub pending: Option<Pending>,
    /// The todo list.
    pub todos: Vec<Todo>,
    /// The audit log, oldest first.
    pub audit: Vec<AuditEntry>,
    /// Who ended plan mode last (approver or forcing actor).
    pub exited_by: Option<String>,
    /// Allow rules granted with the last approval; they expire on the next entry.
    #[serde(default)]
    pub grants: Vec<super::grant::Grant>,
    /// What bounding the state dropped so far.
    #[serde(default)]
    pub trimmed: super::bounds::Trimmed,
    /// Open questions about build-phase calls outside the approved scope (see `scope_ask`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scope_asks: Vec<super::scope_ask::ScopeAsk>,
    /// The scope the reviewer chose with the last approval, replacing the declared one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approved_scope_choice: Option<super::scope_choice::ScopeChoice>,
    /// The revision whose progress mirror was last written to the plan file (see `progress`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mirrored: Option<u32>,
    /// How much history this state keeps (configuration, not stored).
    #[serde(skip)]
    pub bounds: super::bounds::Bounds,
}

impl PlanState {
    /// A fresh state (never entered).
    pub fn new() -> Self {
        Self {
            version: STATE_VERSION,
            ..Self::default()
        }
    }

    /// Loads and validates stored JSON; `null` gives a fresh state.
    pub fn from_json(value: Value) -> PlanResult<Self> {
        if value.is_null() {
            return Ok(Self::new());
        }
        let state: Self = serde_json::from_value(value)
            .map_err(|e| PlanError::StateLoad(format!("plan-mode state is malformed: {e}")))?;
        state
            .check()
            .map_err(|e| PlanError::StateLoad(format!("plan-mode state is inconsistent: {e}")))?;
        Ok(state)
    }

    /// The stored JSON form.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// The latest revision, if any plan was written.
    pub fn latest(&self) -> Option<&Revision> {
        self.revisions.last()
    }

    /// A revision by number.
    pub fn revision(&self, number: u32) -> Option<&Revision> {
        self.revisions.iter().find(|r| r.number == number)
    }

    /// Which terminal state this run is in.
    pub fn outcome(&self) -> Outcome {
        let has_plan = !self.revisions.is_empty();
        match (self.phase, has_plan) {
            (Phase::NeverEntered, _) => Outcome::NeverEntered,
            (Phase::Planning | Phase::AwaitingApproval, true) => Outcome::PlanningWithPlan,
            (Phase::Planning | Phase::AwaitingApproval, false) => Outcome::PlanningWithoutPlan,
            (Phase::Building, true) => Outcome::ExitedWithPlan,
            (Phase::Building, false) => Outcome::ExitedWithoutPlan,
        }
    }

    /// Internal consistency rules of a loaded state.
    fn check(&self) -> Result<(), String> {
        if self.version != STATE_VERSION {
            return Err(format!(
                "unsupported version {} (expected {STATE_VERSION})",
                self.version
            ));
        }
        let mut prev = 0;
        for r in &self.revisions {
            if r.number <= prev {
                return Err(format!(
                    "revision numbers must increase, got {} after {prev}",
                    r.number
                ));
            }
            prev = r.number;
            if let Some(text) = &r.content
                && sha256_hex(text) != r.sha256
            {
                return Err(format!("revision {} content does not match its sha256", r.number));
            }
        }
        if self.latest().is_some_and(|r| r.content.is_none()) {
            return Err("the latest revision has no content".into());
        }
        match (&self.pending, self.phase) {
            (Some(p), Phase::AwaitingApproval) => {
                if self.revision(p.revision).is_none() {
                    return Err(format!("pending approval names unknown revision {}", p.revision));
                }
            }
            (Some(_), phase) => {
                return Err(format!(
                    "a pending approval cannot exist in phase {}",
                    phase.as_str()
                ));
            }
            (None, Phase::AwaitingApproval) => {
                return Err("phase awaiting_approval without a pending approval".into());
            }
            (None, _) => {}
        }
        if let Some(n) = self.approved_revision
            && self.revision(n).is_none()
        {
            return Err(format!("approved revision {n} does not exist"));
        }
        if let Some(p) = &self.plan_path {
            super::path::check_relative(p).map_err(|e| e.to_string())?;
        }
        for a in self
            .audit
            .iter()
            .map(|a| a.actor.as_str())
            .chain(self.exited_by.as_deref())
        {
            validate_actor(a).map_err(|e| e.to_string())?;
        }
        super::grant::check_grants(&self.grants).map_err(|e| e.to_string())?;
        super::scope_ask::check_asks(&self.scope_asks)?;
        check_list(&self.todos).map_err(|e| e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn null_is_fresh_and_round_trips() {
        let s = PlanState::from_json(Value::Null).unwrap();
        assert_eq!(s.phase, Phase::NeverEntered);
        assert_eq!(PlanState::from_json(s.to_json()).unwrap(), s);
        assert_eq!(s.outcome(), Outcome::NeverEntered);
    }

    #[test]
    fn refuses_malformed_and_inconsistent() {
        let bad = PlanState::from_json(json!({"phase": "flying"})).unwrap_err();
        assert!(matches!(bad, PlanError::StateLoad(_)), "{bad}");
        let mut s = PlanState::new();
        s.phase = Phase::AwaitingApproval;
        let err = PlanState::from_json(s.to_json()).unwrap_err().to_string();
        assert!(err.contains("without a pending approval"), "{err}");
        let mut v = PlanState::new().to_json();
        v["version"] = json!(9);
        assert!(
            PlanState::from_json(v)
                .unwrap_err()
                .to_string()
                .contains("unsupported version 9")
        );
        let mut v = PlanState::new().to_json();
        v["plan_path"] = json!("../x/PLAN.md");
        assert!(PlanState::from_json(v).unwrap_err().to_string().contains(".."));
    }

    #[test]
    fn detects_tampered_revision_text() {
        let mut s = PlanState::new();
        s.revisions.push(Revision {
            number: 1,
            sha256: sha256_hex("a"),
            bytes: 1,
            author: "model".into(),
            edited_by_user: false,
            at: "t".into(),
            content: Some("b".into()),
            step_ids: Vec::new(),
        });
        let err = PlanState::from_json(s.to_json()).unwrap_err().to_string();
        assert!(err.contains("does not match its sha256"), "{err}");
    }
}
