//! `PermissionCheck`: one permission check in progress, driven by the Python engine.

use std::sync::Arc;

use pyo3::exceptions::PyRuntimeError;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use super::cache::AllowSource;
use super::snapshot::Snapshot;
use crate::core::permission::engine::{Behavior, Decision, ProtocolError};
use crate::core::permission::{Evaluation, Mode, Outcome, Reply, RuleList, Step, Subject, ToolVerdict};

/// An engine-made decision for Python: `(behavior, message, reason, echoes_input)`.
type MadeDecision = (u8, String, Option<String>, bool);

/// Step codes returned to the driver.
const STEP_MATCH_RULE: u8 = 0;
const STEP_CHECK_READ_ONLY: u8 = 1;
const STEP_CHECK_PERMISSIONS: u8 = 2;
const STEP_DONE: u8 = 3;
const STEP_DONE_SUGGEST: u8 = 4;

/// One permission check in progress (made by `RuleCache.begin`, already started). `step` says
/// what it needs; each answer returns the next step: 0 = the tool's `match_rule` verdicts on
/// `pending_contents` (in order, up to the first match), 1 = its `check_read_only`, 2 = its `check_permissions`; 3 = decided, 4 =
/// decided and the decision carries the tool's `generate_suggestions` (see `decision`).
///
/// A check is a transient handle tied to live Python objects: it is not picklable.
#[pyclass(module = "planmode._core", name = "PermissionCheck")]
pub struct PermissionCheck {
    evaluation: Evaluation,
    tool: String,
    lists: [Arc<Snapshot>; 3],
    allow: Option<AllowSource>,
    subject: Subject,
    read_only: Option<bool>,
    step: u8,
    pending: Option<(RuleList, Vec<usize>)>,
    outcome: Option<Outcome>,
}

impl PermissionCheck {
    /// Starts a check of the tool named `tool` in `mode` against the deny and ask rules, reading
    /// the allow rules from `allow` once it gets to them. A known `read_only` verdict (the tool
    /// uses ToolBase's `check_read_only`) is answered without asking.
    pub fn start(
        mode: Mode,
        tool: String,
        [deny, ask]: [Arc<Snapshot>; 2],
        allow: AllowSource,
        subject: Subject,
        read_only: Option<bool>,
    ) -> PyResult<Self> {
        let mut check = PermissionCheck {
            evaluation: Evaluation::new(mode),
            tool,
            lists: [deny, ask, Arc::default()],
            allow: Some(allow),
            subject,
            read_only,
            step: STEP_MATCH_RULE,
            pending: None,
            outcome: None,
        };
        check.advance(Reply::Start)?;
        Ok(check)
    }

    fn advance(&mut self, mut reply: Reply) -> PyResult<u8> {
        loop {
            let rules = [
                &self.lists[0].rules[..],
                &self.lists[1].rules[..],
                &self.lists[2].rules[..],
            ];
            let step = self
                .evaluation
                .advance(reply, rules, &self.subject)
                .map_err(protocol)?;
            self.pending = None;
            self.step = match step {
                Step::MatchRules {
                    list, from, until, ..
                } => {
                    let rules = &self.lists[list.index()].rules[from..until];
                    let unknown = (from..until)
                        .zip(rules)
                        .filter(|(_, rule)| rule.matches(&self.subject).is_none());
                    self.pending = Some((list, unknown.map(|(index, _)| index).collect()));
                    STEP_MATCH_RULE
                }
                Step::CheckReadOnly => match self.read_only {
                    Some(known) => {
                        reply = Reply::ReadOnly(known);
                        continue;
                    }
                    None => STEP_CHECK_READ_ONLY,
                },
                Step::CheckPermissions => STEP_CHECK_PERMISSIONS,
                Step::Done(outcome) => {
                    self.outcome = Some(outcome);
                    if outcome.wants_suggestions(self.evaluation.mode()) {
                        STEP_DONE_SUGGEST
                    } else {
                        STEP_DONE
                    }
                }
            };
            return Ok(self.step);
        }
    }

    fn outcome(&self) -> PyResult<Outcome> {
        self.outcome
            .ok_or_else(|| PyRuntimeError::new_err("the permission check is not decided yet"))
    }
}

fn protocol(err: ProtocolError) -> PyErr {
    PyRuntimeError::new_err(err.to_string())
}

