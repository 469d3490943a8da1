//! `PlanReport`: outcomes over many stored runs, aggregated in Rust (see `core::plan::report`).

use pyo3::prelude::*;

use crate::core::plan::report::Report;
use crate::py::convert::to_py;
use crate::py::shared::Shared;

/// Accumulates stored runs (AgentState JSON, or session records wrapping one) and reports
/// outcomes, revisions, decisions, drift and todo completion over them.
///
/// Safe to share between threads: calls take turns (a caller waits with the GIL released), so
/// every document is counted once and `result()` never sees a half-counted batch.
#[pyclass(module = "planmode._core", name = "PlanReport", frozen)]
pub struct PyPlanReport {
    inner: Shared<Report>,
}

#[pymethods]
impl PyPlanReport {
    /// An empty report.
    #[new]
    fn new() -> Self {
        Self {
            inner: Shared::new(Report::new(), "PlanReport"),
        }
    }

    /// Counts one stored document; `source` names it in error lines. Unreadable documents are
    /// counted (and listed) in the report, never raised.
    fn add(&self, py: Python<'_>, source: &str, data: &[u8]) -> PyResult<()> {
        let mut inner = self.inner.lock(py)?;
        let inner = &mut *inner;
        py.detach(|| inner.add(source, data));
        Ok(())
    }

    /// Counts many `(source, data)` documents at once, without holding the GIL while parsing.
    fn add_many(&self, py: Python<'_>, items: Vec<(String, Vec<u8>)>) -> PyResult<()> {
        let mut inner = self.inner.lock(py)?;
        let inner = &mut *inner;
        py.detach(|| {
            for (source, data) in &items {
                inner.add(source, data);
            }
        });
        Ok(())
    }

    /// Reads and counts the files at `paths`; a file that cannot be read is counted as unreadable.
    fn add_files(&self, py: Python<'_>, paths: Vec<std::path::PathBuf>) -> PyResult<()> {
        let mut inner = self.inner.lock(py)?;
        let inner = &mut *inner;
        py.detach(|| {
            for path in &paths {
                let source = path.to_string_lossy();
                match std::fs::read(path) {
                    Ok(data) => inner.add(&source, &data),
                    Err(e) => inner.add_error(&source, format!("cannot read: {e}")),
                }
            }
        });
        Ok(())
    }

    /// The report as a dict (the same fields as `planmode report --json`).
    fn result<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let mut inner = self.inner.lock(py)?;
        to_py(py, &inner.to_json())
    }
}
