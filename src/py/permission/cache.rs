//! `RuleCache`: one engine's compiled rules; starts checks against a permission context.

use std::sync::Arc;

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyString, PyTuple};

use super::check::PermissionCheck;
use super::live::RuleStore;
use super::protocol::MatcherKind;
use crate::core::permission::Mode;
use crate::py::errors::{InvalidInput, UnknownMode};

/// The compiled rules of permission contexts, by tool name, re-validated lazily: a check reads
/// the live rule lists only as far as its decision needs (AgentScope's first-match order) and
/// compares each rule it reads with the cached one (same rule object, same `rule_content` object),
/// so every change — `add_rule`, replaced or edited lists, rules edited in place, a replaced
/// context — is seen by the next decision it can affect, at a cost that does not grow with the
/// rules after the deciding one.
///
/// `modes` are the five `PermissionMode` members (DEFAULT, ACCEPT_EDITS, EXPLORE, BYPASS,
/// DONT_ASK). A cache may be shared by threads: a check that finds it in use (another thread, or re-entered from
/// Python) compiles what it reads without it instead of waiting.
#[pyclass(module = "planmode._core", name = "RuleCache", frozen)]
pub struct RuleCache {
    modes: Py<PyTuple>,
    store: Arc<RuleStore>,
}

#[pymethods]
impl RuleCache {
    #[new]
    fn new(modes: Bound<'_, PyTuple>) -> PyResult<Self> {
        if modes.len() != Mode::ALL.len() {
            return Err(PyErr::from(InvalidInput(format!(
                "RuleCache needs the {} PermissionMode members, got {} objects",
                Mode::ALL.len(),
                modes.len()
            ))));
        }
        Ok(RuleCache {
            modes: modes.unbind(),
            store: Arc::default(),
        })
    }

    /// How many rules have been compiled so far (unchanged rules are never compiled again).
    #[getter]
    fn compiled_rules(&self) -> usize {
        self.store.compiled()
    }

    /// Starts checking one invocation of the tool named `tool_name`, whose `match_rule` the
    /// matcher `kind` reproduces, against `context` (an AgentScope `PermissionContext`; each rule
    /// list is read only when the check gets to it, as AgentScope does). `read_only` is the
    /// invocation's read-only verdict when known up front (ToolBase's `check_read_only` is
    /// `is_read_only`).
    ///
    /// Raises UnknownModeError (a ValueError) when `context.mode` is not a PermissionMode, and
    /// InvalidInputError for a `kind` that names no matcher.
    #[pyo3(signature = (context, tool_name, kind, tool_input, read_only=None))]
    fn begin(
        &self,
        context: &Bound<'_, PyAny>,
        tool_name: &Bound<'_, PyString>,
        kind: MatcherKind,
        tool_input: &Bound<'_, PyAny>,
        read_only: Option<bool>,
    ) -> PyResult<PermissionCheck> {
        let mode = self.mode_of(&context.getattr(intern!(context.py(), "mode"))?)?;
        let subject = kind.subject(tool_input)?;
        PermissionCheck::start(self.store.clone(), context, tool_name, mode, subject, read_only)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!("RuleCache({})", self.modes.bind(py).repr()?))
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        (py.get_type::<RuleCache>(), (self.modes.clone_ref(py),)).into_pyobject(py)
    }
}

impl RuleCache {
    /// The mode `value` is, compared like AgentScope's dispatch (`==` against each member).
    fn mode_of(&self, value: &Bound<'_, PyAny>) -> PyResult<Mode> {
        let modes = self.modes.bind(value.py());
        if let Some(index) = modes.iter().position(|m| m.is(value)) {
            return Ok(Mode::ALL[index]);
        }
        for (index, member) in modes.iter().enumerate() {
            if value.eq(member)? {
                return Ok(Mode::ALL[index]);
            }
        }
        let shown = value.call_method1(intern!(value.py(), "__format__"), ("",))?;
        Err(PyErr::from(UnknownMode(format!(
            "Unknown permission mode: {}",
            shown.str()?
        ))))
    }
}
