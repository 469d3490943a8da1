//! Bindings for the permission engine: a per-engine cache of compiled rule lists
//! ([`cache::RuleCache`]) that starts one check at a time ([`check::PermissionCheck`]); the
//! Python driver in `planmode.agentscope._permission_engine` answers the checks' questions with
//! the tool's own (possibly async) methods.

pub mod cache;
pub mod check;
mod plain;
mod snapshot;

use pyo3::prelude::*;

/// Adds this area's classes and functions to `planmode._core`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<cache::RuleCache>()?;
    m.add_class::<check::PermissionCheck>()?;
    Ok(())
}
