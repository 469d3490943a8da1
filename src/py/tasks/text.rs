//! AgentScope's `TaskGet` / `TaskList` texts, rendered from live `Task` objects (fields are read
//! at call time, so direct edits always show).

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString};

/// `f"{value}"` for the values a `Task` holds (strings are used as they are).
fn fmt_into(out: &mut String, value: &Bound<'_, PyAny>) -> PyResult<()> {
    match value.cast::<PyString>() {
        Ok(s) => out.push_str(s.to_str()?),
        Err(_) => out.push_str(value.str()?.to_str()?),
    }
    Ok(())
}

/// Appends the items of a list joined by `", "`, each behind `prefix`.
fn join_into(out: &mut String, list: &Bound<'_, PyAny>, prefix: &str) -> PyResult<()> {
    for (i, item) in list.try_iter()?.enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(prefix);
        fmt_into(out, &item?)?;
    }
    Ok(())
}

/// AgentScope's `TaskGet` text for one task.
pub fn task_details(task: &Bound<'_, PyAny>) -> PyResult<String> {
    let py = task.py();
    let mut out = String::with_capacity(128);
    out.push_str("Task (id=");
    fmt_into(&mut out, &task.getattr(intern!(py, "id"))?)?;
    out.push_str("): ");
    fmt_into(&mut out, &task.getattr(intern!(py, "subject"))?)?;
    out.push_str("\nStatus: ");
    fmt_into(&mut out, &task.getattr(intern!(py, "state"))?)?;
    out.push_str("\nDescription: ");
    fmt_into(&mut out, &task.getattr(intern!(py, "description"))?)?;
    let owner = task.getattr(intern!(py, "owner"))?;
    if owner.is_truthy()? {
        out.push_str("\nOwner: ");
        fmt_into(&mut out, &owner)?;
    }
    for (field, label) in [
        (intern!(py, "blocked_by"), "\nBlocked by: "),
        (intern!(py, "blocks"), "\nBlocks: "),
    ] {
        let list = task.getattr(field)?;
        if list.is_truthy()? {
            out.push_str(label);
            join_into(&mut out, &list, "#")?;
        }
    }
    let metadata = task.getattr(intern!(py, "metadata"))?;
    if metadata.is_truthy()? {
        out.push_str("\nMetadata: ");
        fmt_into(&mut out, &metadata)?;
    }
    Ok(out)
}

/// AgentScope's `TaskList` text for a list of `Task` objects.
#[pyfunction]
pub fn render_task_list(tasks: &Bound<'_, PyList>) -> PyResult<String> {
    let py = tasks.py();
    if tasks.is_empty() {
        return Ok("No tasks available.".to_owned());
    }
    let mut out = String::with_capacity(tasks.len() * 48);
    for (i, task) in tasks.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        fmt_into(&mut out, &task.getattr(intern!(py, "id"))?)?;
        out.push_str(" [");
        fmt_into(&mut out, &task.getattr(intern!(py, "state"))?)?;
        out.push_str("] ");
        fmt_into(&mut out, &task.getattr(intern!(py, "subject"))?)?;
        let owner = task.getattr(intern!(py, "owner"))?;
        if owner.is_truthy()? {
            out.push('(');
            fmt_into(&mut out, &owner)?;
            out.push(')');
        }
        let blocked_by = task.getattr(intern!(py, "blocked_by"))?;
        if blocked_by.is_truthy()? {
            out.push_str("[blocked by ");
            join_into(&mut out, &blocked_by, "")?;
            out.push(']');
        }
    }
    Ok(out)
}
