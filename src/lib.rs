//! planmode: the Rust core of a plan / approve / build workflow for AgentScope agents.
//!
//! [`core`] is plain Rust (no pyo3): the task graph, the plan-mode state machine,
//! the permission engine and the read-only shell classifier. [`py`] is the thin
//! pyo3 layer that exposes them as `planmode._core`.

pub mod core;
pub mod py;

/// mimalloc instead of the system allocator: loading a task graph makes ~10 small allocations
/// per task, and glibc's malloc/free was most of `TaskGraph.from_json`'s time.
/// (`benchmarks/bench_crates.py` prints the figure; the `mimalloc` feature, on by default.)
#[cfg(feature = "mimalloc")]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use pyo3::prelude::*;

/// The compiled module `planmode._core`; each area registers its own classes and functions.
#[pymodule]
mod _core {
    use pyo3::prelude::*;

    #[pymodule_init]
    fn init(m: &Bound<'_, PyModule>) -> PyResult<()> {
        super::register_all(m)
    }
}

fn register_all(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    py::tasks::register(m)?;
    py::shell::register(m)?;
    py::permission::register(m)?;
    py::plan::register(m)?;
    py::sandbox::register(m)?;
    Ok(())
}
