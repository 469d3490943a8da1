//! `PlanWorkspace`: reads and atomic writes of workspace files with the path-safety rules.

use std::path::{Path, PathBuf};

use pyo3::prelude::*;

use super::text_arg;
use crate::core::plan::Workspace;
use crate::core::plan::content::DEFAULT_MAX_PLAN_BYTES;
use crate::py::errors::NotADir;

/// A workspace directory; files are addressed by normalized relative paths that may not
/// leave it (no `..`, no absolute paths, no symlinked directory pointing outside, no
/// symlinked file). Writes are atomic (temporary file + rename in the same directory).
#[pyclass(module = "planmode._core", name = "PlanWorkspace", frozen)]
pub struct PyPlanWorkspace {
    inner: Workspace,
}

/// `FileNotFoundError` / `NotADirectoryError` naming the path and the fix, before anything else.
fn check_is_directory(dir: &Path) -> PyResult<()> {
    if dir.is_dir() {
        return Ok(());
    }
    let shown = dir.display();
    Err(if dir.exists() {
        NotADir::NotDirectory(format!(
            "workspace_dir \"{shown}\" is not a directory: pass the project directory plan files go in"
        ))
    } else {
        NotADir::Missing(format!(
            "workspace_dir \"{shown}\" does not exist: create it first (mkdir -p \"{shown}\") or pass an existing directory"
        ))
    }
    .into())
}

impl PyPlanWorkspace {
    /// The core workspace.
    pub(crate) fn inner(&self) -> &Workspace {
        &self.inner
    }
}

#[pymethods]
impl PyPlanWorkspace {
    #[new]
    fn new(workspace_dir: PathBuf) -> PyResult<Self> {
        check_is_directory(&workspace_dir)?;
        Workspace::open(&workspace_dir)
            .map(|inner| Self { inner })
            .map_err(PyErr::from)
    }

    /// The resolved workspace directory.
    #[getter]
    fn root(&self) -> String {
        self.inner.root().display().to_string()
    }

    /// The absolute path of a workspace-relative path (no file-system access).
    fn path(&self, rel: &str) -> PyResult<String> {
        crate::core::plan::path::check_relative(rel)?;
        Ok(self.inner.join(rel).display().to_string())
    }

    /// The text of a workspace file, or None when it does not exist.
    #[pyo3(signature = (rel, max_bytes = DEFAULT_MAX_PLAN_BYTES))]
    fn read(&self, py: Python<'_>, rel: &str, max_bytes: usize) -> PyResult<Option<String>> {
        py.detach(|| self.inner.read(rel, max_bytes)).map_err(PyErr::from)
    }

    /// Replaces a workspace file atomically; returns its absolute path.
    fn write(&self, py: Python<'_>, rel: &str, text: &Bound<'_, PyAny>) -> PyResult<String> {
        let text = text_arg(text, "text")?;
        py.detach(|| self.inner.write_atomic(rel, &text))
            .map(|p| p.display().to_string())
            .map_err(PyErr::from)
    }

    fn __repr__(&self) -> String {
        format!("PlanWorkspace({:?})", self.inner.root().display().to_string())
    }

    fn __getnewargs__(&self) -> (String,) {
        (self.root(),)
    }
}
