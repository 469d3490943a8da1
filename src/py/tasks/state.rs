//! A direct read of `TaskContext.model_dump()`-shaped dicts: the usual shapes (dicts, lists and
//! strs) go straight into task records; anything else is left to the general (pythonize) reader,
//! which also names the path of bad data.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use serde_json::{Map, Value};

use crate::core::tasks::model::{TaskState, now_iso, random_id};
use crate::core::tasks::{Id, Status, TaskRecord};
use crate::py::convert::{MAX_DEPTH, check_nesting_of, to_json_value};

/// Checks that every task field of a state dict nests at most [`MAX_DEPTH`] lists/dicts deep
/// (anything else in it a level or two more), before any reader walks it recursively.
pub fn check_nesting(state: &Bound<'_, PyDict>) -> PyResult<()> {
    let name = |obj: &Bound<'_, PyAny>| obj.str().map_or_else(|_| "?".into(), |s| s.to_string());
    for (key, value) in state.iter() {
        let is_tasks = key
            .cast::<PyString>()
            .is_ok_and(|k| k.to_str().is_ok_and(|k| k == "tasks"));
        if !is_tasks {
            check_nesting_of(&value, MAX_DEPTH, || name(&key))?;
        } else if let Ok(tasks) = value.cast::<PyList>() {
            for (i, task) in tasks.iter().enumerate() {
                match task.cast::<PyDict>() {
                    Ok(fields) => {
                        for (field, v) in fields.iter() {
                            if !v.is_instance_of::<PyString>() {
                                check_nesting_of(&v, MAX_DEPTH, || format!("tasks[{i}].{}", name(&field)))?;
                            }
                        }
                    }
                    Err(_) => check_nesting_of(&task, MAX_DEPTH + 1, || format!("tasks[{i}]"))?,
                }
            }
        } else {
            check_nesting_of(&value, MAX_DEPTH + 2, || "tasks".to_owned())?;
        }
    }
    Ok(())
}

/// The records of `state["tasks"]` when every value has the plain shape (metadata checked for
/// NaN and bytes on the way); `None` sends the state to the general reader.
pub fn read_plain(state: &Bound<'_, PyDict>) -> Option<Vec<TaskRecord>> {
    let mut tasks = None;
    for (key, value) in state.iter() {
        // Any other key goes the general way (which checks how deep it nests, then ignores it).
        (key.cast::<PyString>().ok()?.to_str().ok()? == "tasks").then_some(())?;
        tasks = Some(value);
    }
    let Some(tasks) = tasks else {
        return Some(Vec::new());
    };
    let tasks = tasks.cast_exact::<PyList>().ok()?;
    let mut out = Vec::with_capacity(tasks.len());
    for task in tasks.iter() {
        out.push(read_task(task.cast_exact::<PyDict>().ok()?)?);
    }
    Some(out)
}

fn read_task(task: &Bound<'_, PyDict>) -> Option<TaskRecord> {
    let (mut subject, mut description, mut metadata) = (None, None, None);
    let (mut created_at, mut state, mut id, mut owner) = (None, TaskState::Pending, None, None);
    let (mut blocks, mut blocked_by) = (Vec::new(), Vec::new());
    for (key, value) in task.iter() {
        match key.cast::<PyString>().ok()?.to_str().ok()? {
            "subject" => subject = Some(text(&value)?),
            "description" => description = Some(text(&value)?),
            "metadata" => metadata = Some(json_object(&value)?),
            "created_at" => created_at = Some(text(&value)?),
            "state" => state = Status::parse(&text(&value)?)?.state()?,
            "id" => id = Some(Id::from(value_str(&value)?)),
            "owner" if value.is_none() => owner = None,
            "owner" => owner = Some(text(&value)?),
            "blocks" => blocks = ids(&value)?,
            "blocked_by" => blocked_by = ids(&value)?,
            _ => return None, // the general reader checks and ignores other keys
        }
    }
    Some(TaskRecord {
        subject: subject?,
        description: description?,
        metadata: metadata?,
        created_at: created_at.unwrap_or_else(now_iso),
        state,
        id: id.unwrap_or_else(random_id),
        owner,
        blocks,
        blocked_by,
    })
}

fn text(value: &Bound<'_, PyAny>) -> Option<String> {
    value_str(value).map(str::to_owned)
}

fn value_str<'a>(value: &'a Bound<'_, PyAny>) -> Option<&'a str> {
    value.cast::<PyString>().ok()?.to_str().ok()
}

/// A metadata dict as a JSON object (NaN, infinities and bytes refused).
fn json_object(value: &Bound<'_, PyAny>) -> Option<Map<String, Value>> {
    let dict = value.cast_exact::<PyDict>().ok()?;
    if dict.is_empty() {
        return Some(Map::new());
    }
    match to_json_value(dict.as_any(), "metadata").ok()? {
        Value::Object(map) => Some(map),
        _ => None,
    }
}

fn ids(value: &Bound<'_, PyAny>) -> Option<Vec<Id>> {
    let list = value.cast_exact::<PyList>().ok()?;
    list.iter().map(|id| Some(Id::from(value_str(&id)?))).collect()
}
