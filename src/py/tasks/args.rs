//! Argument conversion shared by the task bindings: AgentScope's argument types, checked with
//! messages that name the argument and what was given.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};

use crate::core::tasks::ids::NumericId;
use crate::core::tasks::{Status, UpdateRequest};

/// `what must be <expected>, got <type>`.
pub fn type_error(what: &str, expected: &str, got: &Bound<'_, PyAny>) -> String {
    let name = got
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".into());
    format!("{what} must be {expected}, got {name}")
}

/// A `str` argument.
pub fn string(obj: &Bound<'_, PyAny>, what: &str) -> Result<String, String> {
    text(obj, || what.to_owned()).map(str::to_owned)
}

/// A `str` borrowed from the Python object; `what` names it, and is built only for an error.
pub fn text<'a>(obj: &'a Bound<'_, PyAny>, what: impl FnOnce() -> String) -> Result<&'a str, String> {
    match obj.cast::<PyString>() {
        Ok(s) => s
            .to_str()
            .map_err(|e| format!("{} is not valid UTF-8 text: {e}", what())),
        Err(_) => Err(type_error(&what(), "a string", obj)),
    }
}

/// A `str | None` argument.
pub fn opt_string(obj: Option<&Bound<'_, PyAny>>, what: &str) -> Result<Option<String>, String> {
    obj.filter(|o| !o.is_none()).map(|o| string(o, what)).transpose()
}

/// A `list[str] | None` argument (a tuple is accepted too).
pub fn opt_ids(obj: Option<&Bound<'_, PyAny>>, what: &str) -> Result<Option<Vec<String>>, String> {
    let Some(obj) = obj.filter(|o| !o.is_none()) else {
        return Ok(None);
    };
    let items: Vec<Bound<'_, PyAny>> = if let Ok(list) = obj.cast::<PyList>() {
        list.iter().collect()
    } else if let Ok(tuple) = obj.cast::<PyTuple>() {
        tuple.iter().collect()
    } else {
        return Err(type_error(what, "a list of task ids", obj));
    };
    items
        .iter()
        .enumerate()
        .map(|(i, item)| string(item, &format!("{what}[{i}]")))
        .collect::<Result<_, _>>()
        .map(Some)
}

/// A `status` argument: one of AgentScope's four names, or None.
pub fn opt_status(obj: Option<&Bound<'_, PyAny>>) -> Result<Option<Status>, String> {
    let Some(name) = opt_string(obj, "status")? else {
        return Ok(None);
    };
    Status::parse(&name).map(Some).ok_or_else(|| {
        format!("status must be one of pending, in_progress, completed, deleted; got {name:?}")
    })
}

/// A `dict | None` argument.
pub fn opt_dict<'py>(
    obj: Option<&Bound<'py, PyAny>>,
    what: &str,
) -> Result<Option<Bound<'py, PyDict>>, String> {
    let Some(obj) = obj.filter(|o| !o.is_none()) else {
        return Ok(None);
    };
    obj.cast::<PyDict>()
        .map(|d| Some(d.clone()))
        .map_err(|_| type_error(what, "a dict", obj))
}

/// What Python's `int(id)` makes of an id the Rust parser leaves to the host (non-ASCII digits
/// or whitespace); negative values count as non-numeric.
pub fn python_int(id: &str) -> Option<NumericId> {
    Python::attach(|py| {
        let value = py.get_type::<pyo3::types::PyInt>().call1((id,)).ok()?;
        let text = value.str().ok()?.to_string();
        NumericId::from_digits(&text)
    })
}

/// The raw keyword arguments of a `TaskUpdate` call besides `task_id` and `metadata`.
pub struct UpdateArgs<'a, 'py> {
    pub subject: Option<&'a Bound<'py, PyAny>>,
    pub description: Option<&'a Bound<'py, PyAny>>,
    pub add_blocks: Option<&'a Bound<'py, PyAny>>,
    pub status: Option<&'a Bound<'py, PyAny>>,
    pub add_blocked_by: Option<&'a Bound<'py, PyAny>>,
    pub owner: Option<&'a Bound<'py, PyAny>>,
}

/// A `TaskUpdate` call's id and fields, checked and owned.
pub struct UpdateFields {
    pub task_id: String,
    pub subject: Option<String>,
    pub description: Option<String>,
    pub add_blocks: Option<Vec<String>>,
    pub status: Option<Status>,
    pub add_blocked_by: Option<Vec<String>>,
    pub owner: Option<String>,
}

impl UpdateArgs<'_, '_> {
    /// Checks `task_id` and each field in signature order, naming the first bad one.
    pub fn parse(&self, task_id: &Bound<'_, PyAny>) -> Result<UpdateFields, String> {
        Ok(UpdateFields {
            task_id: string(task_id, "task_id")?,
            subject: opt_string(self.subject, "subject")?,
            description: opt_string(self.description, "description")?,
            add_blocks: opt_ids(self.add_blocks, "add_blocks")?,
            status: opt_status(self.status)?,
            add_blocked_by: opt_ids(self.add_blocked_by, "add_blocked_by")?,
            owner: opt_string(self.owner, "owner")?,
        })
    }
}

impl UpdateFields {
    /// The fields as the core's request; `metadata` says whether a metadata merge comes too.
    pub fn request(&self, metadata: bool) -> UpdateRequest<'_> {
        UpdateRequest {
            subject: self.subject.as_deref(),
            description: self.description.as_deref(),
            add_blocks: self.add_blocks.as_deref(),
            add_blocked_by: self.add_blocked_by.as_deref(),
            status: self.status,
            owner: self.owner.as_deref(),
            metadata,
        }
    }
}
