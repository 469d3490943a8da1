//! Lifecycle, atomicity and path-safety tests of the plan-mode core.

use std::fs;
use std::path::PathBuf;

use proptest::prelude::*;

use super::*;
use crate::core::plan::path::{normalize_plan_dir, plan_relpath};

const AT: &str = "2026-11-30T08:00:00Z";

fn limits() -> Limits {
    Limits {
        max_plan_bytes: 1000,
        max_revisions_kept: 3,
    }
}

fn answer(decision: Decision) -> Answer {
    Answer {
        decision: Some(decision),
        actor: "user".into(),
        ..Answer::default()
    }
}

fn planning_with(text: &str) -> PlanState {
    let mut s = PlanState::new();
    s.enter("model", AT).unwrap();
    s.write(text, "model", AT, &limits()).unwrap();
    s
}

fn awaiting(text: &str) -> PlanState {
    let mut s = planning_with(text);
    s.request_exit("r1", "c1", Some("sum"), false, AT).unwrap();
    s
}

#[test]
fn whole_lifecycle_and_reentry() {
    let mut s = PlanState::new();
    assert_eq!(s.outcome(), Outcome::NeverEntered);
    assert_eq!(s.enter("model", AT), Ok(EnterOutcome::Entered));
    assert_eq!(s.enter("model", AT), Ok(EnterOutcome::AlreadyActive));
    assert_eq!(s.outcome(), Outcome::PlanningWithoutPlan);
    let w = s.write("# Plan\n1. a", "model", AT, &limits()).unwrap();
    assert_eq!((w.revision, w.unchanged), (1, false));
    assert!(s.write("# Plan\n1. a", "model", AT, &limits()).unwrap().unchanged);
    assert_eq!(s.outcome(), Outcome::PlanningWithPlan);
    assert_eq!(s.request_exit("r1", "c1", None, false, AT), Ok(1));
    assert_eq!(s.phase, Phase::AwaitingApproval);
    let d = s.decide(&answer(Decision::Approve), AT, &limits()).unwrap();
    assert_eq!((d.decision, d.revision, d.edited), (Decision::Approve, 1, false));
    assert_eq!(
        (s.phase, s.approved_revision, s.exited_by.as_deref()),
        (Phase::Building, Some(1), Some("user"))
    );
    assert_eq!(s.outcome(), Outcome::ExitedWithPlan);
    assert_eq!(s.enter("user", AT), Ok(EnterOutcome::Reentered));
    let w = s.write("# Plan\n1. b", "model", AT, &limits()).unwrap();
    assert_eq!(w.revision, 2);
    let kinds: Vec<AuditKind> = s.audit.iter().map(|a| a.kind).collect();
    assert_eq!(
        kinds,
        [
            AuditKind::Entered,
            AuditKind::Written,
            AuditKind::ExitRequested,
            AuditKind::Decision,
            AuditKind::Entered,
            AuditKind::Written
        ]
    );
    assert_eq!(PlanState::from_json(s.to_json()).unwrap(), s);
}

#[test]
fn write_and_exit_refused_outside_planning() {
    let mut s = PlanState::new();
    let e = s.write("x", "model", AT, &limits()).unwrap_err();
    assert!(
        matches!(&e, PlanError::Phase(m) if m.contains("call plan_enter first")),
        "{e}"
    );
    assert!(
        s.check_exit()
            .unwrap_err()
            .to_string()
            .contains("You are not in plan mode")
    );
    s.enter("model", AT).unwrap();
    assert!(
        s.check_exit()
            .unwrap_err()
            .to_string()
            .contains("No plan has been written yet")
    );
    let before = s.clone();
    assert!(s.request_exit("r", "c", None, false, AT).is_err());
    assert_eq!(s, before);
}

