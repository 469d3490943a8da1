//! What a sandboxed command did.

/// The result of one sandboxed run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// The exit code, when the command exited on its own.
    pub exit_code: Option<i32>,
    /// The signal that ended the command, when one did (SIGKILL after a timeout).
    pub signal: Option<i32>,
    /// Whether the wall-clock timeout ended the command.
    pub timed_out: bool,
    /// Captured standard output (at most `output_cap` bytes).
    pub stdout: Vec<u8>,
    /// Captured standard error (at most `output_cap` bytes).
    pub stderr: Vec<u8>,
    /// Bytes of standard output dropped past the cap.
    pub stdout_dropped: u64,
    /// Bytes of standard error dropped past the cap.
    pub stderr_dropped: u64,
    /// The Landlock ABI version the ruleset was built for.
    pub abi: u8,
    /// Whether TCP bind/connect were denied (false when allowed or when the ABI is below 4).
    pub network_blocked: bool,
    /// Whether signals and abstract Unix sockets were scoped to the sandbox (ABI 6+).
    pub scoped: bool,
    /// The scratch directory the command could write to (already removed).
    pub scratch_dir: String,
    /// Paths (relative to scratch) the command left in scratch; they were discarded.
    pub scratch_entries: Vec<String>,
    /// Whether the scratch directory was removed entirely.
    pub scratch_removed: bool,
    /// The command's own error lines that report a refused operation (see [`blocked_writes`]).
    ///
    /// [`blocked_writes`]: super::blocked_writes
    pub blocked: Vec<String>,
}

impl Outcome {
    /// True when the command exited with code 0.
    pub fn success(&self) -> bool {
        self.exit_code == Some(0)
    }
}
