//! What one sandboxed command is: its argv, directory, timeout, caps and policy switches.

use std::path::PathBuf;
use std::time::Duration;

use super::error::SandboxError;

/// Resource limits applied to the child (and inherited by everything it starts).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Largest file the command may write, in bytes (`RLIMIT_FSIZE`; scratch only anyway).
    pub file_size: u64,
    /// Most open file descriptors per process (`RLIMIT_NOFILE`).
    pub open_files: u64,
    /// Most processes of the running user (`RLIMIT_NPROC`); `None` leaves it as it is. The kernel
    /// does not apply it to root, so as root a fork bomb is stopped only by the timeout.
    pub processes: Option<u64>,
    /// Largest address space per process in bytes (`RLIMIT_AS`); `None` leaves it as it is
    /// (JIT runtimes reserve large virtual ranges).
    pub address_space: Option<u64>,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            file_size: 1 << 30,
            open_files: 4096,
            processes: None,
            address_space: None,
        }
    }
}

/// One command to run in the sandbox.
#[derive(Clone, Debug)]
pub struct SandboxConfig {
    /// The program and its arguments (no shell is added: pass `["/bin/sh", "-c", line]`).
    pub argv: Vec<String>,
    /// Variables set on top of the inherited environment (before the scratch variables).
    pub env: Vec<(String, String)>,
    /// Working directory (the caller's when `None`).
    pub cwd: Option<PathBuf>,
    /// Wall-clock limit; at the end the whole process group is killed.
    pub timeout: Duration,
    /// Bytes kept of stdout and of stderr each; the rest is counted and dropped.
    pub output_cap: usize,
    /// Allow TCP bind/connect (denied by default where the kernel can deny it).
    pub allow_network: bool,
    /// Readable paths; `None` makes the whole filesystem readable.
    pub read_paths: Option<Vec<PathBuf>>,
    /// Where the per-command scratch directory is created (the system temp dir when `None`).
    pub scratch_parent: Option<PathBuf>,
    /// Resource limits.
    pub limits: Limits,
}

/// The largest timeout accepted (one day): a guard against unit mistakes.
const MAX_TIMEOUT: Duration = Duration::from_secs(86_400);

impl SandboxConfig {
    /// A config with the defaults: 120 s timeout, 1 MiB per stream, network denied, all readable.
    pub fn new(argv: Vec<String>) -> Self {
        Self {
            argv,
            env: Vec::new(),
            cwd: None,
            timeout: Duration::from_secs(120),
            output_cap: 1 << 20,
            allow_network: false,
            read_paths: None,
            scratch_parent: None,
            limits: Limits::default(),
        }
    }

    /// Rejects a config that cannot be run as given (nothing is started).
    pub fn validate(&self) -> Result<(), SandboxError> {
        let bad = |why: String| Err(SandboxError::InvalidConfig(why));
        if self.argv.is_empty() || self.argv[0].is_empty() {
            return bad("argv must name a program".to_owned());
        }
        if let Some(arg) = self.argv.iter().find(|a| a.contains('\0')) {
            return bad(format!("argument {arg:?} contains a NUL byte"));
        }
        if let Some((key, _)) = self
            .env
            .iter()
            .find(|(k, v)| k.is_empty() || k.contains(['=', '\0']) || v.contains('\0'))
        {
            return bad(format!("environment variable {key:?} is not valid"));
        }
        if self.timeout.is_zero() || self.timeout > MAX_TIMEOUT {
            return bad(format!(
                "timeout must be more than 0 s and at most {} s, got {:?}",
                MAX_TIMEOUT.as_secs(),
                self.timeout
            ));
        }
        if let Some(cwd) = &self.cwd
            && !cwd.is_dir()
        {
            return bad(format!("working directory {} is not a directory", cwd.display()));
        }
        for path in self.read_paths.iter().flatten() {
            if !path.is_absolute() {
                return bad(format!("readable path {} must be absolute", path.display()));
            }
        }
        if self.limits.file_size == 0 || self.limits.open_files < 16 {
            return bad("file_size must be at least 1 and open_files at least 16".to_owned());
        }
        Ok(())
    }
}