#[test]
fn decisions_request_changes_reject_and_edits() {
    let mut s = awaiting("# v1");
    let mut a = answer(Decision::RequestChanges);
    a.feedback = Some("Add a rollback step.\n  verbatim ".into());
    let d = s.decide(&a, AT, &limits()).unwrap();
    assert_eq!(d.feedback.as_deref(), Some("Add a rollback step.\n  verbatim "));
    assert_eq!((s.phase, s.pending.is_none()), (Phase::Planning, true));
    assert_eq!(
        s.audit.last().unwrap().feedback.as_deref(),
        Some("Add a rollback step.\n  verbatim ")
    );

    s.request_exit("r2", "c2", None, false, AT).unwrap();
    s.decide(&answer(Decision::Reject), AT, &limits()).unwrap();
    assert_eq!(s.phase, Phase::Planning);

    s.request_exit("r3", "c3", None, false, AT).unwrap();
    let mut a = answer(Decision::Approve);
    a.edited_plan = Some("# v1 edited".into());
    a.next_mode = Some("accept_edits".into());
    let d = s.decide(&a, AT, &limits()).unwrap();
    assert_eq!(
        (d.decision, d.revision, d.edited),
        (Decision::ApproveWithEdits, 2, true)
    );
    let rev = s.latest().unwrap();
    assert!(rev.edited_by_user && rev.author == "user");
    assert_eq!(s.audit.last().unwrap().to_mode.as_deref(), Some("accept_edits"));
}

#[test]
fn file_edit_becomes_a_revision_and_approve_with_edits_needs_an_edit() {
    let mut s = awaiting("# v1");
    let mut a = answer(Decision::Approve);
    a.file_text = Some("# v1 + human".into());
    let d = s.decide(&a, AT, &limits()).unwrap();
    assert_eq!((d.decision, d.revision), (Decision::ApproveWithEdits, 2));
    let mut s = awaiting("# v1");
    let before = s.clone();
    for a in [answer(Decision::ApproveWithEdits), {
        let mut a = answer(Decision::ApproveWithEdits);
        a.edited_plan = Some("# v1".into());
        a
    }] {
        let e = s.decide(&a, AT, &limits()).unwrap_err();
        assert!(
            e.to_string().contains("approve_with_edits needs an edited plan"),
            "{e}"
        );
    }
    assert_eq!(s, before);
}

#[test]
fn what_each_decision_requires() {
    let s = awaiting("# v1");
    let mut rc = answer(Decision::RequestChanges);
    rc.feedback = Some("  ".into());
    let mut reject_edit = answer(Decision::Reject);
    reject_edit.edited_plan = Some("# mine".into());
    let mut rev_and_file = answer(Decision::Approve);
    rev_and_file.revision = Some(1);
    rev_and_file.file_text = Some("# disk".into());
    let mut chat_bypass = answer(Decision::Approve);
    chat_bypass.channel = Channel::Chat;
    chat_bypass.next_mode = Some("bypass".into());
    let mut chat_admin = answer(Decision::Approve);
    chat_admin.channel = Channel::Chat;
    chat_admin.actor = "admin:eve".into();
    for (a, why) in [
        (answer(Decision::RequestChanges), "request_changes needs feedback"),
        (rc, "request_changes needs feedback"),
        (reject_edit, "an edited plan goes only with an approval"),
        (answer(Decision::Cancel), "cancel is not an answer"),
        (rev_and_file, "cannot carry a plan-file edit"),
        (chat_bypass, "cannot switch the permission mode"),
        (chat_admin, "session user's own"),
    ] {
        let e = s.check_answer(&a, &limits()).unwrap_err().to_string();
        assert!(e.contains(why), "{why}: {e}");
    }
}

#[test]
fn a_claim_carries_the_answer_to_the_resuming_call_once() {
    let mut s = awaiting("# v1");
    let mut a = answer(Decision::Approve);
    a.channel = Channel::Admin;
    a.actor = "admin:alice".into();
    let e = s.claim(&a, AT, 100, 30, &limits()).unwrap_err().to_string();
    assert!(e.contains("names the revision"), "{e}");
    a.revision = Some(1);
    a.next_mode = Some("accept_edits".into());
    let c = s.claim(&a, AT, 100, 30, &limits()).unwrap();
    assert_eq!((c.revision, c.expires_unix), (Some(1), 130));
    assert!(
        s.clone()
            .claim(&a, AT, 129, 30, &limits())
            .unwrap_err()
            .to_string()
            .contains("already decided")
    );
    assert!(
        s.clone()
            .force_exit("admin", AT, 129)
            .unwrap_err()
            .to_string()
            .contains("being applied")
    );
    assert!(
        s.check_resume("other")
            .unwrap_err()
            .to_string()
            .contains("not the call parked")
    );
    // After the lease, a new decision replaces the stale one (audited).
    let mut later = s.clone();
    let mut b = a.clone();
    b.decision = Some(Decision::Reject);
    b.next_mode = None;
    later.claim(&b, AT, 130, 30, &limits()).unwrap();
    assert!(later.audit.iter().any(|e| e.kind == AuditKind::ClaimExpired));
    let answer = s
        .claimed_answer("c1", Some("# ignored: bound to a revision".into()))
        .unwrap();
    assert!(answer.file_text.is_none());
    let d = s.decide(&answer, AT, &limits()).unwrap();
    assert_eq!(
        (d.decision, d.revision, s.phase),
        (Decision::Approve, 1, Phase::Building)
    );
    assert!(s.check_resume("c1").is_err());
}

