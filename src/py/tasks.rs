//! Bindings for the tasks area.

use pyo3::prelude::*;

/// Adds this area's classes and functions to `planmode._core`.
pub fn register(_m: &Bound<'_, PyModule>) -> PyResult<()> {
    Ok(())
}
