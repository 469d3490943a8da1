//! The scope a reviewer chooses when approving: the plan's declared scope (the default), a
//! replacement list of path globs and command patterns, or no scope at all — validated with
//! the rules of a parsed scope, compared with the declared one (narrowed or widened), and who
//! may widen it.
//!
//! Public (JSON) form of a choice: `{"paths": [...], "commands": [...]}` replaces the declared
//! scope; `"none"` removes it; `null` / `"declared"` keeps it.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::claim::Channel;
use super::error::{PlanError, PlanResult};
use super::machine::Answer;
use super::scope::{Scope, parse_scope};
use super::state::{Decision, PlanState};

/// Most path globs, and most command patterns, a chosen scope may list.
pub const MAX_SCOPE_ENTRIES: usize = 256;

/// Longest path glob or command pattern accepted, in bytes.
pub const MAX_SCOPE_ENTRY_BYTES: usize = 1024;

/// A reviewer's replacement for the declared scope of the plan being approved.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(try_from = "Value", into = "Value")]
pub enum ScopeChoice {
    /// These path globs and command patterns are the approved scope.
    Replace(Scope),
    /// The build phase is held to no scope.
    Remove,
}

fn invalid(message: String) -> PlanError {
    PlanError::InvalidInput(message)
}

/// Checks what every entry must be: a string of bounded size without NUL or control characters.
fn entry_text<'a>(item: &'a Value, what: &str) -> PlanResult<&'a str> {
    let text = item
        .as_str()
        .ok_or_else(|| invalid(format!("scope {what}s must be strings, got {item}")))?;
    if text.len() > MAX_SCOPE_ENTRY_BYTES {
        return Err(invalid(format!(
            "a scope {what} is {} bytes, over the limit of {MAX_SCOPE_ENTRY_BYTES}",
            text.len()
        )));
    }
    if text.chars().any(char::is_control) {
        return Err(invalid(format!(
            "scope {what} {text:?} contains a NUL, newline or other control character"
        )));
    }
    let text = text.trim();
    if text.is_empty() {
        return Err(invalid(format!("a scope {what} is empty")));
    }
    Ok(text)
}

/// A path glob as a parsed scope holds it: relative to the workspace, `./` dropped. An absolute
/// path inside `workspace_dir` becomes relative; anything that leaves the workspace is refused.
fn path_entry(item: &Value, workspace_dir: Option<&str>) -> PlanResult<String> {
    let raw = entry_text(item, "path")?;
    let mut path = raw;
    if path.starts_with('/') {
        path = workspace_dir
            .map(|w| w.trim_end_matches('/'))
            .filter(|w| !w.is_empty())
            .and_then(|w| path.strip_prefix(w))
            .and_then(|rest| rest.strip_prefix('/'))
            .ok_or_else(|| {
                invalid(format!(
                    "scope path {raw:?} is absolute and not inside the workspace: give it relative to the workspace"
                ))
            })?;
    }
    if path.contains('\\') || path.starts_with('~') || path.as_bytes().get(1) == Some(&b':') {
        return Err(invalid(format!(
            "scope path {raw:?} is not a workspace-relative POSIX path (no \\, ~ or drive letters)"
        )));
    }
    let path = path.trim_start_matches("./");
    if path.split('/').any(|s| s == "..") {
        return Err(invalid(format!(
            "scope path {raw:?} climbs out of the workspace with \"..\""
        )));
    }
    if path.is_empty() {
        return Err(invalid(format!("scope path {raw:?} names no file")));
    }
    Ok(path.to_string())
}

/// A command pattern as a parsed scope holds it (a leading `$` dropped).
fn command_entry(item: &Value) -> PlanResult<String> {
    let raw = entry_text(item, "command")?;
    let command = raw.strip_prefix('$').unwrap_or(raw).trim();
    if command.is_empty() {
        return Err(invalid(format!("scope command {raw:?} is empty")));
    }
    Ok(command.to_string())
}

/// The entries of one list of a chosen scope, each checked by `entry`, without duplicates.
fn entries(
    value: Option<&Value>,
    what: &str,
    entry: impl Fn(&Value) -> PlanResult<String>,
) -> PlanResult<Vec<String>> {
    let items = match value {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(items)) => items,
        Some(other) => {
            return Err(invalid(format!(
                "scope {what}s must be a list of strings, got {other}"
            )));
        }
    };
    if items.len() > MAX_SCOPE_ENTRIES {
        return Err(invalid(format!(
            "scope lists {} {what}s; at most {MAX_SCOPE_ENTRIES} are accepted",
            items.len()
        )));
    }
    let mut out: Vec<String> = Vec::with_capacity(items.len());
    for item in items {
        let e = entry(item)?;
        if out.contains(&e) {
            return Err(invalid(format!("scope {what} {e:?} is given twice")));
        }
        out.push(e);
    }
    Ok(out)
}

