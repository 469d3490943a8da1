//! Who may answer a plan, through which channel, and the decision claim that carries an
//! answer from the node that received it to the node that resumes the parked reply.
//!
//! Channels: `admin` (the admin API, behind its token), `in_process` (`answer_plan` in the
//! agent's own process) and `chat` (a confirmation sent by the session user through the app's
//! chat route). Only the first two may record admin/lead/policy actors, switch the permission
//! mode or grant rules; a chat answer is the session user's own and escalates nothing unless
//! the deployment opts in.

use serde::{Deserialize, Serialize};

use super::error::{PlanError, PlanResult};
use super::grant::Grant;
use super::machine::{Answer, Limits};
use super::state::{AuditEntry, AuditKind, Decision, PlanState};

/// How an answer reached plan mode.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum Channel {
    /// The admin API (token-guarded).
    Admin,
    /// Code in the agent's own process (`answer_plan`, policies).
    #[default]
    InProcess,
    /// A confirmation sent through the app's chat route by the session user.
    Chat,
}

impl Channel {
    /// Parses `admin`, `in_process` or `chat`.
    pub fn parse(s: &str) -> PlanResult<Self> {
        match s {
            "admin" => Ok(Self::Admin),
            "in_process" => Ok(Self::InProcess),
            "chat" => Ok(Self::Chat),
            other => Err(PlanError::InvalidInput(format!(
                "unknown answer channel {other:?}: use admin, in_process or chat"
            ))),
        }
    }

    /// The stored name of the channel.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Admin => "admin",
            Self::InProcess => "in_process",
            Self::Chat => "chat",
        }
    }
}

/// An accepted answer waiting to be applied by the resumed `plan_exit` call. It holds
/// everything the resuming node needs, so which node resumes does not change the outcome.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Claim {
    /// How the answer arrived.
    pub channel: Channel,
    /// The decision.
    pub decision: Decision,
    /// Who answered.
    pub actor: String,
    /// Feedback for the model, verbatim.
    #[serde(default)]
    pub feedback: Option<String>,
    /// The human's replacement plan text.
    #[serde(default)]
    pub edited_plan: Option<String>,
    /// The revision reviewed (None: in-process "edit on disk, then approve").
    #[serde(default)]
    pub revision: Option<u32>,
    /// sha256 of the reviewed revision.
    #[serde(default)]
    pub sha256: Option<String>,
    /// Permission mode to switch to on approval.
    #[serde(default)]
    pub next_mode: Option<String>,
    /// Allow rules granted with an approval.
    #[serde(default)]
    pub grants: Vec<Grant>,
    /// The scope chosen with an approval, replacing the declared one (None: keep it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<super::scope_choice::ScopeChoice>,
    /// When the claim was made (RFC 3339).
    pub at: String,
    /// Unix second after which an unapplied claim no longer blocks a new decision.
    pub expires_unix: u64,
}

impl Claim {
    /// True while the claim still blocks other decisions and forced exits.
    pub fn is_live(&self, now_unix: u64) -> bool {
        now_unix < self.expires_unix
    }
}

/// Longest lease a claim may ask for (one day).
pub const MAX_LEASE_SECS: u64 = 86_400;

/// The kind part of an actor (`admin` of `admin:alice`).
pub fn actor_kind(actor: &str) -> &str {
    actor.split_once(':').map_or(actor, |(k, _)| k)
}

/// Checks that `channel` may record this answer: a chat answer names a `user` actor and,
/// unless `may_escalate`, neither switches the permission mode nor grants rules; no channel
/// may answer as the `model`.
pub fn check_authority(
    channel: Channel,
    actor: &str,
    decision: Decision,
    next_mode: Option<&str>,
    grants: &[Grant],
    may_escalate: bool,
) -> PlanResult<()> {
    let kind = actor_kind(actor);
    if kind == "model" {
        return Err(PlanError::InvalidInput(
            "the model cannot answer its own plan: a human (or a policy) must decide".into(),
        ));
    }
    if channel != Channel::Chat {
        return Ok(());
    }
    if kind != "user" {
        return Err(PlanError::InvalidInput(format!(
            "an answer sent through the chat route is the session user's own; it cannot act as {actor:?}: \
             use the admin API for admin, lead or policy decisions"
        )));
    }
    let escalates = next_mode.is_some() || !grants.is_empty();
    if escalates && !may_escalate {
        return Err(PlanError::InvalidInput(format!(
            "a {} sent through the chat route cannot switch the permission mode or grant rules: use the \
             admin API or answer_plan in process (or opt in with chat_answers_may_escalate=True)",
            decision.as_str()
        )));
    }
    Ok(())
}

impl PlanState {
    /// The accepted answer of the pending approval while it still blocks others.
    pub fn live_claim(&self, now_unix: u64) -> Option<&Claim> {
        self.pending
            .as_ref()
            .and_then(|p| p.claim.as_ref())
            .filter(|c| c.is_live(now_unix))
    }

