//! The one mapping from planmode's errors to the `planmode.exceptions` classes: each error type
//! converts into a `PyErr` with `?`, so bindings never pick an exception class by hand.

use pyo3::PyErr;
use pyo3::prelude::*;

use pyo3::exceptions::{PyFileNotFoundError, PyNotADirectoryError, PyOSError};

use super::exceptions::{
    CycleError, InvalidInputError, PathEscapeError, PlanModeError, PlanStateError, SandboxUnavailableError,
    StateLoadError, TaskNotFoundError, UnknownModeError,
};
use crate::core::permission::engine::ProtocolError;
use crate::core::plan::PlanError;
use crate::core::sandbox::SandboxError;
use crate::core::tasks::{LoadError, TaskError};

/// An argument has the wrong type or value (`InvalidInputError`); the text says which and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvalidInput(pub String);

/// Saved state is malformed (`StateLoadError`); the text names the path of the bad part.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StateLoad(pub String);

/// An object shared between threads was re-entered by the thread already using it
/// (`PlanModeError`); other threads wait instead.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reentered(pub &'static str);

/// A permission mode that does not exist was named (`UnknownModeError`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownMode(pub String);

/// A directory argument is missing (`FileNotFoundError`) or is not a directory
/// (`NotADirectoryError`); the text names the path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotADir {
    /// Nothing exists at the path.
    Missing(String),
    /// Something other than a directory is there.
    NotDirectory(String),
}

impl From<InvalidInput> for PyErr {
    fn from(e: InvalidInput) -> Self {
        InvalidInputError::new_err(e.0)
    }
}

impl From<UnknownMode> for PyErr {
    fn from(e: UnknownMode) -> Self {
        UnknownModeError::new_err(e.0)
    }
}

impl From<NotADir> for PyErr {
    fn from(e: NotADir) -> Self {
        match e {
            NotADir::Missing(m) => PyFileNotFoundError::new_err(m),
            NotADir::NotDirectory(m) => PyNotADirectoryError::new_err(m),
        }
    }
}

impl From<PlanError> for PyErr {
    fn from(e: PlanError) -> Self {
        match e {
            PlanError::InvalidInput(m) => InvalidInputError::new_err(m),
            PlanError::PathEscape(m) => PathEscapeError::new_err(m),
            PlanError::Phase(m) => PlanStateError::new_err(m),
            PlanError::StateLoad(m) => StateLoadError::new_err(m),
            PlanError::UnknownMode(m) => UnknownModeError::new_err(m),
            PlanError::Io(m) => PyOSError::new_err(m),
        }
    }
}

impl From<ProtocolError> for PyErr {
    fn from(e: ProtocolError) -> Self {
        InvalidInputError::new_err(e.to_string())
    }
}

impl From<SandboxError> for PyErr {
    fn from(e: SandboxError) -> Self {
        let message = e.to_string();
        match e {
            SandboxError::InvalidConfig(_) => InvalidInputError::new_err(message),
            SandboxError::Unavailable(_) | SandboxError::Io(..) => SandboxUnavailableError::new_err(message),
        }
    }
}

impl From<StateLoad> for PyErr {
    fn from(e: StateLoad) -> Self {
        StateLoadError::new_err(e.0)
    }
}

impl From<Reentered> for PyErr {
    fn from(e: Reentered) -> Self {
        PlanModeError::new_err(format!(
            "{} was called again from inside one of its own calls on the same thread \
             (e.g. from a callback); make that call after the first one returns",
            e.0
        ))
    }
}

impl From<TaskError> for PyErr {
    fn from(e: TaskError) -> Self {
        let message = e.to_string();
        match e {
            TaskError::NotFound { .. } => TaskNotFoundError::new_err(message),
            TaskError::SelfLoop { .. } | TaskError::Cycle { .. } => CycleError::new_err(message),
            TaskError::UnknownIds { .. } | TaskError::Ambiguous { .. } => InvalidInputError::new_err(message),
        }
    }
}

impl From<LoadError> for PyErr {
    fn from(e: LoadError) -> Self {
        StateLoadError::new_err(format!("cannot load tasks: {e}"))
    }
}

/// `ClassName: message` for an error returned to a model as a tool result instead of raised.
pub fn reply_text(py: Python<'_>, err: &PyErr) -> String {
    let class = err
        .get_type(py)
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "Error".into());
    format!("{class}: {}", err.value(py))
}
