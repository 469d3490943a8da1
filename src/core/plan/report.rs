//! Outcomes over many runs: reads the plan-mode part of dumped `AgentState` JSON (or of the
//! app's stored session records) leniently and aggregates what an evaluation counts —
//! terminal states, forced exits, revisions and request-changes per approved plan, time
//! from `plan_exit` to the decision, decisions by actor kind, drift, and todo completion.
//!
//! Reading is tolerant on purpose: only the fields counted here are read, unknown fields are
//! ignored, pruned revisions (number and sha256 only) are fine, and a capped audit log (its
//! dropped count in `trimmed.audit_entries`, or `audit_dropped`) makes the cut-off plan cycle "partial" instead of wrong.

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::{Map, Value, json};

use super::clock::parse_rfc3339_utc;
use super::state::Outcome;

/// Most unreadable inputs listed by name in the report (all are counted).
pub const MAX_LISTED_ERRORS: usize = 20;

/// One stored document: an `AgentState` (`middle_context`), or a session record wrapping one
/// (`state`).
#[derive(Deserialize)]
struct Document {
    #[serde(default)]
    middle_context: Option<MiddleContext>,
    #[serde(default)]
    state: Option<Box<Document>>,
}

#[derive(Deserialize)]
struct MiddleContext {
    #[serde(default)]
    planmode: Option<RunState>,
}

/// The fields of the stored plan-mode state that the report counts.
#[derive(Deserialize)]
struct RunState {
    #[serde(default)]
    phase: String,
    #[serde(default)]
    revisions: Vec<IgnoredAny>,
    #[serde(default)]
    todos: Vec<RunTodo>,
    #[serde(default)]
    audit: Vec<RunAudit>,
    /// Audit entries dropped from the front by a capped log.
    #[serde(default, alias = "dropped_audit")]
    audit_dropped: u64,
    /// What bounding dropped (planmode's own layout: `trimmed.audit_entries`).
    #[serde(default)]
    trimmed: RunTrimmed,
}

/// The part of the stored `trimmed` counts the report needs.
#[derive(Deserialize, Default)]
struct RunTrimmed {
    #[serde(default)]
    audit_entries: u64,
}

impl RunState {
    /// Audit entries dropped from the front, in either layout.
    fn dropped(&self) -> u64 {
        self.audit_dropped.max(self.trimmed.audit_entries)
    }
}

#[derive(Deserialize)]
struct RunTodo {
    #[serde(default)]
    status: String,
}

#[derive(Deserialize)]
struct RunAudit {
    #[serde(default)]
    kind: String,
    #[serde(default)]
    actor: String,
    #[serde(default)]
    at: Option<String>,
    #[serde(default)]
    decision: Option<String>,
}

/// Count, min, median, 90th percentile, max and mean of a list of samples.
fn stats(samples: &mut [f64]) -> Value {
    if samples.is_empty() {
        return json!({"count": 0});
    }
    samples.sort_by(f64::total_cmp);
    let n = samples.len();
    let pick = |q: f64| samples[((n - 1) as f64 * q).round() as usize];
    let mean = samples.iter().sum::<f64>() / n as f64;
    json!({
        "count": n, "min": samples[0], "p50": pick(0.5), "p90": pick(0.9), "max": samples[n - 1],
        "mean": (mean * 1000.0).round() / 1000.0,
    })
}

/// Per-value counts of whole-number samples (`{"0": 12, "1": 3}`), in increasing order.
fn histogram(samples: &[u64]) -> Value {
    let mut counts: std::collections::BTreeMap<u64, u64> = std::collections::BTreeMap::new();
    for s in samples {
        *counts.entry(*s).or_default() += 1;
    }
    Value::Object(
        counts
            .into_iter()
            .map(|(k, v)| (k.to_string(), json!(v)))
            .collect(),
    )
}

fn bump(map: &mut Map<String, Value>, key: &str) {
    let n = map.get(key).and_then(Value::as_u64).unwrap_or(0);
    map.insert(key.to_string(), json!(n + 1));
}

