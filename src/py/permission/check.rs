//! `PermissionCheck`: one permission check in progress, driven by the Python engine.

use std::sync::{Arc, Mutex, MutexGuard, TryLockError};

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyString, PyTuple};

use super::live::{LiveRules, RuleStore};
use super::protocol::{BehaviorText, CheckStep, Verdict};
use crate::core::permission::engine::Decision;
use crate::core::permission::{AdvanceError, Evaluation, Mode, Outcome, Reply, RuleList, Step, Subject};
use crate::py::errors::InvalidInput;

/// An engine-made decision for Python: `(behavior, message, reason, echoes_input)`.
type MadeDecision = (BehaviorText, String, Option<String>, bool);

/// One permission check in progress (made by `RuleCache.begin`, already started). `step` says
/// what it needs; each answer returns the next step (see `CheckStep` in the stub).
///
/// A check is one call's transient handle, tied to live Python objects: it is not picklable, and
/// a second call made while one is running (from another thread, or re-entering from a tool's
/// callback) raises InvalidInputError instead of waiting; the check is left as it was.
#[pyclass(module = "planmode._core", name = "PermissionCheck", frozen)]
pub struct PermissionCheck {
    state: Mutex<CheckState>,
}

/// The rules the tool's `match_rule` is asked about.
struct Pending {
    list: RuleList,
    /// Index, `rule_content` object and display of each rule, in list order.
    rules: Vec<(usize, Py<PyAny>, String)>,
    /// The index and display of the rule that matched natively after them, if one did.
    native: Option<(usize, String)>,
}

struct CheckState {
    store: Arc<RuleStore>,
    context: Py<PyAny>,
    name: Py<PyString>,
    evaluation: Evaluation,
    tool: String,
    subject: Subject,
    read_only: Option<bool>,
    step: CheckStep,
    pending: Option<Pending>,
    outcome: Option<(Outcome, String)>,
}

impl PermissionCheck {
    /// Starts a check of the tool named `name` in `mode` against the rules of `context` (read from
    /// `store`'s cache as far as the decision needs them). A known `read_only` verdict (the tool
    /// uses ToolBase's `check_read_only`) is answered without asking.
    pub fn start(
        store: Arc<RuleStore>,
        context: &Bound<'_, PyAny>,
        name: &Bound<'_, PyString>,
        mode: Mode,
        subject: Subject,
        read_only: Option<bool>,
    ) -> PyResult<Self> {
        let mut state = CheckState {
            store,
            context: context.clone().unbind(),
            name: name.clone().unbind(),
            evaluation: Evaluation::new(mode),
            tool: name.to_str()?.to_owned(),
            subject,
            read_only,
            step: CheckStep::MatchRules,
            pending: None,
            outcome: None,
        };
        state.advance(context.py(), Reply::Start)?;
        Ok(PermissionCheck {
            state: Mutex::new(state),
        })
    }

    fn state(&self) -> PyResult<MutexGuard<'_, CheckState>> {
        match self.state.try_lock() {
            Ok(guard) => Ok(guard),
            Err(TryLockError::Poisoned(poisoned)) => Ok(poisoned.into_inner()),
            Err(TryLockError::WouldBlock) => Err(PyErr::from(InvalidInput(
                "this PermissionCheck is answering another call; a check serves one call at a time".into(),
            ))),
        }
    }
}

impl CheckState {
    fn advance(&mut self, py: Python<'_>, mut reply: Reply) -> PyResult<CheckStep> {
        let store = self.store.clone();
        let context = self.context.bind(py).clone();
        let name = self.name.bind(py).clone();
        let mut rules = store.reader(&context, &name)?;
        loop {
            let step = self
                .evaluation
                .advance(reply, &mut rules, &self.subject)
                .map_err(advance_error)?;
            let previous = self.pending.take();
            self.step = match step {
                Step::MatchRules {
                    list,
                    from,
                    until,
                    native_hit,
                } => {
                    self.pending = Some(self.pending_rules(py, &rules, list, from..until, native_hit));
                    CheckStep::MatchRules
                }
                Step::CheckReadOnly => match self.read_only {
                    Some(known) => {
                        reply = Reply::ReadOnly(known);
                        continue;
                    }
                    None => CheckStep::CheckReadOnly,
                },
                Step::CheckPermissions => CheckStep::CheckPermissions,
                Step::Done(outcome) => {
                    let display = outcome
                        .rule()
                        .map(|(list, index)| display_of(&rules, previous.as_ref(), list, index))
                        .unwrap_or_default();
                    self.outcome = Some((outcome, display));
                    if outcome.wants_suggestions(self.evaluation.mode()) {
                        CheckStep::DoneSuggest
                    } else {
                        CheckStep::Done
                    }
                }
            };
            return Ok(self.step);
        }
    }

    /// The rules of `list` in `range` that only the tool can judge (all read by this step).
    fn pending_rules(
        &self,
        py: Python<'_>,
        rules: &LiveRules<'_, '_>,
        list: RuleList,
        range: std::ops::Range<usize>,
        native_hit: bool,
    ) -> Pending {
        let native = native_hit.then(|| {
            let display = rules.read(list, range.end).map(|r| r.display.clone());
            (range.end, display.unwrap_or_default())
        });
        let rules = range
            .filter_map(|index| {
                let rule = rules.read(list, index)?;
                let content = rules.content(list, index)?;
                rule.matches(&self.subject)
                    .is_none()
                    .then(|| (index, content.clone_ref(py), rule.display.clone()))
            })
            .collect();
        Pending { list, rules, native }
    }