#[pymethods]
impl PermissionCheck {
    /// What the check needs now (see the class doc).
    #[getter]
    fn step(&self) -> u8 {
        self.step
    }

    /// Answers step 0 with the position in `pending_contents` of the first rule the tool's
    /// `match_rule` matched, or -1 when it matched none of them.
    fn matched(&mut self, position: isize) -> PyResult<u8> {
        let index = match (usize::try_from(position), &self.pending) {
            (Err(_), _) => None,
            (Ok(position), Some((_, indices))) => Some(*indices.get(position).ok_or_else(|| {
                PyRuntimeError::new_err(format!(
                    "position {position} is outside the {} pending rules",
                    indices.len()
                ))
            })?),
            (Ok(_), None) => return Err(PyRuntimeError::new_err("no rule is waiting for match_rule")),
        };
        self.advance(Reply::Matched(index))
    }

    /// Answers step 1 with the truthiness of the tool's `check_read_only`.
    fn read_only(&mut self, yes: bool) -> PyResult<u8> {
        self.advance(Reply::ReadOnly(yes))
    }

    /// Answers step 2: `final_` for an ALLOW / DENY decision, else `safety_ask` for an ASK with
    /// `bypass_immune`, else neither.
    fn tool_decision(&mut self, py: Python<'_>, final_: bool, safety_ask: bool) -> PyResult<u8> {
        if let Some(source) = self.allow.take() {
            self.lists[RuleList::Allow.index()] = source.load(py)?;
        }
        let verdict = match (final_, safety_ask) {
            (true, _) => ToolVerdict::Final,
            (false, true) => ToolVerdict::SafetyAsk,
            (false, false) => ToolVerdict::Continue,
        };
        self.advance(Reply::Tool(verdict))
    }

    /// The `rule_content`s the tool's `match_rule` must judge, in order (at step 0).
    #[getter]
    fn pending_contents<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let (list, indices) = self
            .pending
            .as_ref()
            .ok_or_else(|| PyRuntimeError::new_err("no rule is waiting for match_rule"))?;
        let contents = &self.lists[list.index()].contents;
        PyTuple::new(py, indices.iter().map(|&i| contents[i].bind(py)))
    }

    /// Whether the check ended on the tool's own safety ASK (which carries the suggestions).
    #[getter]
    fn tool_safety_ask(&self) -> PyResult<bool> {
        Ok(self.outcome()? == Outcome::ToolSafetyAsk)
    }

    /// The engine-made decision once decided, as `(behavior, message, reason, echoes_input)` with
    /// behavior 0 ALLOW / 1 DENY / 2 ASK; `None` when the tool's own decision is returned as is.
    /// `tool_decision` is that decision; its `decision_reason` is quoted when DONT_ASK converts it.
    #[pyo3(signature = (tool_decision=None))]
    fn decision(&self, tool_decision: Option<&Bound<'_, PyAny>>) -> PyResult<Option<MadeDecision>> {
        let outcome = self.outcome()?;
        let mode = self.evaluation.mode();
        let tool_reason = match tool_decision {
            Some(d) if outcome == Outcome::ToolSafetyAsk && mode == Mode::DontAsk => {
                let reason = d.getattr(intern!(d.py(), "decision_reason"))?;
                reason
                    .call_method1(intern!(d.py(), "__format__"), ("",))?
                    .str()?
                    .to_string_lossy()
                    .into_owned()
            }
            _ => String::new(),
        };
        let rule = outcome.rule().map_or("", |(list, index)| {
            self.lists[list.index()].rules[index].display.as_str()
        });
        Ok(match outcome.decision(mode, &self.tool, rule, &tool_reason) {
            Decision::FromTool => None,
            Decision::New {
                behavior,
                message,
                reason,
                echoes_input,
            } => {
                let code = match behavior {
                    Behavior::Allow => 0,
                    Behavior::Deny => 1,
                    Behavior::Ask => 2,
                };
                Some((code, message, reason, echoes_input))
            }
        })
    }

    fn __repr__(&self) -> String {
        format!(
            "PermissionCheck(mode={:?}, tool={:?}, step={}, outcome={:?})",
            self.evaluation.mode().value(),
            self.tool,
            self.step,
            self.outcome
        )
    }
}
