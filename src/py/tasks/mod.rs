//! Bindings for the tasks area: the native [`graph::PyTaskGraph`] and the index behind the
//! AgentScope Task tools ([`index::TaskStateIndex`]).

mod args;
mod graph;
mod index;
mod seen;
mod state;
mod text;

use pyo3::prelude::*;

/// Adds this area's classes and functions to `planmode._core`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<graph::PyTaskGraph>()?;
    m.add_class::<index::TaskStateIndex>()?;
    m.add_function(wrap_pyfunction!(text::render_task_list, m)?)?;
    Ok(())
}
