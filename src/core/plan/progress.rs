//! Progress mirrored into the plan file: while building after an approval, and while the approved
//! revision is the latest, the file shows it with each step's mark set from the todo carrying the
//! step (`[x]` completed, `[ ]` otherwise; a step no todo carries keeps its mark). The mirror is
//! not a revision: a file that differs from the mirrored revision only by marks is not a human
//! edit. Planning and awaiting approval show the plain revision (the review sees exactly the text
//! it approves); a human edit is never written over (once recorded it is the latest revision and
//! mirroring stops); re-entering plan mode ends the mirroring.

use super::state::{AuditKind, Decision, Phase, PlanState, Revision};
use super::steps::{parse_steps, set_marks, strip_marks};

impl PlanState {
    /// True while building after an approval (not after a forced exit; it ends when plan mode
    /// is entered again).
    pub fn built_after_approval(&self) -> bool {
        let last = self.audit.iter().rev().find(|a| {
            matches!(a.kind, AuditKind::Entered | AuditKind::ForcedExit)
                || (a.kind == AuditKind::Decision && a.decision.is_some_and(Decision::approves))
        });
        self.phase == Phase::Building
            && self.approved_revision.is_some()
            && last.is_some_and(|a| a.kind == AuditKind::Decision)
    }

    /// The revision whose text the plan file mirrors progress into, while it does.
    fn mirrored_source(&self) -> Option<&Revision> {
        self.built_after_approval()
            .then(|| self.latest())
            .flatten()
            .filter(|r| r.content.is_some() && Some(r.number) == self.approved_revision)
    }

    /// The approved revision's text with the todos' progress marked on its steps; None when
    /// progress is not mirrored now.
    pub fn mirror_text(&self) -> Option<String> {
        let revision = self.mirrored_source()?;
        let text = revision.content.as_deref()?;
        let ids = super::step_ids::revision_steps(revision).unwrap_or_default();
        let marks: Vec<_> = ids
            .iter()
            .map(|(id, _)| {
                self.todos
                    .iter()
                    .find(|t| t.step_id.as_deref() == Some(id))
                    .map(|t| t.status)
            })
            .collect();
        debug_assert_eq!(marks.len(), parse_steps(text).len());
        Some(set_marks(text, &marks))
    }

    /// What the plan file should hold: the progress mirror while there is one, else the latest
    /// revision's text.
    pub fn expected_file_text(&self) -> Option<String> {
        self.mirror_text()
            .or_else(|| self.latest().and_then(|r| r.content.clone()))
    }

    /// True when `text` differs only by marks from the revision mirrored now or the one
    /// mirrored last (a mirror, possibly of older progress, not a human edit).
    pub fn is_mirror(&self, text: &str) -> bool {
        let candidates = [
            self.mirrored_source(),
            self.mirrored.and_then(|n| self.revision(n)),
        ];
        let stripped = strip_marks(text);
        candidates
            .into_iter()
            .flatten()
            .filter_map(|r| r.content.as_deref())
            .any(|c| strip_marks(c) == stripped)
    }
}

#[cfg(test)]
mod tests {
    use super::super::machine::Limits;
    use super::super::path::Workspace;
    use super::super::state::Decision;
    use super::super::todo::TodoStatus;
    use super::super::{Answer, Channel};
    use super::*;

    const PLAN: &str = "# Plan\n\n1. Read the code\n2. Change the check\n- [ ] Run the tests\n";

    fn approved(dir: &std::path::Path) -> (PlanState, Workspace) {
        let ws = Workspace::open(dir).unwrap();
        let mut s = PlanState::new();
        s.bind("k", "plans/PLAN.md", "/w").unwrap();
        s.enter("model", "t").unwrap();
        s.write(PLAN, "model", "t", &Limits::default()).unwrap();
        ws.write_atomic("plans/PLAN.md", PLAN).unwrap();
        s.request_exit("r", "c", None, false, "t").unwrap();
        let answer = Answer {
            decision: Some(Decision::Approve),
            actor: "user".into(),
            channel: Channel::InProcess,
            ..Answer::default()
        };
        s.decide(&answer, "t", &Limits::default()).unwrap();
        assert!(s.seed_todos_from_plan());
        (s, ws)
    }

    const M: usize = 1 << 20;

