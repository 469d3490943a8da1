//! Conversions between Python objects and JSON values that map every failure to our own exceptions
//! (pythonize's own errors would surface as a bare `Exception`).

use pyo3::prelude::*;
use serde_json::Value;

use super::exceptions::InvalidInputError;

/// Converts a Python object (dict, list, str, int, float, bool, None) into a JSON value.
///
/// Refuses NaN and infinities, bytes, non-string keys and integers outside the JSON range,
/// naming `what` in the error.
pub fn to_json_value(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Value> {
    let value: Value = pythonize::depythonize(obj)
        .map_err(|e| InvalidInputError::new_err(format!("{what}: not JSON-compatible: {e}")))?;
    if let Some(bad) = find_non_finite(obj)? {
        return Err(InvalidInputError::new_err(format!(
            "{what}: {bad} is not a valid JSON number"
        )));
    }
    Ok(value)
}

/// Converts a JSON value into the equivalent Python object.
pub fn to_py<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    pythonize::pythonize(py, value).map_err(|e| InvalidInputError::new_err(format!("cannot convert: {e}")))
}

/// pythonize turns NaN into `null` silently; walk the object once to refuse it instead.
fn find_non_finite(obj: &Bound<'_, PyAny>) -> PyResult<Option<String>> {
    use pyo3::types::{PyDict, PyFloat, PyList, PyTuple};
    if let Ok(f) = obj.cast::<PyFloat>() {
        let v = f.value();
        return Ok((!v.is_finite()).then(|| v.to_string()));
    }
    if let Ok(d) = obj.cast::<PyDict>() {
        for (_, v) in d.iter() {
            if let Some(bad) = find_non_finite(&v)? {
                return Ok(Some(bad));
            }
        }
    } else if let Ok(l) = obj.cast::<PyList>() {
        for v in l.iter() {
            if let Some(bad) = find_non_finite(&v)? {
                return Ok(Some(bad));
            }
        }
    } else if let Ok(t) = obj.cast::<PyTuple>() {
        for v in t.iter() {
            if let Some(bad) = find_non_finite(&v)? {
                return Ok(Some(bad));
            }
        }
    }
    Ok(None)
}