impl ScopeChoice {
    /// Reads a choice in its public form (see the module doc); `None` keeps the declared scope.
    /// `workspace_dir` lets an absolute path inside the workspace be given.
    pub fn from_value(value: &Value, workspace_dir: Option<&str>) -> PlanResult<Option<Self>> {
        let map = match value {
            Value::Null => return Ok(None),
            Value::String(s) if s == "declared" => return Ok(None),
            Value::String(s) if s == "none" => return Ok(Some(Self::Remove)),
            Value::Object(map) => map,
            other => {
                return Err(invalid(format!(
                    "scope must be {{\"paths\": [...], \"commands\": [...]}}, \"declared\" or \"none\", got {other}"
                )));
            }
        };
        if let Some(key) = map.keys().find(|k| !matches!(k.as_str(), "paths" | "commands")) {
            return Err(invalid(format!(
                "scope has an unknown field {key:?}: use paths and commands"
            )));
        }
        Ok(Some(Self::Replace(Scope {
            paths: entries(map.get("paths"), "path", |v| path_entry(v, workspace_dir))?,
            commands: entries(map.get("commands"), "command", command_entry)?,
        })))
    }

    /// The scope this choice approves (None: no scope).
    pub fn scope(&self) -> Option<Scope> {
        match self {
            Self::Replace(s) => Some(s.clone()),
            Self::Remove => None,
        }
    }
}

impl TryFrom<Value> for ScopeChoice {
    type Error = String;

    fn try_from(value: Value) -> Result<Self, String> {
        Self::from_value(&value, None)
            .map_err(|e| e.to_string())?
            .ok_or_else(|| "a stored scope choice is \"none\" or {paths, commands}".to_string())
    }
}

impl From<ScopeChoice> for Value {
    fn from(choice: ScopeChoice) -> Self {
        match choice {
            ScopeChoice::Replace(s) => serde_json::json!({"paths": s.paths, "commands": s.commands}),
            ScopeChoice::Remove => Value::String("none".into()),
        }
    }
}

fn is_pattern(entry: &str) -> bool {
    entry.contains(['*', '?'])
}

/// What `chosen` allows beyond `declared`, one phrase per entry (empty: it keeps or narrows it).
/// An entry stays within when the declared scope lists it, or, free of wildcards, allows it;
/// any other pattern counts as widening. Removing a declared scope widens it; with no declared
/// scope every chosen entry widens it.
pub fn widening(declared: Option<&Scope>, chosen: Option<&Scope>) -> Vec<String> {
    let Some(chosen) = chosen else {
        return if declared.is_some() {
            vec!["removes the declared scope".into()]
        } else {
            Vec::new()
        };
    };
    let empty = Scope::default();
    let d = declared.unwrap_or(&empty);
    let paths = chosen
        .paths
        .iter()
        .filter(|p| !d.paths.contains(p) && (is_pattern(p) || !d.allows_path(p)))
        .map(|p| format!("path {p}"));
    let commands = chosen
        .commands
        .iter()
        .filter(|c| !d.commands.contains(c) && (is_pattern(c) || !d.allows_command(c)))
        .map(|c| format!("command {c}"));
    paths.chain(commands).collect()
}

/// The entries of `mine` that `theirs` does not list.
fn added<'a>(mine: &'a [String], theirs: &[String]) -> Vec<&'a String> {
    mine.iter().filter(|e| !theirs.contains(e)).collect()
}

fn listed(kind: &str, entries: Vec<&String>) -> Option<String> {
    (!entries.is_empty()).then(|| {
        let names: Vec<&str> = entries.iter().map(|s| s.as_str()).collect();
        format!("{kind} {}", names.join(", "))
    })
}

/// The audit phrase for an approved scope that differs from the declared one, or None.
pub fn describe_change(declared: Option<&Scope>, chosen: Option<&Scope>) -> Option<String> {
    if declared == chosen {
        return None;
    }
    let verb = if widening(declared, chosen).is_empty() {
        "narrowed"
    } else {
        "widened"
    };
    let Some(c) = chosen else {
        return Some(format!("scope {verb}: removed (nothing enforced)"));
    };
    let empty = Scope::default();
    let d = declared.unwrap_or(&empty);
    let parts: Vec<String> = [
        listed("added paths", added(&c.paths, &d.paths)),
        listed("added commands", added(&c.commands, &d.commands)),
        listed("dropped paths", added(&d.paths, &c.paths)),
        listed("dropped commands", added(&d.commands, &c.commands)),
    ]
    .into_iter()
    .flatten()
    .collect();
    Some(format!("scope {verb}: {}", parts.join("; ")))
}

