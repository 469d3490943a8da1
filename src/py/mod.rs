//! pyo3 bindings: one module per exposed area, each with a `register` function.

pub mod convert;
pub mod errors;
pub mod exceptions;
pub mod permission;
pub mod plan;
pub mod sandbox;
pub mod shared;
pub mod shell;
pub mod tasks;