/// Numbers counted across runs.
#[derive(Default)]
pub struct Report {
    runs: u64,
    errors: Vec<(String, String)>,
    error_count: u64,
    without_state: u64,
    outcomes: [u64; 5],
    exits: [u64; 3],
    forced_exit_events: u64,
    partial_audit_runs: u64,
    revisions_per_plan: Vec<u64>,
    changes_per_plan: Vec<u64>,
    decision_secs: Vec<f64>,
    by_actor: Map<String, Value>,
    drift_per_run: Vec<u64>,
    todo_status: Map<String, Value>,
    runs_with_todos: u64,
    runs_all_done: u64,
    completion: Vec<f64>,
}

const OUTCOMES: [Outcome; 5] = [
    Outcome::NeverEntered,
    Outcome::PlanningWithPlan,
    Outcome::PlanningWithoutPlan,
    Outcome::ExitedWithPlan,
    Outcome::ExitedWithoutPlan,
];

/// How a building run last left plan mode.
#[derive(Clone, Copy)]
enum Exit {
    Approved = 0,
    Forced = 1,
    Unknown = 2,
}

impl Report {
    /// An empty report.
    pub fn new() -> Self {
        Self::default()
    }

    /// Counts one stored document (`source` names it in error lines). A document that is not
    /// JSON, or whose plan-mode state has the wrong shape, is counted as unreadable.
    pub fn add(&mut self, source: &str, data: &[u8]) {
        match serde_json::from_slice::<Document>(data) {
            Ok(doc) => self.add_document(source, doc),
            Err(e) => self.add_error(source, format!("not a stored agent state: {e}")),
        }
    }

    /// Counts an input that could not be read (`message` says why); the first
    /// [`MAX_LISTED_ERRORS`] are listed by source.
    pub fn add_error(&mut self, source: &str, message: String) {
        self.error_count += 1;
        if self.errors.len() < MAX_LISTED_ERRORS {
            self.errors.push((source.to_string(), message));
        }
    }

    fn add_document(&mut self, source: &str, mut doc: Document) {
        while doc.middle_context.is_none() {
            match doc.state.take() {
                Some(inner) => doc = *inner,
                None => {
                    return self.add_error(
                        source,
                        "no middle_context: expected an AgentState or a session record with a state".into(),
                    );
                }
            }
        }
        self.runs += 1;
        match doc.middle_context.and_then(|m| m.planmode) {
            Some(run) => self.add_run(source, run),
            None => {
                self.without_state += 1;
                self.outcomes[0] += 1;
                self.drift_per_run.push(0);
            }
        }
    }

    fn add_run(&mut self, source: &str, run: RunState) {
        let has_plan = !run.revisions.is_empty();
        let outcome = match (run.phase.as_str(), has_plan) {
            ("never_entered" | "", _) => Outcome::NeverEntered,
            ("planning" | "awaiting_approval", true) => Outcome::PlanningWithPlan,
            ("planning" | "awaiting_approval", false) => Outcome::PlanningWithoutPlan,
            ("building", true) => Outcome::ExitedWithPlan,
            ("building", false) => Outcome::ExitedWithoutPlan,
            (other, _) => {
                self.runs -= 1;
                return self.add_error(source, format!("unknown plan-mode phase {other:?}"));
            }
        };
        self.outcomes[OUTCOMES.iter().position(|o| *o == outcome).unwrap_or(0)] += 1;
        if run.dropped() > 0 {
            self.partial_audit_runs += 1;
        }
        let last_exit = self.add_audit(&run);
        if run.phase == "building" {
            self.exits[last_exit.unwrap_or(Exit::Unknown) as usize] += 1;
        }
        self.add_todos(&run.todos);
    }

