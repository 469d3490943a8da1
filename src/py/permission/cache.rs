//! `RuleCache`: compiles a permission context's rule lists once and starts checks against them.

use std::collections::HashMap;

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyTuple, PyType};

use super::check::PermissionCheck;
use super::snapshot::{CachedList, load};
use crate::core::permission::{Mode, RuleList, Subject};
use crate::py::exceptions::{InvalidInputError, UnknownModeError};

/// Which native matcher reproduces a tool's `match_rule` (decided by the Python side).
const KIND_TOOL: u8 = 0;
const KIND_BASH: u8 = 1;
const KIND_FILE: u8 = 2;
const KIND_GLOB: u8 = 3;
const KIND_GREP: u8 = 4;

/// Compiled rule lists of permission contexts, keyed by tool name and checked against the live
/// rule dictionaries on every use (list and rule identities, each rule's `rule_content`), so rules
/// added in place by `add_rule`, replaced lists and replaced contexts are all seen at once.
///
/// `modes` are the five `PermissionMode` members (DEFAULT, ACCEPT_EDITS, EXPLORE, BYPASS,
/// DONT_ASK); one cache serves one engine.
#[pyclass(module = "planmode._core", name = "RuleCache")]
pub struct RuleCache {
    modes: Py<PyTuple>,
    lists: [HashMap<String, CachedList>; 3],
    compiled: usize,
}

#[pymethods]
impl RuleCache {
    #[new]
    fn new(modes: Bound<'_, PyTuple>) -> PyResult<Self> {
        if modes.len() != Mode::ALL.len() {
            return Err(InvalidInputError::new_err(format!(
                "RuleCache needs the {} PermissionMode members, got {} objects",
                Mode::ALL.len(),
                modes.len()
            )));
        }
        Ok(RuleCache {
            modes: modes.unbind(),
            lists: Default::default(),
            compiled: 0,
        })
    }

    /// How many rules have been compiled so far (unchanged lists are never compiled again).
    #[getter]
    fn compiled_rules(&self) -> usize {
        self.compiled
    }

    /// Starts checking one invocation of the tool named `tool_name` (whose `match_rule` is
    /// reproduced by matcher `kind`: 0 none, 1 Bash, 2 Read/Write/Edit, 3 Glob, 4 Grep) against
    /// `context` (an AgentScope `PermissionContext`, read now).
    ///
    /// Raises UnknownModeError (a ValueError) when `context.mode` is not a PermissionMode.
    fn begin(
        &mut self,
        context: &Bound<'_, PyAny>,
        tool_name: &Bound<'_, PyString>,
        kind: u8,
        tool_input: &Bound<'_, PyAny>,
    ) -> PyResult<PermissionCheck> {
        let py = context.py();
        let mode = self.mode_of(&context.getattr(intern!(py, "mode"))?)?;
        let names = [
            intern!(py, "deny_rules"),
            intern!(py, "ask_rules"),
            intern!(py, "allow_rules"),
        ];
        let mut snapshots = Vec::with_capacity(3);
        for list in RuleList::ALL {
            let rules = context.getattr(names[list.index()])?;
            let (snapshot, compiled) = load(&rules, tool_name, &mut self.lists[list.index()])?;
            self.compiled += compiled;
            snapshots.push(snapshot);
        }
        let subject = subject(kind, tool_input)?;
        let lists = [snapshots[0].clone(), snapshots[1].clone(), snapshots[2].clone()];
        Ok(PermissionCheck::new(
            mode,
            tool_name.to_str()?.to_owned(),
            lists,
            subject,
        ))
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!("RuleCache({})", self.modes.bind(py).repr()?))
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> (Bound<'py, PyType>, (Py<PyTuple>,)) {
        (py.get_type::<RuleCache>(), (self.modes.clone_ref(py),))
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
        Err(UnknownModeError::new_err(format!(
            "Unknown permission mode: {}",
            shown.str()?
        )))
    }
}

/// `tool_input[key]` when it is absent (`Ok(None)`), None or a str; `Err(())` for anything else.
fn text_field(input: &Bound<'_, PyDict>, key: &str) -> PyResult<Result<Option<String>, ()>> {
    let Some(value) = input.get_item(key)? else {
        return Ok(Ok(None));
    };
    if value.is_none() {
        return Ok(Ok(None));
    }
    match value.cast_exact::<PyString>().ok().and_then(|s| s.to_str().ok()) {
        Some(text) => Ok(Ok(Some(text.to_owned()))),
        None => Ok(Err(())),
    }
}

/// The invocation facts the native matcher of `kind` reads; `Subject::Tool` whenever the input is
/// not plain enough to be sure of the tool's own reading.
fn subject(kind: u8, tool_input: &Bound<'_, PyAny>) -> PyResult<Subject> {
    let Ok(input) = tool_input.cast_exact::<PyDict>() else {
        return Ok(Subject::Tool);
    };
    let chars = |s: Option<String>| s.map(|s| s.chars().collect::<Vec<char>>());
    Ok(match kind {
        KIND_BASH => match text_field(input, "command")? {
            Ok(command) => Subject::Command(command.unwrap_or_default()),
            Err(()) => Subject::Tool,
        },
        KIND_FILE => match text_field(input, "file_path")? {
            Ok(path) => Subject::FilePath(chars(path)),
            Err(()) => Subject::Tool,
        },
        KIND_GLOB => match (text_field(input, "path")?, text_field(input, "pattern")?) {
            (Ok(path), Ok(pattern)) => Subject::Search {
                path: chars(path),
                pattern: chars(pattern),
            },
            _ => Subject::Tool,
        },
        KIND_GREP => match text_field(input, "path")? {
            Ok(Some(path)) if !path.is_empty() => Subject::FilePath(chars(Some(path))),
            _ => Subject::Tool,
        },
        KIND_TOOL => Subject::Tool,
        other => {
            return Err(InvalidInputError::new_err(format!(
                "unknown matcher kind {other} (expected 0-4)"
            )));
        }
    })
}
