//! Bindings for the permission engine: a per-engine cache of compiled rules
//! ([`cache::RuleCache`], over [`live::RuleStore`]) that starts one check at a time
//! ([`check::PermissionCheck`]); the Python driver in `planmode.agentscope._permission_engine`
//! answers the checks' questions ([`protocol`]) with the tool's own (possibly async) methods.
//! Modules depend downwards only: cache → check → live, and [`protocol`] for the words.

pub mod cache;
pub mod check;
mod live;
pub mod protocol;

use pyo3::prelude::*;

/// Adds this area's classes and functions to `planmode._core`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<cache::RuleCache>()?;
    m.add_class::<check::PermissionCheck>()?;
    protocol::register(m)
}
