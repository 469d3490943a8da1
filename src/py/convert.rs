//! The one place where Python values become JSON values: every binding that takes JSON-like
//! input (task metadata, task state dicts, plan state, todos, grants) converts it here, so the
//! same rules hold everywhere — dicts with str keys, lists/tuples, str, int (64-bit), finite
//! float, bool and None, nested at most [`MAX_DEPTH`] lists/dicts deep — and every refusal
//! names the path of the bad part. The walk never recurses past the limit, so no input can
//! overflow the stack.

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::{Map, Number, Value};

pub use crate::core::nesting::MAX_DEPTH;
use crate::core::nesting::{Step, path_text, too_deep_message};
use crate::py::errors::InvalidInput;

/// Why a value was refused, and where (steps from the root, innermost last).
struct Refusal {
    steps: Vec<Step>,
    problem: Problem,
}

enum Problem {
    TooDeep,
    Other(String),
}

impl Refusal {
    fn new(problem: Problem) -> Self {
        Refusal {
            steps: Vec::new(),
            problem,
        }
    }

    fn under(mut self, step: Step) -> Self {
        self.steps.push(step);
        self
    }

    fn message(mut self, root: &str) -> String {
        self.steps.reverse();
        match self.problem {
            Problem::TooDeep => too_deep_message(root, &self.steps),
            Problem::Other(problem) => format!("{}: {problem}", path_text(root, &self.steps)),
        }
    }
}

fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".into())
}

/// The path step of a dict key (a non-str key is shown by its repr).
fn key_step(k: &Bound<'_, PyAny>) -> Step {
    match k.cast::<PyString>() {
        Ok(s) => Step::Key(s.to_string_lossy().into_owned()),
        Err(_) => Step::Key(k.repr().map_or_else(|_| "?".into(), |r| r.to_string())),
    }
}

/// The items of a list or tuple (`None` for anything else).
fn sequence<'py>(obj: &Bound<'py, PyAny>) -> Option<Vec<Bound<'py, PyAny>>> {
    if let Ok(l) = obj.cast::<PyList>() {
        Some(l.iter().collect())
    } else if let Ok(t) = obj.cast::<PyTuple>() {
        Some(t.iter().collect())
    } else {
        None
    }
}

/// Checks that `obj` nests at most `limit` lists/dicts deep (itself at level 1).
fn check_depth(obj: &Bound<'_, PyAny>, limit: usize) -> Result<(), Refusal> {
    if let Ok(d) = obj.cast::<PyDict>() {
        if limit == 0 {
            return Err(Refusal::new(Problem::TooDeep));
        }
        for (k, v) in d.iter() {
            check_depth(&v, limit - 1).map_err(|r| r.under(key_step(&k)))?;
        }
    } else if let Ok(l) = obj.cast::<PyList>() {
        check_items(l.iter(), limit)?;
    } else if let Ok(t) = obj.cast::<PyTuple>() {
        check_items(t.iter(), limit)?;
    }
    Ok(())
}

/// [`check_depth`] for the items of a list or tuple at `limit` levels left.
fn check_items<'py>(items: impl Iterator<Item = Bound<'py, PyAny>>, limit: usize) -> Result<(), Refusal> {
    if limit == 0 {
        return Err(Refusal::new(Problem::TooDeep));
    }
    for (i, v) in items.enumerate() {
        check_depth(&v, limit - 1).map_err(|r| r.under(Step::Index(i)))?;
    }
    Ok(())
}

fn convert(obj: &Bound<'_, PyAny>, limit: usize) -> Result<Value, Refusal> {
    let other = |text: String| Refusal::new(Problem::Other(text));
    if obj.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(b) = obj.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        let text = s
            .to_str()
            .map_err(|_| other("text is not valid Unicode (it contains lone surrogates)".into()))?;
        return Ok(Value::String(text.to_owned()));
    }
    if obj.is_instance_of::<PyInt>() {
        if let Ok(v) = obj.extract::<i64>() {
            return Ok(Value::from(v));
        }
        if let Ok(v) = obj.extract::<u64>() {
            return Ok(Value::from(v));
        }
        return Err(other(
            "integer outside the 64-bit range JSON numbers are read in".into(),
        ));
    }
    if let Ok(f) = obj.cast::<PyFloat>() {
        let v = f.value();
        return Number::from_f64(v)
            .map(Value::Number)
            .ok_or_else(|| other(format!("{v} is not a valid JSON number")));
    }
    if let Ok(d) = obj.cast::<PyDict>() {
        if limit == 0 {
            return Err(Refusal::new(Problem::TooDeep));
        }
        let mut map = Map::new();
        for (k, v) in d.iter() {
            let Ok(key) = k.cast::<PyString>() else {
                let problem = format!("dict keys must be str, not {}", type_name(&k));
                return Err(other(problem).under(key_step(&k)));
            };
            let key = key.to_string_lossy().into_owned();
            match convert(&v, limit - 1) {
                Ok(value) => map.insert(key, value),
                Err(r) => return Err(r.under(Step::Key(key))),
            };
        }
        return Ok(Value::Object(map));
    }
    let Some(items) = sequence(obj) else {
        return Err(other(format!("a {} is not JSON-compatible", type_name(obj))));
    };
    if limit == 0 {
        return Err(Refusal::new(Problem::TooDeep));
    }
    items
        .iter()
        .enumerate()
        .map(|(i, child)| convert(child, limit - 1).map_err(|r| r.under(Step::Index(i))))
        .collect::<Result<Vec<_>, _>>()
        .map(Value::Array)
}

/// Converts a JSON-like Python value into a JSON value, naming `what` and the path of any bad
/// part (wrong type, non-str key, NaN or infinity, an int beyond 64 bits, too deep).
pub fn to_json_value(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Value> {
    convert(obj, MAX_DEPTH).map_err(|r| InvalidInput(r.message(what)).into())
}

/// Checks only that `obj` nests at most `limit` lists/dicts deep (itself at level 1), for
/// values kept as Python objects; the error names `what` and the path.
pub fn check_nesting(obj: &Bound<'_, PyAny>, what: &str, limit: usize) -> PyResult<()> {
    check_nesting_of(obj, limit, || what.to_owned())
}

/// [`check_nesting`] with the name built only for an error (for checks run on every field).
pub fn check_nesting_of(obj: &Bound<'_, PyAny>, limit: usize, what: impl FnOnce() -> String) -> PyResult<()> {
    check_depth(obj, limit).map_err(|r| InvalidInput(r.message(&what())).into())
}

/// `Union[Literal["a"], Literal["b"], ...]`: the run-time form of a stub's `Literal["a", "b", ...]`
/// alias, so the words a binding accepts or returns are spelled once, in Rust.
pub fn literal_alias<'py>(
    py: Python<'py>,
    words: impl IntoIterator<Item = &'static str>,
) -> PyResult<Bound<'py, PyAny>> {
    let typing = py.import("typing")?;
    let literal = typing.getattr("Literal")?;
    let each = words
        .into_iter()
        .map(|w| literal.get_item(w))
        .collect::<PyResult<Vec<_>>>()?;
    typing.getattr("Union")?.get_item(PyTuple::new(py, each)?)
}

/// Converts a JSON value (or any serde value) into the equivalent Python object.
pub fn to_py<'py, T: serde::Serialize + ?Sized>(py: Python<'py>, value: &T) -> PyResult<Bound<'py, PyAny>> {
    pythonize::pythonize(py, value).map_err(|e| InvalidInput(format!("cannot convert: {e}")).into())
}