#[test]
fn an_edit_while_awaiting_moves_the_request_and_voids_the_claim() {
    let mut s = awaiting("# v1");
    let mut a = answer(Decision::Approve);
    a.channel = Channel::Admin;
    a.revision = Some(1);
    s.claim(&a, AT, 0, 30, &limits()).unwrap();
    assert!(s.is_human_edit("# v1 by hand"));
    assert!(!s.is_human_edit("# v1"));
    let w = s.record_file_edit("# v1 by hand", "user", AT, &limits()).unwrap();
    let p = s.pending.clone().unwrap();
    assert_eq!((w.revision, p.revision, p.claim.is_none()), (2, 2, true));
    let e = s.check_answer(&a, &limits()).unwrap_err().to_string();
    assert!(e.contains("revision 2 is awaiting approval"), "{e}");
    assert!(
        !s.is_human_edit("# v1"),
        "a copy of an older revision is stale, not an edit"
    );
}

#[test]
fn state_stays_bounded() {
    let mut s = PlanState::new();
    s.bounds = crate::core::plan::Bounds::new(5, 4).unwrap();
    s.enter("model", AT).unwrap();
    for i in 0..50 {
        s.write(&format!("# v{i}"), "model", AT, &limits()).unwrap();
    }
    for _ in 0..10 {
        s.record_exit_refused("DONT_ASK", AT);
    }
    assert_eq!(s.revisions.len(), 5);
    assert_eq!(s.revisions.iter().filter(|r| r.content.is_some()).count(), 3);
    assert_eq!(s.latest().unwrap().number, 50);
    assert_eq!(s.audit.len(), 4);
    let refusal = s.audit.last().unwrap();
    assert_eq!((refusal.kind, refusal.count), (AuditKind::ExitRefused, Some(10)));
    assert_eq!((s.trimmed.revision_records, s.trimmed.folded_refusals), (45, 9));
    assert_eq!(PlanState::from_json(s.to_json()).unwrap().trimmed, s.trimmed);
}

#[test]
fn refused_decisions_change_nothing() {
    let s0 = awaiting("# v1");
    let cases: Vec<(Answer, &str)> = vec![
        (
            Answer {
                revision: Some(7),
                ..answer(Decision::Approve)
            },
            "revision 7 but revision 1",
        ),
        (
            Answer {
                next_mode: Some("yolo".into()),
                ..answer(Decision::Approve)
            },
            "unknown permission mode",
        ),
        (
            Answer {
                next_mode: Some("bypass".into()),
                ..answer(Decision::Reject)
            },
            "only to approvals",
        ),
        (
            Answer {
                edited_plan: Some("  ".into()),
                ..answer(Decision::Approve)
            },
            "edited plan is empty",
        ),
        (
            Answer {
                actor: "bob".into(),
                ..answer(Decision::Approve)
            },
            "unknown actor",
        ),
        (
            Answer {
                feedback: Some("a\0b".into()),
                ..answer(Decision::Reject)
            },
            "NUL",
        ),
    ];
    for (a, want) in cases {
        let mut s = s0.clone();
        let e = s.decide(&a, AT, &limits()).unwrap_err().to_string();
        assert!(e.contains(want), "{e} should contain {want}");
        assert_eq!(s, s0);
    }
    let mut s = planning_with("# v1");
    assert!(
        s.decide(&answer(Decision::Approve), AT, &limits())
            .unwrap_err()
            .to_string()
            .contains("no plan approval is pending")
    );
}