    fn pending(&self) -> PyResult<&Pending> {
        self.pending.as_ref().ok_or_else(|| {
            PyErr::from(InvalidInput(
                "no rule of this permission check is waiting for match_rule".into(),
            ))
        })
    }

    fn outcome(&self) -> PyResult<(Outcome, &str)> {
        self.outcome
            .as_ref()
            .map(|(outcome, display)| (*outcome, display.as_str()))
            .ok_or_else(|| PyErr::from(InvalidInput("the permission check is not decided yet".into())))
    }
}

/// How the deciding rule prints: from the batch the tool judged, else as read by this step.
fn display_of(rules: &LiveRules<'_, '_>, pending: Option<&Pending>, list: RuleList, index: usize) -> String {
    if let Some(pending) = pending.filter(|p| p.list == list) {
        if let Some((_, _, display)) = pending.rules.iter().find(|(i, _, _)| *i == index) {
            return display.clone();
        }
        if let Some((_, display)) = pending.native.as_ref().filter(|(i, _)| *i == index) {
            return display.clone();
        }
    }
    rules
        .read(list, index)
        .map(|r| r.display.clone())
        .unwrap_or_default()
}

fn advance_error(err: AdvanceError<PyErr>) -> PyErr {
    match err {
        AdvanceError::Protocol(err) => err.into(),
        AdvanceError::Source(err) => err,
    }
}

#[pymethods]
impl PermissionCheck {
    /// What the check needs now (see `CheckStep` in the stub).
    #[getter]
    fn step(&self) -> PyResult<CheckStep> {
        Ok(self.state()?.step)
    }

    /// Answers `"match_rules"` with the position in `pending_contents` of the first rule the
    /// tool's `match_rule` matched, or None when it matched none of them.
    #[pyo3(signature = (position))]
    fn matched(&self, py: Python<'_>, position: Option<usize>) -> PyResult<CheckStep> {
        let mut state = self.state()?;
        let pending = state.pending()?;
        let index = match position {
            None => None,
            Some(position) => Some(pending.rules.get(position).map(|(i, _, _)| *i).ok_or_else(|| {
                PyErr::from(InvalidInput(format!(
                    "position {position} is outside the {} pending rules",
                    pending.rules.len()
                )))
            })?),
        };
        state.advance(py, Reply::Matched(index))
    }

    /// Answers `"check_read_only"` with the truthiness of the tool's `check_read_only`.
    fn read_only(&self, py: Python<'_>, yes: bool) -> PyResult<CheckStep> {
        self.state()?.advance(py, Reply::ReadOnly(yes))
    }

    /// Answers `"check_permissions"` with how the tool's decision reads: `"final"` (ALLOW / DENY),
    /// `"safety_ask"` (ASK with `bypass_immune`) or `"continue"`.
    fn tool_decision(&self, py: Python<'_>, verdict: Verdict) -> PyResult<CheckStep> {
        self.state()?.advance(py, Reply::Tool(verdict.into()))
    }

    /// The `rule_content`s the tool's `match_rule` must judge, in order (at `"match_rules"`).
    #[getter]
    fn pending_contents<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let state = self.state()?;
        PyTuple::new(
            py,
            state
                .pending()?
                .rules
                .iter()
                .map(|(_, content, _)| content.bind(py)),
        )
    }

    /// Whether the check ended on the tool's own safety ASK (which carries the suggestions).
    #[getter]
    fn tool_safety_ask(&self) -> PyResult<bool> {
        Ok(self.state()?.outcome()?.0 == Outcome::ToolSafetyAsk)
    }

    /// The engine-made decision once decided, as `(behavior, message, reason, echoes_input)`;
    /// `None` when the tool's own decision is returned as is. `tool_decision` is that decision;
    /// its `decision_reason` is quoted when DONT_ASK converts it.
    #[pyo3(signature = (tool_decision=None))]
    fn decision(&self, tool_decision: Option<&Bound<'_, PyAny>>) -> PyResult<Option<MadeDecision>> {
        let state = self.state()?;
        let (outcome, rule) = state.outcome()?;
        let mode = state.evaluation.mode();
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
        Ok(match outcome.decision(mode, &state.tool, rule, &tool_reason) {
            Decision::FromTool => None,
            Decision::New {
                behavior,
                message,
                reason,
                echoes_input,
            } => Some((behavior.into(), message, reason, echoes_input)),
        })
    }

    fn __repr__(&self) -> String {
        let Ok(state) = self.state() else {
            return "PermissionCheck(<answering a call>)".to_owned();
        };
        format!(
            "PermissionCheck(mode={:?}, tool={:?}, step={:?}, outcome={:?})",
            state.evaluation.mode().value(),
            state.tool,
            state.step.text(),
            state.outcome.as_ref().map(|(outcome, _)| outcome)
        )
    }
}