    /// Walks the audit log plan cycle by cycle; returns how plan mode was last left.
    fn add_audit(&mut self, run: &RunState) -> Option<Exit> {
        // A cycle cut off by a capped log is not counted (its start is missing).
        let mut complete = run.dropped() == 0;
        let (mut written, mut changes) = (0u64, 0u64);
        let mut exit_at: Option<u64> = None;
        let mut last_exit = None;
        let mut drift = 0u64;
        for entry in &run.audit {
            match entry.kind.as_str() {
                "entered" => {
                    complete = true;
                    (written, changes, exit_at) = (0, 0, None);
                }
                "written" => written += 1,
                "exit_requested" => exit_at = entry.at.as_deref().and_then(parse_rfc3339_utc),
                "forced_exit" => {
                    self.forced_exit_events += 1;
                    last_exit = Some(Exit::Forced);
                    exit_at = None;
                }
                "drift" => drift += 1,
                "decision" => {
                    let decision = entry.decision.as_deref().unwrap_or("unknown");
                    let kind = entry.actor.split(':').next().unwrap_or_default();
                    let kind = if kind.is_empty() { "unknown" } else { kind };
                    let row = self
                        .by_actor
                        .entry(kind.to_string())
                        .or_insert_with(|| Value::Object(Map::new()));
                    if let Value::Object(row) = row {
                        bump(row, decision);
                    }
                    let decided_at = entry.at.as_deref().and_then(parse_rfc3339_utc);
                    if let (Some(asked), Some(decided)) = (exit_at.take(), decided_at) {
                        self.decision_secs.push(decided.saturating_sub(asked) as f64);
                    }
                    match decision {
                        "request_changes" => changes += 1,
                        "approve" | "approve_with_edits" => {
                            last_exit = Some(Exit::Approved);
                            if complete {
                                self.revisions_per_plan.push(written);
                                self.changes_per_plan.push(changes);
                            }
                            (written, changes) = (0, 0);
                        }
                        _ => {}
                    }
                }
                _ => {}
            }
        }
        self.drift_per_run.push(drift);
        last_exit
    }

    fn add_todos(&mut self, todos: &[RunTodo]) {
        if todos.is_empty() {
            return;
        }
        self.runs_with_todos += 1;
        let mut done = 0usize;
        for t in todos {
            let status = if t.status.is_empty() {
                "unknown"
            } else {
                t.status.as_str()
            };
            bump(&mut self.todo_status, status);
            done += usize::from(status == "completed");
        }
        self.runs_all_done += u64::from(done == todos.len());
        self.completion
            .push(((done as f64 / todos.len() as f64) * 1000.0).round() / 1000.0);
    }