    /// Accepts an answer for the parked `plan_exit` call: judges it completely (as
    /// [`PlanState::decide`] would), then records it as the claim the resumed call applies.
    /// Refused while another accepted answer is live; an expired one is replaced (audited).
    /// `lease_secs` bounds how long an unapplied claim blocks a new decision.
    pub fn claim(
        &mut self,
        answer: &Answer,
        at: &str,
        now_unix: u64,
        lease_secs: u64,
        limits: &Limits,
    ) -> PlanResult<Claim> {
        if lease_secs == 0 || lease_secs > MAX_LEASE_SECS {
            return Err(PlanError::InvalidInput(format!(
                "lease_secs must be between 1 and {MAX_LEASE_SECS}, got {lease_secs}"
            )));
        }
        if let Some(c) = self.live_claim(now_unix) {
            return Err(PlanError::Phase(format!(
                "revision {} was already decided: {} by {} at {}; it is being applied",
                c.revision.map_or_else(|| "?".into(), |r| r.to_string()),
                c.decision.as_str(),
                c.actor,
                c.at
            )));
        }
        if answer.channel == Channel::Admin && answer.revision.is_none() {
            return Err(PlanError::InvalidInput(
                "a decision sent through the admin API names the revision it reviewed".into(),
            ));
        }
        let (decision, pending) = self.check_answer(answer, limits)?;
        let claim = Claim {
            channel: answer.channel,
            decision,
            actor: answer.actor.clone(),
            feedback: answer.feedback.clone(),
            edited_plan: answer.edited_plan.clone(),
            revision: answer.revision,
            sha256: answer
                .revision
                .and_then(|n| self.revision(n))
                .map(|r| r.sha256.clone()),
            next_mode: answer.next_mode.clone(),
            grants: answer.grants.clone(),
            scope: answer.scope.clone(),
            at: at.to_string(),
            expires_unix: now_unix.saturating_add(lease_secs),
        };
        if let Some(stale) = &pending.claim {
            let mut e = AuditEntry::new(AuditKind::ClaimExpired, "system", at);
            e.revision = stale.revision;
            e.decision = Some(stale.decision);
            e.detail = Some(format!(
                "{} by {} at {} was not applied",
                stale.decision.as_str(),
                stale.actor,
                stale.at
            ));
            self.push_audit(e);
        }
        if answer.channel == Channel::Admin {
            // Applied later, maybe on another node: the claim is part of the record.
            let mut e = AuditEntry::new(AuditKind::DecisionClaimed, &answer.actor, at);
            e.revision = Some(pending.revision);
            e.decision = Some(decision);
            self.push_audit(e);
        }
        if let Some(p) = self.pending.as_mut() {
            p.claim = Some(claim.clone());
        }
        Ok(claim)
    }

    /// Checks that `tool_call_id` is the exact `plan_exit` call parked on approval and that an
    /// accepted answer waits for it: only then may the resumed call apply a decision.
    pub fn check_resume(&self, tool_call_id: &str) -> PlanResult<&Claim> {
        let pending = self
            .pending
            .as_ref()
            .filter(|_| self.phase.is_active())
            .ok_or_else(|| {
                PlanError::Phase("no plan approval is pending, so there is nothing to confirm".into())
            })?;
        if pending.tool_call_id != tool_call_id {
            return Err(PlanError::Phase(format!(
                "plan_exit call {tool_call_id:?} is not the call parked on approval: only the human's answer \
                 to the parked request can end plan mode"
            )));
        }
        pending.claim.as_ref().ok_or_else(|| {
            PlanError::Phase(
                "the confirmation carried no accepted answer: the plan stays awaiting approval".into(),
            )
        })
    }

    /// The accepted answer as an [`Answer`] to apply, with the plan file's text when the
    /// answer is not bound to a revision (the in-process "edit on disk, then approve" flow).
    pub fn claimed_answer(&self, tool_call_id: &str, file_text: Option<String>) -> PlanResult<Answer> {
        let c = self.check_resume(tool_call_id)?;
        Ok(Answer {
            decision: Some(c.decision),
            actor: c.actor.clone(),
            feedback: c.feedback.clone(),
            edited_plan: c.edited_plan.clone(),
            file_text: if c.revision.is_none() { file_text } else { None },
            revision: c.revision,
            next_mode: c.next_mode.clone(),
            grants: c.grants.clone(),
            scope: c.scope.clone(),
            channel: c.channel,
            // The claim was judged when it was accepted.
            may_escalate: true,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chat_answers_are_the_users_own() {
        let g = [Grant {
            tool_name: "Bash".into(),
            rule_content: None,
            revision: 0,
        }];
        let ok = check_authority(Channel::Chat, "user:bob", Decision::Approve, None, &[], false);
        assert!(ok.is_ok());
        for (actor, mode, grants) in [
            ("admin:eve", None, &[][..]),
            ("policy", None, &[][..]),
            ("user:bob", Some("bypass"), &[][..]),
            ("user:bob", None, &g[..]),
        ] {
            let e = check_authority(Channel::Chat, actor, Decision::Approve, mode, grants, false);
            assert!(matches!(e, Err(PlanError::InvalidInput(_))), "{actor} {mode:?}");
        }
        assert!(
            check_authority(
                Channel::Chat,
                "user:bob",
                Decision::Approve,
                Some("bypass"),
                &g,
                true
            )
            .is_ok()
        );
        assert!(
            check_authority(
                Channel::Admin,
                "admin:x",
                Decision::Approve,
                Some("bypass"),
                &g,
                false
            )
            .is_ok()
        );
        assert!(check_authority(Channel::Admin, "model", Decision::Approve, None, &[], false).is_err());
    }

    #[test]
    fn channels_parse_and_claims_expire() {
        for c in ["admin", "in_process", "chat"] {
            assert_eq!(Channel::parse(c).unwrap().as_str(), c);
        }
        assert!(Channel::parse("http").is_err());
        assert_eq!(actor_kind("admin:alice"), "admin");
        assert_eq!(actor_kind("user"), "user");
    }
}
