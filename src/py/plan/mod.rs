//! Bindings for the plan-mode manager: `PlanBook` (the state machine over the stored JSON),
//! `PlanWorkspace` (safe plan-file I/O) and a few helpers.

mod book;
mod report;
mod workspace;

use pyo3::prelude::*;
use pyo3::types::PyString;

use super::errors::InvalidInput;
use crate::core::plan::content::{DEFAULT_MAX_PLAN_BYTES, sha256_hex, validate_plan_text};
use crate::core::plan::{clock, path, steps};

/// Extracts a `str` argument as UTF-8, naming `what` when it is not a str or holds lone surrogates.
pub(crate) fn text_arg(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<String> {
    let s = obj.cast::<PyString>().map_err(|_| {
        let ty = obj
            .get_type()
            .name()
            .map_or_else(|_| "?".to_string(), |n| n.to_string());
        InvalidInput(format!("{what} must be a str, got {ty}"))
    })?;
    let text = s.to_str().map_err(|_| {
        InvalidInput(format!(
            "{what} is not valid UTF-8 text (it contains lone surrogates)"
        ))
    })?;
    Ok(text.to_string())
}

/// Lowercase hex sha256 of the UTF-8 bytes of `text`.
#[pyfunction]
fn plan_sha256(text: &Bound<'_, PyAny>) -> PyResult<String> {
    Ok(sha256_hex(&text_arg(text, "text")?))
}

/// Checks plan text (non-blank, no NUL, at most `max_bytes`); raises InvalidInputError.
#[pyfunction]
#[pyo3(signature = (text, max_bytes = DEFAULT_MAX_PLAN_BYTES, what = "plan content"))]
fn check_plan_text(text: &Bound<'_, PyAny>, max_bytes: usize, what: &str) -> PyResult<()> {
    validate_plan_text(&text_arg(text, what)?, max_bytes, what).map_err(PyErr::from)
}

/// The steps of a markdown plan (numbered items `1. ...` and task-list items `- [ ] ...`), in order.
#[pyfunction]
fn plan_steps(text: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    Ok(steps::numbered_steps(&text_arg(text, "plan text")?))
}

/// The plan text of `plan_write`'s arguments (`{content?, steps?, risks?, prerequisites?,
/// verification?, scope?}`): `content` as written when no structured field is given, else the
/// rendered markdown. Raises InvalidInputError naming the field.
#[pyfunction]
#[pyo3(signature = (fields, max_bytes = DEFAULT_MAX_PLAN_BYTES))]
fn render_plan(fields: &Bound<'_, PyAny>, max_bytes: usize) -> PyResult<String> {
    if let Ok(d) = fields.cast::<pyo3::types::PyDict>()
        && let Some(content) = d.get_item("content")?
        && content.is_instance_of::<PyString>()
    {
        text_arg(&content, "plan content")?; // names lone surrogates as the content's problem
    }
    let value = crate::py::convert::to_json_value(fields, "plan_write's arguments")?;
    crate::core::plan::render::plan_text(&value, max_bytes).map_err(PyErr::from)
}

/// The plan file path relative to the workspace: `<plan_dir>/PLAN.md` or
/// `<plan_dir>/<namespace>/PLAN.md`. Raises PathEscapeError for `..` or absolute dirs.
#[pyfunction]
#[pyo3(signature = (plan_dir, namespace = None))]
fn plan_relpath(plan_dir: &str, namespace: Option<&str>) -> PyResult<String> {
    path::plan_relpath(plan_dir, namespace).map_err(PyErr::from)
}

/// Checks an actor name (`model`, `user`, `api`, `admin`, `lead`, `policy`, `system`,
/// optionally qualified as `admin:alice`); raises InvalidInputError.
#[pyfunction]
fn check_actor(actor: &str) -> PyResult<()> {
    crate::core::plan::actor::validate_actor(actor)
        .map(|_| ())
        .map_err(PyErr::from)
}

/// The audit-log actor an operator header names: kept when it starts with a known kind
/// (`user:alice`), else `<default_kind>:<given>`; `default_kind` when None. Raises InvalidInputError.
#[pyfunction]
#[pyo3(signature = (given, default_kind = "admin"))]
fn qualify_actor(given: Option<&str>, default_kind: &str) -> PyResult<String> {
    crate::core::plan::actor::qualify_actor(given, default_kind).map_err(PyErr::from)
}

/// The current UTC time as `YYYY-MM-DDTHH:MM:SSZ`.
#[pyfunction]
fn utc_now() -> String {
    clock::now_rfc3339()
}

/// Adds this area's classes and functions to `planmode._core`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<book::PyPlanBook>()?;
    m.add_class::<workspace::PyPlanWorkspace>()?;
    m.add_class::<report::PyPlanReport>()?;
    m.add_function(wrap_pyfunction!(plan_sha256, m)?)?;
    m.add_function(wrap_pyfunction!(check_plan_text, m)?)?;
    m.add_function(wrap_pyfunction!(plan_steps, m)?)?;
    m.add_function(wrap_pyfunction!(plan_relpath, m)?)?;
    m.add_function(wrap_pyfunction!(render_plan, m)?)?;
    m.add_function(wrap_pyfunction!(utc_now, m)?)?;
    m.add_function(wrap_pyfunction!(check_actor, m)?)?;
    m.add_function(wrap_pyfunction!(qualify_actor, m)?)?;
    m.add("PLAN_STATE_KEY", crate::core::plan::state::STATE_KEY)?;
    let phases = crate::core::plan::state::Phase::ALL.map(|p| p.as_str());
    m.add("PLAN_PHASES", pyo3::types::PyTuple::new(m.py(), phases)?)?;
    m.add("DEFAULT_MAX_PLAN_BYTES", DEFAULT_MAX_PLAN_BYTES)?;
    register_words(m)
}

/// The `Literal` aliases of the plan's words (`PlanPhase`, `PlanOutcome`, `PlanDecision`,
/// `ActorKind`), from the core's own lists; `_core.pyi` spells the same (checked by a test).
fn register_words(m: &Bound<'_, PyModule>) -> PyResult<()> {
    use crate::core::plan::state::{Decision, Outcome, Phase};
    use crate::py::convert::literal_alias;
    let py = m.py();
    m.add("PlanPhase", literal_alias(py, Phase::ALL.map(Phase::as_str))?)?;
    m.add(
        "PlanOutcome",
        literal_alias(py, Outcome::ALL.map(Outcome::as_str))?,
    )?;
    m.add(
        "PlanDecision",
        literal_alias(py, Decision::ALL.map(Decision::as_str))?,
    )?;
    m.add(
        "ActorKind",
        literal_alias(py, crate::core::plan::actor::ACTOR_KINDS)?,
    )?;
    Ok(())
}
