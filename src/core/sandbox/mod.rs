//! The planning-shell sandbox: runs one command as a child process under a Landlock ruleset.
//!
//! The whole filesystem (or only the listed paths) is readable; the only writable places are a
//! fresh per-command scratch directory and `/dev/null`-like devices; TCP bind/connect is denied
//! where the kernel's Landlock ABI has network rules (4+); signals and abstract Unix sockets are
//! scoped to the sandbox where it has scopes (6+). On top of Landlock the child gets
//! `no_new_privs`, a seccomp filter refusing what Landlock does not cover (metadata changes such
//! as `chmod`/`chown`/`utime`/xattrs, and leaving its process group), resource limits, and a
//! wall-clock timeout that kills its whole process group. Output is captured up to a cap.
//!
//! Nothing here pretends: [`support`] says whether Landlock works on this kernel (probed once),
//! and [`run`] fails with [`SandboxError::Unavailable`] rather than run a command unconfined.

mod capture;
mod child;
mod config;
mod error;
mod outcome;
mod policy;
mod probe;
mod report;
mod scratch;
mod seccomp;

pub use config::{Limits, SandboxConfig};
pub use error::SandboxError;
pub use outcome::Outcome;
pub use probe::{Support, support};
pub use report::blocked_writes;

/// Runs `config.argv` in the sandbox and waits for it (or for its timeout) without blocking the
/// async runtime. The scratch directory is removed before this returns.
pub async fn run(config: &SandboxConfig) -> Result<Outcome, SandboxError> {
    config.validate()?;
    let abi = support()
        .abi
        .ok_or_else(|| SandboxError::Unavailable(support().reason.clone()))?;
    let scratch = scratch::Scratch::create(config.scratch_parent.as_deref())?;
    let result = child::run_in(config, abi, &scratch).await;
    let left = scratch.finish();
    let mut outcome = result?;
    outcome.scratch_entries = left.entries;
    outcome.scratch_removed = left.removed;
    let mut text = String::from_utf8_lossy(&outcome.stderr).into_owned();
    text.push('\n');
    text.push_str(&String::from_utf8_lossy(&outcome.stdout));
    outcome.blocked = blocked_writes(&text);
    Ok(outcome)
}
