//! The one error type of the plan-mode core; each variant maps to one Python exception.

use std::fmt;

/// Why a plan-mode operation was refused. Every refusal leaves the state unchanged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlanError {
    /// An argument (content, todo, actor, decision...) is malformed.
    InvalidInput(String),
    /// A configured or stored path would leave the workspace.
    PathEscape(String),
    /// The operation is not valid in the current phase (or names a stale revision).
    Phase(String),
    /// Stored state (JSON) is malformed.
    StateLoad(String),
    /// A permission mode that does not exist was named.
    UnknownMode(String),
    /// A file-system operation failed.
    Io(String),
}

impl fmt::Display for PlanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidInput(m)
            | Self::PathEscape(m)
            | Self::Phase(m)
            | Self::StateLoad(m)
            | Self::UnknownMode(m)
            | Self::Io(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for PlanError {}

/// Shorthand for results of the plan-mode core.
pub type PlanResult<T> = Result<T, PlanError>;
