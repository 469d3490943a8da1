//! `PlanReport`: outcomes over many stored runs, aggregated in Rust (see `core::plan::report`).

use pyo3::prelude::*;

use crate::core::plan::report::Report;
use crate::py::convert::to_py;

/// Accumulates stored runs (AgentState JSON, or session records wrapping one) and reports
/// outcomes, revisions, decisions, drift and todo completion over them.
#[pyclass(module = "planmode._core", name = "PlanReport")]
pub struct PyPlanReport {
    inner: Report,
}

#[pymethods]
impl PyPlanReport {
    /// An empty report.
    #[new]
    fn new() -> Self {
        Self { inner: Report::new() }
    }

    /// Counts one stored document; `source` names it in error lines. Unreadable documents are
    /// counted (and listed) in the report, never raised.
    fn add(&mut self, py: Python<'_>, source: &str, data: &[u8]) {
        let inner = &mut self.inner;
        py.detach(|| inner.add(source, data));
    }

    /// Counts many `(source, data)` documents at once, without holding the GIL while parsing.
    fn add_many(&mut self, py: Python<'_>, items: Vec<(String, Vec<u8>)>) {
        let inner = &mut self.inner;
        py.detach(|| {
            for (source, data) in &items {
                inner.add(source, data);
            }
        });
    }

    /// Reads and counts the files at `paths`; a file that cannot be read is counted as unreadable.
    fn add_files(&mut self, py: Python<'_>, paths: Vec<std::path::PathBuf>) {
        let inner = &mut self.inner;
        py.detach(|| {
            for path in &paths {
                let source = path.to_string_lossy();
                match std::fs::read(path) {
                    Ok(data) => inner.add(&source, &data),
                    Err(e) => inner.add_error(&source, format!("cannot read: {e}")),
                }
            }
        });
    }

    /// The report as a dict (the same fields as `planmode report --json`).
    fn result<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.inner.to_json())
    }
}
