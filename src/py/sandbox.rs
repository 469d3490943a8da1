//! Bindings for the planning-shell sandbox: `sandbox_support()` and the awaitable
//! `run_sandboxed(argv, ...)`: the command runs on the tokio runtime of `pyo3-async-runtimes`
//! and its result completes an asyncio future, so the event loop is never blocked while a
//! command runs and several commands run at once.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use tokio::sync::Notify;

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};

use super::errors::InvalidInput;
use crate::core::sandbox::{self, Limits, Outcome, SandboxConfig, SandboxError};

/// What one sandboxed command did (see `planmode.core.sandbox.Outcome` in the Rust docs).
#[pyclass(module = "planmode._core", name = "SandboxRun", frozen, get_all)]
pub struct PySandboxRun {
    /// The exit code, when the command exited on its own.
    exit_code: Option<i32>,
    /// The signal that ended the command (SIGKILL after a timeout).
    signal: Option<i32>,
    /// Whether the wall-clock timeout ended the command.
    timed_out: bool,
    /// Captured standard output (at most `output_cap` bytes).
    stdout: Py<PyBytes>,
    /// Captured standard error (at most `output_cap` bytes).
    stderr: Py<PyBytes>,
    /// Bytes of standard output dropped past the cap.
    stdout_dropped: u64,
    /// Bytes of standard error dropped past the cap.
    stderr_dropped: u64,
    /// The Landlock ABI version the ruleset was built for.
    abi: u8,
    /// Whether TCP bind/connect were denied.
    network_blocked: bool,
    /// Whether signals and abstract Unix sockets were scoped to the sandbox.
    scoped: bool,
    /// The (removed) scratch directory.
    scratch_dir: String,
    /// Files the command left in scratch (discarded).
    scratch_entries: Vec<String>,
    /// Whether the scratch directory was removed.
    scratch_removed: bool,
    /// The command's error lines that report a refused operation.
    blocked: Vec<String>,
}

#[pymethods]
impl PySandboxRun {
    #[new]
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (exit_code, signal, timed_out, stdout, stderr, stdout_dropped,
                        stderr_dropped, abi, network_blocked, scoped, scratch_dir,
                        scratch_entries, scratch_removed, blocked))]
    fn new(
        exit_code: Option<i32>,
        signal: Option<i32>,
        timed_out: bool,
        stdout: Py<PyBytes>,
        stderr: Py<PyBytes>,
        stdout_dropped: u64,
        stderr_dropped: u64,
        abi: u8,
        network_blocked: bool,
        scoped: bool,
        scratch_dir: String,
        scratch_entries: Vec<String>,
        scratch_removed: bool,
        blocked: Vec<String>,
    ) -> Self {
        Self {
            exit_code,
            signal,
            timed_out,
            stdout,
            stderr,
            stdout_dropped,
            stderr_dropped,
            abi,
            network_blocked,
            scoped,
            scratch_dir,
            scratch_entries,
            scratch_removed,
            blocked,
        }
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!("SandboxRun{}", self.__getnewargs__(py)?.repr()?))
    }

    fn __getnewargs__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let items: Vec<Bound<'py, PyAny>> = vec![
            self.exit_code.into_pyobject(py)?.into_any(),
            self.signal.into_pyobject(py)?.into_any(),
            self.timed_out.into_pyobject(py)?.to_owned().into_any(),
            self.stdout.bind(py).clone().into_any(),
            self.stderr.bind(py).clone().into_any(),
            self.stdout_dropped.into_pyobject(py)?.into_any(),
            self.stderr_dropped.into_pyobject(py)?.into_any(),
            self.abi.into_pyobject(py)?.into_any(),
            self.network_blocked.into_pyobject(py)?.to_owned().into_any(),
            self.scoped.into_pyobject(py)?.to_owned().into_any(),
            self.scratch_dir.clone().into_pyobject(py)?.into_any(),
            self.scratch_entries.clone().into_pyobject(py)?.into_any(),
            self.scratch_removed.into_pyobject(py)?.to_owned().into_any(),
            self.blocked.clone().into_pyobject(py)?.into_any(),
        ];
        PyTuple::new(py, items)
    }
}

impl PySandboxRun {
    fn from_outcome(py: Python<'_>, o: Outcome) -> Self {
        Self {
            exit_code: o.exit_code,
            signal: o.signal,
            timed_out: o.timed_out,
            stdout: PyBytes::new(py, &o.stdout).unbind(),
            stderr: PyBytes::new(py, &o.stderr).unbind(),
            stdout_dropped: o.stdout_dropped,
            stderr_dropped: o.stderr_dropped,
            abi: o.abi,
            network_blocked: o.network_blocked,
            scoped: o.scoped,
            scratch_dir: o.scratch_dir,
            scratch_entries: o.scratch_entries,
            scratch_removed: o.scratch_removed,
            blocked: o.blocked,
        }
    }
}

/// `(abi, reason)`: the Landlock ABI version the sandbox uses (None when it cannot be used)
/// and a sentence saying so. The kernel is probed once per process.
#[pyfunction]
fn sandbox_support() -> (Option<u8>, String) {
    let support = sandbox::support();
    (support.abi, support.reason.clone())
}

/// Runs `argv` (no shell is added) under the Landlock sandbox; returns an awaitable of
/// `SandboxRun`. Raises `SandboxUnavailableError` when the sandbox cannot be applied (nothing
/// runs then) and `InvalidInputError` for a bad argument.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (argv, *, cwd=None, timeout=120.0, output_cap=1_048_576, allow_network=false,
                    read_paths=None, env=None, scratch_parent=None, max_file_size=1_073_741_824,
                    max_open_files=4096, max_processes=None))]
