//! Pure-Rust core: no pyo3 here, so every part is unit- and property-tested with `cargo test`.

pub mod nesting;
pub mod permission;
pub mod plan;
pub mod sandbox;
pub mod shell;
pub mod tasks;