    #[test]
    fn mirrors_progress_without_a_revision_and_keeps_ids() {
        let dir = tempfile_dir();
        let (mut s, ws) = approved(&dir);
        let ids_before = super::super::step_ids::steps_of(&s, None).unwrap();
        // Seeded: one in progress, nothing done yet: the file is the approved text.
        assert_eq!(s.mirror_progress(&ws, M).unwrap(), (false, false));
        s.todos[0].status = TodoStatus::Completed;
        s.todos[1].status = TodoStatus::InProgress;
        assert_eq!(s.mirror_progress(&ws, M).unwrap(), (true, false));
        let file = ws.read("plans/PLAN.md", M).unwrap().unwrap();
        assert_eq!(
            file,
            "# Plan\n\n1. [x] Read the code\n2. Change the check\n- [ ] Run the tests\n"
        );
        s.todos[1].status = TodoStatus::Completed;
        s.todos[2].status = TodoStatus::Completed;
        assert_eq!(s.mirror_progress(&ws, M).unwrap(), (true, false));
        let file = ws.read("plans/PLAN.md", M).unwrap().unwrap();
        assert_eq!(
            file,
            "# Plan\n\n1. [x] Read the code\n2. [x] Change the check\n- [x] Run the tests\n"
        );
        assert_eq!((s.revisions.len(), s.mirrored), (1, Some(1)));
        assert!(!s.is_human_edit(&file) && s.read_for_sync(&ws, M).unwrap().is_none());
        assert_eq!(s.inspect_file(&ws, M).unwrap().matches_state, Some(true));
        // The marks change no step: the ids read back are the revision's.
        assert_eq!(
            super::super::steps::numbered_steps(&file),
            super::super::steps::numbered_steps(PLAN)
        );
        let ids = super::super::step_ids::ids_for_new_revision(&s.revisions, &file);
        assert_eq!(ids, s.revisions[0].step_ids);
        assert_eq!(super::super::step_ids::steps_of(&s, None).unwrap(), ids_before);
        assert_eq!(
            s.mirror_progress(&ws, M).unwrap(),
            (false, false),
            "already shown"
        );
        // A human ticking or unticking a box is no edit; the next mirror puts the progress back.
        ws.write_atomic("plans/PLAN.md", PLAN).unwrap();
        assert!(!s.is_human_edit(PLAN));
        assert_eq!(s.mirror_progress(&ws, M).unwrap(), (true, false));
        // Any other edit is one, exactly as before: left alone, then recorded by sync.
        let edited = file.replace("Run the tests", "Run all the tests again");
        ws.write_atomic("plans/PLAN.md", &edited).unwrap();
        assert!(s.is_human_edit(&edited) && s.inspect_file(&ws, M).unwrap().edited_on_disk);
        assert_eq!(s.mirror_progress(&ws, M).unwrap(), (false, true));
        assert_eq!(
            ws.read("plans/PLAN.md", M).unwrap().as_deref(),
            Some(edited.as_str())
        );
        let out = s
            .record_file_edit(&edited, "user", "t", &Limits::default())
            .unwrap();
        assert!(out.revision == 2 && s.revisions[1].edited_by_user && s.approved_revision == Some(1));
        assert_eq!(
            s.revisions[1].step_ids, s.revisions[0].step_ids,
            "the edit keeps the ids"
        );
        // The latest revision is not the approved one any more: nothing is mirrored into it.
        assert_eq!(s.mirror_text(), None);
        assert_eq!(s.mirror_progress(&ws, M).unwrap(), (false, false));
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn re_entry_ends_the_mirroring() {
        let dir = tempfile_dir();
        let (mut s, ws) = approved(&dir);
        s.todos[0].status = TodoStatus::Completed;
        s.todos[1].status = TodoStatus::InProgress;
        s.mirror_progress(&ws, M).unwrap();
        s.enter("model", "t").unwrap();
        let file = ws.read("plans/PLAN.md", M).unwrap().unwrap();
        assert!(
            file.contains("[x]") && !s.is_human_edit(&file),
            "the old mirror is not an edit"
        );
        assert!(s.read_for_sync(&ws, M).unwrap().is_none());
        assert!(s.restore_file(&ws, M).unwrap(), "the plain text is put back");
        assert_eq!(ws.read("plans/PLAN.md", M).unwrap().as_deref(), Some(PLAN));
        assert_eq!(s.mirror_progress(&ws, M).unwrap(), (false, false));
        // While planning, ticking a box of a revision never mirrored is a human edit, as before.
        s.write("1. Another plan\n", "model", "t", &Limits::default())
            .unwrap();
        assert!(s.is_human_edit("1. [x] Another plan\n"));
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn an_unsafe_file_is_refused_and_nothing_changes() {
        let dir = tempfile_dir();
        let (mut s, ws) = approved(&dir);
        s.todos[0].status = TodoStatus::Completed;
        s.todos[1].status = TodoStatus::InProgress;
        let plan = dir.join("plans/PLAN.md");
        std::fs::hard_link(&plan, dir.join("other.md")).unwrap();
        let before = s.clone();
        let err = s.mirror_progress(&ws, M).unwrap_err();
        assert!(err.to_string().contains("hard links"), "{err}");
        assert_eq!(s, before);
        assert_eq!(std::fs::read_to_string(&plan).unwrap(), PLAN);
        let _ = std::fs::remove_dir_all(dir);
    }

    fn tempfile_dir() -> std::path::PathBuf {
        let n = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        let d = std::env::temp_dir().join(format!("planmode-progress-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    }
}