fn run_sandboxed<'py>(
    py: Python<'py>,
    argv: Vec<String>,
    cwd: Option<PathBuf>,
    timeout: f64,
    output_cap: usize,
    allow_network: bool,
    read_paths: Option<Vec<PathBuf>>,
    env: Option<Vec<(String, String)>>,
    scratch_parent: Option<PathBuf>,
    max_file_size: u64,
    max_open_files: u64,
    max_processes: Option<u64>,
) -> PyResult<Bound<'py, PyAny>> {
    let timeout = Duration::try_from_secs_f64(timeout).map_err(|_| {
        InvalidInput(format!(
            "timeout must be a positive number of seconds, got {timeout}"
        ))
    })?;
    let config = SandboxConfig {
        argv,
        env: env.unwrap_or_default(),
        cwd,
        timeout,
        output_cap,
        allow_network,
        read_paths,
        scratch_parent,
        limits: Limits {
            file_size: max_file_size,
            open_files: max_open_files,
            processes: max_processes,
            address_space: None,
        },
    };
    config.validate()?;
    let helper = py.import("planmode._sandbox")?;
    let future = py
        .import("asyncio")?
        .call_method0("get_running_loop")?
        .call_method0("create_future")?;
    let cancel = Arc::new(Notify::new());
    future.call_method1(
        "add_done_callback",
        (CancelOnDone {
            cancel: cancel.clone(),
        },),
    )?;
    let delivery = Delivery {
        deliver: helper.getattr("deliver")?.unbind(),
        future: future.clone().unbind(),
    };
    IN_FLIGHT.fetch_add(1, Ordering::SeqCst);
    pyo3_async_runtimes::tokio::get_runtime().spawn(async move {
        tokio::select! {
            result = sandbox::run(&config) => delivery.send(Some(result)),
            () = cancel.notified() => delivery.send(None), // the awaiting task was cancelled
        }
        IN_FLIGHT.fetch_sub(1, Ordering::SeqCst);
    });
    Ok(future)
}

/// Sandboxed commands started and not yet delivered (for `planmode._sandbox`).
static IN_FLIGHT: AtomicUsize = AtomicUsize::new(0);
/// Threads inside a delivery right now (they hold or wait for the GIL).
static DELIVERING: AtomicUsize = AtomicUsize::new(0);
/// Set at interpreter exit: finished commands are no longer delivered.
static SHUT_DOWN: AtomicBool = AtomicBool::new(false);

/// Completes the asyncio future from a tokio thread through `loop.call_soon_threadsafe`.
///
/// `pyo3_async_runtimes::tokio::future_into_py` can attach a tokio thread to Python while the
/// interpreter finalizes (PyO3/pyo3-async-runtimes#40: "PyGILState_Release: thread state must
/// be current" at exit, reproduced here after `asyncio.run`), so delivery is done here, and
/// `planmode._sandbox` stops it at exit (`sandbox_shutdown`) before finalization starts.
struct Delivery {
    deliver: Py<PyAny>,
    future: Py<PyAny>,
}

impl Delivery {
    /// Delivers `result` (or, for `None`, only releases the references) unless the
    /// interpreter is shutting down, in which case Python is not touched at all.
    fn send(self, result: Option<Result<Outcome, SandboxError>>) {
        DELIVERING.fetch_add(1, Ordering::SeqCst);
        if SHUT_DOWN.load(Ordering::SeqCst) {
            std::mem::forget(self); // the interpreter may be finalizing: leak, never attach
        } else {
            Python::attach(move |py| {
                if let Some(result) = result {
                    self.deliver_in(py, result);
                }
                drop(self);
            });
        }
        DELIVERING.fetch_sub(1, Ordering::SeqCst);
    }

    fn deliver_in(&self, py: Python<'_>, result: Result<Outcome, SandboxError>) {
        let (ok, value) = match result {
            Ok(outcome) => match Py::new(py, PySandboxRun::from_outcome(py, outcome)) {
                Ok(run) => (true, run.into_any()),
                Err(err) => (false, err.into_value(py).into_any()),
            },
            Err(err) => (false, PyErr::from(err).into_value(py).into_any()),
        };
        // `deliver` schedules the result on the future's loop; a closed loop means nobody
        // is waiting any more.
        if let Err(err) = self.deliver.call1(py, (&self.future, ok, value)) {
            err.write_unraisable(py, None);
        }
    }
}

/// `future.add_done_callback` target: a cancelled future stops its command (the process
/// group is killed and scratch removed when the run is dropped).
#[pyclass(module = "planmode._core", name = "_SandboxCancel", frozen)]
struct CancelOnDone {
    cancel: Arc<Notify>,
}

#[pymethods]
impl CancelOnDone {
    fn __call__(&self, future: &Bound<'_, PyAny>) -> PyResult<()> {
        if future.call_method0("cancelled")?.is_truthy()? {
            self.cancel.notify_one();
        }
        Ok(())
    }
}

/// Stops delivering results (called by `planmode._sandbox` at interpreter exit) and returns
/// once no tokio thread is inside a delivery; returns the commands still running.
#[pyfunction]
fn sandbox_shutdown(py: Python<'_>) -> usize {
    SHUT_DOWN.store(true, Ordering::SeqCst);
    while DELIVERING.load(Ordering::SeqCst) > 0 {
        py.detach(|| std::thread::sleep(Duration::from_millis(1)));
    }
    IN_FLIGHT.load(Ordering::SeqCst)
}

/// Adds this area's classes and functions to `planmode._core`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PySandboxRun>()?;
    m.add_function(wrap_pyfunction!(sandbox_support, m)?)?;
    m.add_function(wrap_pyfunction!(run_sandboxed, m)?)?;
    m.add_function(wrap_pyfunction!(sandbox_shutdown, m)?)?;
    Ok(())
}
