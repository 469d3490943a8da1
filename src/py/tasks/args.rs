//! Argument conversion shared by the task bindings: AgentScope's argument types, checked with
//! messages that name the argument and what was given.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};

use crate::core::tasks::Status;
use crate::core::tasks::ids::NumericId;

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
    let s = obj
        .cast::<PyString>()
        .map_err(|_| type_error(what, "a string", obj))?;
    s.to_str()
        .map(str::to_owned)
        .map_err(|e| format!("{what} is not valid UTF-8 text: {e}"))
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
