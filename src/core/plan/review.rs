//! Which revision a reviewer compares a plan revision with.

use super::state::{AuditKind, Decision, PlanState};

impl PlanState {
    /// The revision to compare `revision` with on review: the last one decided on (approved,
    /// sent back or rejected) before it, else the one before it; None for the first.
    pub fn review_base(&self, revision: u32) -> Option<u32> {
        self.audit
            .iter()
            .rev()
            .filter(|e| e.kind == AuditKind::Decision && e.decision.is_some_and(|d| d != Decision::Cancel))
            .filter_map(|e| e.revision)
            .find(|r| *r < revision)
            .or_else(|| {
                self.revisions
                    .iter()
                    .rev()
                    .map(|r| r.number)
                    .find(|n| *n < revision)
            })
    }
}

#[cfg(test)]
mod tests {
    use crate::core::plan::{Answer, Decision, Limits, PlanState};

    #[test]
    fn compares_with_the_last_reviewed_revision() {
        let (at, limits) = ("2026-01-01T00:00:00Z", Limits::default());
        let mut s = PlanState::new();
        s.enter("model", at).unwrap();
        s.write("# v1\n1. a\n", "model", at, &limits).unwrap();
        assert_eq!(s.review_base(1), None);
        s.request_exit("r", "c", None, false, at).unwrap();
        let answer = Answer {
            decision: Some(Decision::RequestChanges),
            actor: "user".into(),
            feedback: Some("more".into()),
            ..Answer::default()
        };
        s.decide(&answer, at, &limits).unwrap();
        s.write("# v2\n1. a\n", "model", at, &limits).unwrap();
        s.write("# v3\n1. a\n2. b\n", "model", at, &limits).unwrap();
        assert_eq!(s.review_base(3), Some(1));
        assert_eq!(s.review_base(2), Some(1));
    }
}
