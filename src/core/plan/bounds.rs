//! Keeps plan state bounded however many revisions, audit entries and refusals pile up:
//! full text for the latest, approved and pending revisions and the last K, metadata
//! (number, sha256, size) for the last R revisions, the last A audit entries, and repeated
//! refusals folded into one entry with a count. What was dropped is counted in [`Trimmed`].

use serde::{Deserialize, Serialize};

use super::error::{PlanError, PlanResult};
use super::state::{AuditEntry, AuditKind, PlanState};

/// Default number of revision records (metadata) kept.
pub const DEFAULT_REVISION_RECORDS: usize = 200;
/// Default number of audit entries kept.
pub const DEFAULT_AUDIT_ENTRIES: usize = 200;

/// How much history a state keeps (configuration; not stored).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    /// Revision records (number, sha256, size, author) kept; older ones are dropped.
    pub max_revision_records: usize,
    /// Audit entries kept; older ones are dropped.
    pub max_audit_entries: usize,
}

impl Default for Bounds {
    fn default() -> Self {
        Self {
            max_revision_records: DEFAULT_REVISION_RECORDS,
            max_audit_entries: DEFAULT_AUDIT_ENTRIES,
        }
    }
}

impl Bounds {
    /// Bounds with both counts at least 1 (an error names a zero).
    pub fn new(max_revision_records: usize, max_audit_entries: usize) -> PlanResult<Self> {
        if max_revision_records < 2 || max_audit_entries < 1 {
            return Err(PlanError::InvalidInput(
                "max_revision_records must be at least 2 and max_audit_entries at least 1".into(),
            ));
        }
        Ok(Self {
            max_revision_records,
            max_audit_entries,
        })
    }
}

/// Counts of what bounding dropped (stored with the state; `plan_status` shows it).
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Default)]
#[serde(deny_unknown_fields)]
pub struct Trimmed {
    /// Revisions whose text was dropped (their number, sha256 and size stay while recorded).
    #[serde(default)]
    pub revision_texts: u64,
    /// Revision records dropped entirely (the oldest).
    #[serde(default)]
    pub revision_records: u64,
    /// Audit entries dropped (the oldest).
    #[serde(default)]
    pub audit_entries: u64,
    /// Repeated refusals folded into the entry before them.
    #[serde(default)]
    pub folded_refusals: u64,
}

impl PlanState {
    /// Appends an audit entry, folding a refusal identical to the last entry into it, and
    /// drops the oldest entries beyond the bound.
    pub(super) fn push_audit(&mut self, entry: AuditEntry) {
        if entry.kind == AuditKind::ExitRefused
            && let Some(last) = self.audit.last_mut()
            && last.kind == entry.kind
            && last.detail == entry.detail
            && last.revision == entry.revision
            && last.actor == entry.actor
        {
            last.count = Some(last.count.unwrap_or(1).saturating_add(1));
            last.at = entry.at;
            self.trimmed.folded_refusals += 1;
            return;
        }
        self.audit.push(entry);
        let excess = self
            .audit
            .len()
            .saturating_sub(self.bounds.max_audit_entries.max(1));
        if excess > 0 {
            self.audit.drain(..excess);
            self.trimmed.audit_entries += excess as u64;
        }
    }

    /// Drops revision text beyond `keep_text` and revision records beyond the bound, never
    /// touching the latest, approved or pending revision.
    pub(super) fn trim_revisions(&mut self, keep_text: usize) {
        let protected = [
            self.approved_revision,
            self.pending.as_ref().map(|p| p.revision),
            self.latest().map(|r| r.number),
        ];
        let keep = |n: u32| protected.contains(&Some(n));
        let with_text = self.revisions.iter().filter(|r| r.content.is_some()).count();
        let mut excess = with_text.saturating_sub(keep_text.max(1));
        for r in &mut self.revisions {
            if excess == 0 {
                break;
            }
            if r.content.is_some() && !keep(r.number) {
                r.content = None;
                excess -= 1;
                self.trimmed.revision_texts += 1;
            }
        }
        let mut excess = self
            .revisions
            .len()
            .saturating_sub(self.bounds.max_revision_records.max(2));
        if excess > 0 {
            let before = self.revisions.len();
            self.revisions.retain(|r| {
                if excess > 0 && !keep(r.number) {
                    excess -= 1;
                    return false;
                }
                true
            });
            self.trimmed.revision_records += (before - self.revisions.len()) as u64;
        }
    }
}