#[test]
fn force_exit_and_cancel() {
    let mut s = awaiting("# v1");
    let ForceExit::Exited { cancelled } = s.force_exit("admin:alice", AT, 0).unwrap() else {
        panic!()
    };
    assert_eq!(cancelled.unwrap().tool_call_id, "c1");
    assert_eq!(
        (s.phase, s.exited_by.as_deref()),
        (Phase::Building, Some("admin:alice"))
    );
    assert_eq!(s.force_exit("admin", AT, 0).unwrap(), ForceExit::NotActive);
    let mut s = PlanState::new();
    s.enter("api", AT).unwrap();
    s.force_exit("api", AT, 0).unwrap();
    assert_eq!(s.outcome(), Outcome::ExitedWithoutPlan);
    let mut s = awaiting("# v1");
    assert!(s.cancel_pending("user", "interrupted", AT).unwrap());
    assert_eq!(s.phase, Phase::Planning);
    assert!(!s.cancel_pending("user", "again", AT).unwrap());
}

#[test]
fn prunes_old_revision_texts_but_keeps_hashes() {
    let mut s = PlanState::new();
    s.enter("model", AT).unwrap();
    for i in 0..6 {
        s.write(&format!("# v{i}"), "model", AT, &limits()).unwrap();
    }
    let kept = s.revisions.iter().filter(|r| r.content.is_some()).count();
    assert_eq!((s.revisions.len(), kept), (6, 3));
    assert!(s.latest().unwrap().content.is_some());
    assert_eq!(PlanState::from_json(s.to_json()).unwrap(), s);
}

#[test]
fn seeds_todos_from_approved_plan() {
    let mut s = awaiting("# Plan\n1. Open file\n2. Fix bug\n3. Test");
    s.decide(&answer(Decision::Approve), AT, &limits()).unwrap();
    assert!(s.seed_todos_from_plan());
    assert_eq!(s.todos.len(), 3);
    assert!(!s.seed_todos_from_plan());
}

#[test]
fn plan_dir_rules() {
    assert_eq!(normalize_plan_dir("plans/").unwrap(), "plans");
    assert_eq!(normalize_plan_dir("./a//b").unwrap(), "a/b");
    assert_eq!(normalize_plan_dir(".").unwrap(), "");
    for bad in ["../x", "a/../../b", "/etc", "~/plans", "C:/x", "a\\b", "a\0"] {
        assert!(
            matches!(normalize_plan_dir(bad), Err(PlanError::PathEscape(_))),
            "{bad}"
        );
    }
    assert_eq!(plan_relpath("plans", None).unwrap(), "plans/PLAN.md");
    assert_eq!(
        plan_relpath(".", Some("../evil agent")).unwrap(),
        "_evil_agent/PLAN.md"
    );
    assert_eq!(plan_relpath("p", Some("...")).unwrap(), "p/agent/PLAN.md");
}