impl PlanState {
    /// The scope the pending revision declares and the one `answer` would approve: its choice,
    /// else the scope declared by the text it approves (its edit, or the pending revision).
    pub fn answer_scopes(&self, answer: &Answer, pending_revision: u32) -> (Option<Scope>, Option<Scope>) {
        let declared = self
            .revision(pending_revision)
            .and_then(|r| r.content.as_deref())
            .and_then(parse_scope);
        let chosen = match &answer.scope {
            Some(choice) => choice.scope(),
            None => match answer.edited_plan.as_ref().or(answer.file_text.as_ref()) {
                Some(text) => parse_scope(text),
                None => declared.clone(),
            },
        };
        (declared, chosen)
    }

    /// Checks the scope part of an answer: a choice goes only with an approval, and widening
    /// the declared scope (by a choice or by an edited plan) is an escalation a chat answer may
    /// not make unless `may_escalate`; narrowing is allowed on every channel.
    pub fn check_answer_scope(
        &self,
        answer: &Answer,
        decision: Decision,
        pending_revision: u32,
    ) -> PlanResult<()> {
        if answer.scope.is_some() && !decision.approves() {
            return Err(invalid(format!(
                "scope applies only to approvals, not to {}",
                decision.as_str()
            )));
        }
        if answer.channel != Channel::Chat || answer.may_escalate || !decision.approves() {
            return Ok(());
        }
        let (declared, chosen) = self.answer_scopes(answer, pending_revision);
        let wider = widening(declared.as_ref(), chosen.as_ref());
        if wider.is_empty() {
            return Ok(());
        }
        Err(invalid(format!(
            "a {} sent through the chat route cannot widen the plan's scope ({}): narrow it only, or use the \
             admin API or answer_plan in process (or opt in with chat_answers_may_escalate=True)",
            decision.as_str(),
            wider.join(", ")
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn declared() -> Scope {
        Scope {
            paths: vec!["src/**/*.py".into(), "docs/plan.md".into()],
            commands: vec!["pytest -q*".into()],
        }
    }

    fn chosen(v: Value) -> Option<Scope> {
        ScopeChoice::from_value(&v, Some("/ws")).unwrap().unwrap().scope()
    }

    #[test]
    fn parses_the_public_forms() {
        assert_eq!(ScopeChoice::from_value(&Value::Null, None).unwrap(), None);
        assert_eq!(ScopeChoice::from_value(&json!("declared"), None).unwrap(), None);
        assert_eq!(
            ScopeChoice::from_value(&json!("none"), None).unwrap(),
            Some(ScopeChoice::Remove)
        );
        let s =
            chosen(json!({"paths": ["./src/a.py", "/ws/docs/x.md"], "commands": ["$ cargo test*"]})).unwrap();
        assert_eq!(s.paths, ["src/a.py", "docs/x.md"]);
        assert_eq!(s.commands, ["cargo test*"]);
        let stored: ScopeChoice = serde_json::from_value(json!({"paths": ["a"]})).unwrap();
        assert_eq!(
            serde_json::to_value(&stored).unwrap(),
            json!({"paths": ["a"], "commands": []})
        );
    }

    #[test]
    fn refuses_bad_input() {
        let many: Vec<String> = (0..=MAX_SCOPE_ENTRIES).map(|i| format!("f{i}")).collect();
        for bad in [
            json!("wide"),
            json!(["a"]),
            json!(3),
            json!({"paths": "a"}),
            json!({"paths": [1]}),
            json!({"paths": ["../etc/passwd"]}),
            json!({"paths": ["src/../../x"]}),
            json!({"paths": ["/etc/passwd"]}),
            json!({"paths": ["/wsx/a"]}),
            json!({"paths": ["a\u{0}b"]}),
            json!({"paths": ["~/x"]}),
            json!({"paths": ["C:\\x"]}),
            json!({"paths": ["  "]}),
            json!({"paths": ["a", "./a"]}),
            json!({"paths": many}),
            json!({"paths": ["x".repeat(MAX_SCOPE_ENTRY_BYTES + 1)]}),
            json!({"commands": ["$"]}),
            json!({"commands": ["ls\nrm -rf /"]}),
            json!({"files": []}),
        ] {
            let e = ScopeChoice::from_value(&bad, Some("/ws"));
            assert!(matches!(e, Err(PlanError::InvalidInput(_))), "{bad}");
        }
    }

    #[test]
    fn tells_narrowing_from_widening() {
        let d = declared();
        let narrower =
            chosen(json!({"paths": ["src/a.py", "docs/plan.md"], "commands": ["pytest -q tests/"]}));
        assert!(widening(Some(&d), narrower.as_ref()).is_empty());
        assert!(widening(Some(&d), Some(&Scope::default())).is_empty());
        for wider in [
            json!({"paths": ["src/**"]}),
            json!({"paths": ["README.md"]}),
            json!({"commands": ["pytest -q*; rm x"]}),
            json!({"commands": ["cargo test"]}),
        ] {
            assert!(
                !widening(Some(&d), chosen(wider.clone()).as_ref()).is_empty(),
                "{wider}"
            );
        }
        assert_eq!(widening(Some(&d), None), ["removes the declared scope"]);
        assert!(widening(None, None).is_empty());
        assert_eq!(
            widening(None, chosen(json!({"paths": ["a"]})).as_ref()),
            ["path a"]
        );
        let text = describe_change(Some(&d), narrower.as_ref()).unwrap();
        assert!(
            text == "scope narrowed: added paths src/a.py; added commands pytest -q tests/; dropped paths src/**/*.py; dropped commands pytest -q*",
            "{text}"
        );
        assert_eq!(describe_change(Some(&d), Some(&d)), None);
        assert_eq!(
            describe_change(Some(&d), None).unwrap(),
            "scope widened: removed (nothing enforced)"
        );
    }

    #[test]
    fn a_chosen_scope_travels_in_the_claim_and_is_approved() {
        use crate::core::plan::{AuditKind, Limits, Phase};
        let (at, limits) = ("2026-01-01T00:00:00Z", Limits::default());
        let plan = "# P\n1. Fix `src/a.py`\n\n## Scope\n- `src/**/*.py`\n- `$ pytest -q*`\n";
        let mut s = PlanState::new();
        s.enter("model", at).unwrap();
        s.write(plan, "model", at, &limits).unwrap();
        s.request_exit("r", "c", None, false, at).unwrap();
        let chat = |scope: Value, decision| Answer {
            decision: Some(decision),
            actor: "user".into(),
            channel: Channel::Chat,
            revision: Some(1),
            scope: ScopeChoice::from_value(&scope, None).unwrap(),
            ..Answer::default()
        };
        for wider in [json!("none"), json!({"paths": ["src/**/*.py", "README.md"]})] {
            let e = s.claim(&chat(wider.clone(), Decision::Approve), at, 0, 60, &limits);
            assert!(
                matches!(&e, Err(PlanError::InvalidInput(m)) if m.contains("cannot widen")),
                "{wider} {e:?}"
            );
        }
        let edited = Answer {
            edited_plan: Some("# P\n1. Fix `src/a.py`\n".into()),
            ..chat(Value::Null, Decision::ApproveWithEdits)
        };
        assert!(
            s.check_answer(&edited, &limits).is_err(),
            "an edit dropping the scope widens it"
        );
        let e = s.check_answer(&chat(json!({"paths": ["a"]}), Decision::Reject), &limits);
        assert!(matches!(e, Err(PlanError::InvalidInput(m)) if m.contains("only to approvals")));
        let narrow = chat(json!({"paths": ["src/a.py"]}), Decision::Approve);
        s.claim(&narrow, at, 0, 60, &limits).unwrap();
        let stored = PlanState::from_json(s.to_json()).unwrap();
        let resumed = stored.claimed_answer("c", None).unwrap();
        let mut s = stored;
        s.decide(&resumed, at, &limits).unwrap();
        assert_eq!(s.phase, Phase::Building);
        let approved = s.approved_scope().unwrap();
        assert_eq!(
            (approved.paths, approved.commands.len()),
            (vec!["src/a.py".to_string()], 0)
        );
        let entry = s
            .audit
            .iter()
            .rev()
            .find(|e| e.kind == AuditKind::Decision)
            .unwrap();
        assert_eq!(
            entry.detail.as_deref(),
            Some(
                "scope narrowed: added paths src/a.py; dropped paths src/**/*.py; dropped commands pytest -q*"
            )
        );
        s.enter("model", at).unwrap();
        assert!(s.approved_scope().is_none() && s.approved_scope_choice.is_none());
    }
}