    /// The report as JSON (see docs/plan.md, "The plan as a contract", for every field).
    pub fn to_json(&mut self) -> Value {
        let outcomes: Map<String, Value> = OUTCOMES
            .iter()
            .zip(self.outcomes)
            .map(|(o, n)| (o.as_str().to_string(), json!(n)))
            .collect();
        let drift_total: u64 = self.drift_per_run.iter().sum();
        let mut drift = stats(&mut self.drift_per_run.iter().map(|d| *d as f64).collect::<Vec<_>>());
        drift["total"] = json!(drift_total);
        drift["histogram"] = histogram(&self.drift_per_run);
        let per_plan = |samples: &[u64]| {
            let mut v = stats(&mut samples.iter().map(|s| *s as f64).collect::<Vec<_>>());
            v["histogram"] = histogram(samples);
            v
        };
        json!({
            "runs": self.runs,
            "unreadable": self.error_count,
            "errors": self.errors.iter().map(|(s, e)| json!({"source": s, "error": e})).collect::<Vec<_>>(),
            "without_plan_state": self.without_state,
            "outcomes": outcomes,
            "exits": {"approved": self.exits[0], "forced": self.exits[1], "unknown": self.exits[2]},
            "forced_exit_events": self.forced_exit_events,
            "partial_audit_runs": self.partial_audit_runs,
            "approved_plans": self.revisions_per_plan.len(),
            "revisions_per_approved_plan": per_plan(&self.revisions_per_plan),
            "request_changes_per_approved_plan": per_plan(&self.changes_per_plan),
            "decision_latency_secs": stats(&mut self.decision_secs),
            "decisions_by_actor_kind": self.by_actor,
            "drift_events_per_run": drift,
            "steps": {
                "runs_with_todos": self.runs_with_todos,
                "runs_all_completed": self.runs_all_done,
                "todos_by_status": self.todo_status,
                "completion_per_run": stats(&mut self.completion),
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(kind: &str, actor: &str, at: &str, decision: Option<&str>) -> Value {
        let mut e = json!({"kind": kind, "actor": actor, "at": at});
        if let Some(d) = decision {
            e["decision"] = json!(d);
        }
        e
    }

    fn state(phase: &str, revisions: usize, audit: Vec<Value>, todos: &[&str]) -> Vec<u8> {
        let revs: Vec<Value> = (1..=revisions)
            .map(|n| json!({"number": n, "sha256": "x", "bytes": 1}))
            .collect();
        let todos: Vec<Value> = todos
            .iter()
            .map(|s| json!({"content": "t", "status": s}))
            .collect();
        serde_json::to_vec(
            &json!({"context": [{"role": "user"}], "middle_context": {"planmode": {
            "version": 1, "phase": phase, "revisions": revs, "audit": audit, "todos": todos}}}),
        )
        .unwrap()
    }

    #[test]
    fn counts_a_cycle_with_changes_then_approval() {
        let audit = vec![
            entry("entered", "model", "2026-01-01T00:00:00Z", None),
            entry("written", "model", "2026-01-01T00:00:01Z", None),
            entry("exit_requested", "model", "2026-01-01T00:00:02Z", None),
            entry(
                "decision",
                "user:al",
                "2026-01-01T00:00:12Z",
                Some("request_changes"),
            ),
            entry("written", "model", "2026-01-01T00:00:13Z", None),
            entry("exit_requested", "model", "2026-01-01T00:00:14Z", None),
            entry("decision", "admin:bo", "2026-01-01T00:01:14Z", Some("approve")),
        ];
        let mut r = Report::new();
        r.add("a", &state("building", 2, audit, &["completed", "pending"]));
        r.add("b", br#"{"middle_context": {}}"#);
        r.add(
            "c",
            br#"{"state": {"middle_context": {"planmode": {"phase": "planning"}}}}"#,
        );
        r.add("bad", b"{nope");
        r.add("odd", br#"{"middle_context": {"planmode": {"phase": "flying"}}}"#);
        let v = r.to_json();
        assert_eq!(v["runs"], 3);
        assert_eq!(v["unreadable"], 2);
        assert_eq!(v["errors"][1]["source"], "odd");
        assert_eq!(v["outcomes"]["exited_with_plan"], 1);
        assert_eq!(v["outcomes"]["never_entered"], 1);
        assert_eq!(v["outcomes"]["planning_without_plan"], 1);
        assert_eq!(v["exits"]["approved"], 1);
        assert_eq!(v["revisions_per_approved_plan"]["max"], 2.0);
        assert_eq!(v["request_changes_per_approved_plan"]["histogram"]["1"], 1);
        assert_eq!(v["decision_latency_secs"]["min"], 10.0);
        assert_eq!(v["decision_latency_secs"]["max"], 60.0);
        assert_eq!(v["decisions_by_actor_kind"]["user"]["request_changes"], 1);
        assert_eq!(v["decisions_by_actor_kind"]["admin"]["approve"], 1);
        assert_eq!(v["steps"]["todos_by_status"]["completed"], 1);
        assert_eq!(v["steps"]["completion_per_run"]["p50"], 0.5);
        assert_eq!(v["drift_events_per_run"]["total"], 0);
    }

    #[test]
    fn a_capped_audit_makes_the_first_cycle_partial() {
        let audit = vec![
            entry("decision", "user", "2026-01-01T00:00:12Z", Some("approve")),
            entry("entered", "model", "2026-01-01T00:01:00Z", None),
            entry("forced_exit", "admin", "2026-01-01T00:02:00Z", None),
        ];
        let doc: Value = serde_json::from_slice(&state("building", 3, audit, &[])).unwrap();
        // The count in either layout: planmode's bounded state (`trimmed`) or a plain count.
        let mut bounded = doc.clone();
        bounded["middle_context"]["planmode"]["trimmed"] = json!({"audit_entries": 4});
        let mut plain = doc;
        plain["middle_context"]["planmode"]["audit_dropped"] = json!(4);
        for doc in [bounded, plain] {
            let mut r = Report::new();
            r.add("p", &serde_json::to_vec(&doc).unwrap());
            a_partial_first_cycle(&r.to_json());
        }
    }

    fn a_partial_first_cycle(v: &Value) {
        assert_eq!(v["partial_audit_runs"], 1);
        assert_eq!(v["approved_plans"], 0);
        assert_eq!(v["exits"]["forced"], 1);
        assert_eq!(v["forced_exit_events"], 1);
        assert_eq!(v["decisions_by_actor_kind"]["user"]["approve"], 1);
    }
}