fn temp_workspace(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("planmode-core-{tag}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn atomic_write_read_and_escapes() {
    let root = temp_workspace("io");
    let outside = temp_workspace("io-outside");
    let ws = Workspace::open(&root).unwrap();
    assert_eq!(ws.read("plans/PLAN.md", 100).unwrap(), None);
    ws.write_atomic("plans/PLAN.md", "# hi").unwrap();
    assert_eq!(ws.read("plans/PLAN.md", 100).unwrap().as_deref(), Some("# hi"));
    ws.write_atomic("plans/PLAN.md", "# again").unwrap();
    let names: Vec<_> = fs::read_dir(root.join("plans"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 1, "no temp file left behind: {names:?}");
    assert!(
        ws.read("plans/PLAN.md", 3)
            .unwrap_err()
            .to_string()
            .contains("over the limit")
    );
    fs::write(root.join("plans/PLAN.md"), [b'a', 0xfe]).unwrap();
    assert!(
        ws.read("plans/PLAN.md", 100)
            .unwrap_err()
            .to_string()
            .contains("not valid UTF-8")
    );

    std::os::unix::fs::symlink(&outside, root.join("evil")).unwrap();
    let e = ws.write_atomic("evil/PLAN.md", "x").unwrap_err();
    assert!(matches!(e, PlanError::PathEscape(_)), "{e}");
    assert!(
        fs::read_dir(&outside).unwrap().next().is_none(),
        "nothing written outside"
    );
    std::os::unix::fs::symlink(outside.join("target.md"), root.join("plans/LINK.md")).unwrap();
    let e = ws.write_atomic("plans/LINK.md", "x").unwrap_err();
    assert!(matches!(e, PlanError::PathEscape(_)), "{e}");
    assert!(!outside.join("target.md").exists());
    std::os::unix::fs::symlink(root.join("plans"), root.join("inside")).unwrap();
    ws.write_atomic("inside/OK.md", "fine").unwrap();
    assert!(matches!(
        ws.write_atomic("../x/PLAN.md", "x"),
        Err(PlanError::PathEscape(_))
    ));
    fs::remove_dir_all(&root).unwrap();
    fs::remove_dir_all(&outside).unwrap();
}

proptest! {
    #[test]
    fn normalized_dirs_never_escape(dir in "[a-z./~\\\\]{0,12}") {
        if let Ok(n) = normalize_plan_dir(&dir) {
            prop_assert!(!n.starts_with('/'));
            prop_assert!(!n.split('/').any(|p| p == ".." || p == "." ));
        }
    }

    #[test]
    fn any_write_sequence_round_trips(texts in proptest::collection::vec("[a-z# \n]{1,20}", 1..8)) {
        let mut s = PlanState::new();
        s.enter("model", AT).unwrap();
        for t in &texts {
            let before = s.clone();
            if s.write(t, "model", AT, &limits()).is_err() {
                prop_assert_eq!(&s, &before);
            }
        }
        prop_assert_eq!(PlanState::from_json(s.to_json()).unwrap(), s);
    }
}

/// One random operation on the machine.
#[derive(Debug, Clone)]
enum Op {
    Enter,
    Write(String),
    Exit,
    Decide(u8, bool),
    Force,
    Cancel,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        Just(Op::Enter),
        "[a-c# ]{0,6}".prop_map(Op::Write),
        Just(Op::Exit),
        (0u8..5, any::<bool>()).prop_map(|(d, e)| Op::Decide(d, e)),
        Just(Op::Force),
        Just(Op::Cancel),
    ]
}

proptest! {
    #[test]
    fn random_operations_keep_the_invariants(ops in proptest::collection::vec(op(), 0..25)) {
        let mut s = PlanState::new();
        for o in ops {
            let before = s.clone();
            let result = match &o {
                Op::Enter => s.enter("user", AT).map(|_| ()),
                Op::Write(t) => s.write(t, "model", AT, &limits()).map(|_| ()),
                Op::Exit => s.request_exit("r", "c", None, false, AT).map(|_| ()),
                Op::Decide(d, edit) => {
                    let decision = [Decision::Approve, Decision::ApproveWithEdits, Decision::RequestChanges,
                                    Decision::Reject, Decision::Cancel][*d as usize];
                    let mut a = answer(decision);
                    if *edit { a.edited_plan = Some("# edited".into()); }
                    s.decide(&a, AT, &limits()).map(|_| ())
                }
                Op::Force => s.force_exit("admin", AT, 0).map(|_| ()),
                Op::Cancel => s.cancel_pending("user", "x", AT).map(|_| ()),
            };
            if result.is_err() {
                prop_assert_eq!(&s, &before, "a refused {:?} changed the state", o);
            }
            prop_assert_eq!(s.phase == Phase::AwaitingApproval, s.pending.is_some());
            if let Some(n) = s.approved_revision {
                prop_assert!(s.revision(n).is_some());
            }
            prop_assert_eq!(PlanState::from_json(s.to_json()).unwrap(), s.clone());
        }
    }
}

#[test]
fn grants_belong_to_the_approval_and_expire_on_entry() {
    use crate::core::plan::grant::Grant;
    let bash = Grant {
        tool_name: "Bash".into(),
        rule_content: Some("npm test*".into()),
        revision: 0,
    };
    let mut s = awaiting("# v1");
    let refused = s.clone();
    let mut a = answer(Decision::Reject);
    a.grants = vec![bash.clone()];
    assert!(
        s.decide(&a, AT, &limits())
            .unwrap_err()
            .to_string()
            .contains("only to approvals")
    );
    assert_eq!(s, refused);
    a.decision = Some(Decision::Approve);
    s.decide(&a, AT, &limits()).unwrap();
    assert_eq!(s.grants, vec![Grant { revision: 1, ..bash }]);
    assert_eq!(
        s.audit.last().unwrap().detail.as_deref(),
        Some("granted: Bash(npm test*)")
    );
    assert_eq!(PlanState::from_json(s.to_json()).unwrap(), s);
    s.enter("model", AT).unwrap();
    assert!(s.grants.is_empty());
    assert_eq!(
        s.audit.last().unwrap().detail.as_deref(),
        Some("grants expired: Bash(npm test*)")
    );
}
