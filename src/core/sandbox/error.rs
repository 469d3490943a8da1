//! Why a command could not be run in the sandbox.

use std::fmt;

/// A sandboxed run that did not happen (a command that ran and failed is an `Outcome`).
#[derive(Debug)]
pub enum SandboxError {
    /// Landlock cannot be applied here; the text says why and how to fix it.
    Unavailable(String),
    /// The configuration is invalid; nothing was started.
    InvalidConfig(String),
    /// The system refused a step (scratch directory, ruleset, spawn).
    Io(String, std::io::Error),
}

impl fmt::Display for SandboxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Unavailable(why) => write!(f, "the Landlock sandbox is unavailable: {why}"),
            Self::InvalidConfig(why) => write!(f, "invalid sandbox configuration: {why}"),
            Self::Io(what, err) => write!(f, "sandbox: {what}: {err}"),
        }
    }
}

impl std::error::Error for SandboxError {}
