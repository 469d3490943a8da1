//! Spawning the child under the ruleset, waiting with a timeout, killing its process group.

use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::process::ExitStatusExt;
use std::process::Stdio;
use std::time::Duration;

use libc::{c_int, c_ulong, rlimit, sock_filter, sock_fprog};
use tokio::process::Command;

use super::capture::{Captured, capped};
use super::config::SandboxConfig;
use super::error::SandboxError;
use super::outcome::Outcome;
use super::scratch::Scratch;
use super::{policy, seccomp};

/// `close_range` flag: mark the range close-on-exec instead of closing it (Linux 5.11+).
const CLOSE_RANGE_CLOEXEC: u32 = 4;

/// How long the output pipes may stay open after the process group was killed.
const DRAIN_GRACE: Duration = Duration::from_secs(2);

/// What the child applies to itself between `fork` and `exec` (no allocation happens there).
struct ChildSetup {
    ruleset_fd: c_int,
    /// Descriptors below this are marked close-on-exec where `close_range` is missing.
    max_fd: c_int,
    limits: Vec<(libc::__rlimit_resource_t, rlimit)>,
    filter: Option<Vec<sock_filter>>,
}

impl ChildSetup {
    /// Limits, then `no_new_privs`, then Landlock, then seccomp (which would refuse nothing
    /// of the above, but goes last so that the filter never sees the setup itself), then every
    /// inherited descriptor above stderr is marked close-on-exec: an open writable descriptor
    /// would bypass Landlock, which checks paths when they are opened.
    fn apply(&self) -> io::Result<()> {
        let check = |rc: c_int| {
            if rc == 0 {
                Ok(())
            } else {
                Err(io::Error::last_os_error())
            }
        };
        // SAFETY: plain system calls on valid arguments; async-signal-safe after fork.
        unsafe {
            for (resource, value) in &self.limits {
                check(libc::setrlimit(*resource, value))?;
            }
            check(libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))?;
            let rc = libc::syscall(libc::SYS_landlock_restrict_self, self.ruleset_fd, 0);
            check(if rc == 0 { 0 } else { -1 })?;
            if let Some(filter) = &self.filter {
                let prog = sock_fprog {
                    len: filter.len() as u16,
                    filter: filter.as_ptr().cast_mut(),
                };
                let arg = std::ptr::from_ref(&prog) as c_ulong;
                check(libc::prctl(
                    libc::PR_SET_SECCOMP,
                    libc::SECCOMP_MODE_FILTER,
                    arg,
                    0,
                    0,
                ))?;
            }
            let marked = libc::syscall(libc::SYS_close_range, 3u32, u32::MAX, CLOSE_RANGE_CLOEXEC);
            if marked != 0 {
                for fd in 3..self.max_fd {
                    libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC);
                }
            }
        }
        Ok(())
    }
}

/// The resource limits, each capped at the current hard limit (which only root could raise).
fn limits(config: &SandboxConfig) -> Vec<(libc::__rlimit_resource_t, rlimit)> {
    let l = &config.limits;
    let mut wanted = vec![
        (libc::RLIMIT_CORE, 0),
        (libc::RLIMIT_FSIZE, l.file_size),
        (libc::RLIMIT_NOFILE, l.open_files),
    ];
    wanted.extend(l.processes.map(|n| (libc::RLIMIT_NPROC, n)));
    wanted.extend(l.address_space.map(|n| (libc::RLIMIT_AS, n)));
    wanted
        .into_iter()
        .map(|(resource, value)| {
            let mut current = rlimit {
                rlim_cur: 0,
                rlim_max: libc::RLIM_INFINITY,
            };
            // SAFETY: getrlimit writes into the struct we own.
            unsafe { libc::getrlimit(resource, &mut current) };
            let v = value.min(current.rlim_max);
            (
                resource,
                rlimit {
                    rlim_cur: v,
                    rlim_max: v,
                },
            )
        })
        .collect()
}

/// The current soft limit of open descriptors (bounded), for the close-on-exec fallback.
fn open_files_limit() -> c_int {
    let mut current = rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes into the struct we own.
    unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut current) };
    c_int::try_from(current.rlim_cur.min(65_536)).unwrap_or(65_536)
}

/// Sends SIGKILL to the whole process group led by `pid` (the child made itself its leader).
fn kill_group(pid: i32) {
    // SAFETY: kill(2) with a negative pid signals the group; ESRCH (already gone) is fine.
    unsafe { libc::kill(-pid, libc::SIGKILL) };
}

/// Kills the process group when a run is dropped before it finished (a cancelled await).
struct GroupGuard {
    pid: i32,
    armed: bool,
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        if self.armed && self.pid > 0 {
            kill_group(self.pid);
        }
    }
}

/// Runs the command with `scratch` as its only writable directory.
pub(super) async fn run_in(
    config: &SandboxConfig,
    abi: u8,
    scratch: &Scratch,
) -> Result<Outcome, SandboxError> {
    let rules = policy::build(
        abi,
        config.read_paths.as_deref(),
        scratch.path(),
        config.allow_network,
    )?;
    let setup = ChildSetup {
        ruleset_fd: rules.fd.as_raw_fd(),
        max_fd: open_files_limit(),
        limits: limits(config),
        filter: seccomp::program(),
    };
    let mut cmd = Command::new(&config.argv[0]);
    cmd.args(&config.argv[1..])
        .envs(config.env.iter().map(|(k, v)| (k, v)))
        .envs(scratch.env())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    if let Some(cwd) = &config.cwd {
        cmd.current_dir(cwd);
    }
    // SAFETY: `apply` makes only async-signal-safe system calls and allocates nothing.
    unsafe { cmd.pre_exec(move || setup.apply()) };
    let mut child = cmd
        .spawn()
        .map_err(|e| SandboxError::Io(format!("starting {:?} in the sandbox", config.argv[0]), e))?;
    let (network_blocked, scoped) = (rules.network_blocked, rules.scoped);
    drop(rules); // the child has its own copy of the ruleset now
    let pid = child.id().map_or(0, |p| p as i32);
    let mut guard = GroupGuard { pid, armed: true };
    let (stdout, stderr) = (child.stdout.take(), child.stderr.take());
    let cap = config.output_cap;
    let waiter = async {
        let waited = tokio::time::timeout(config.timeout, child.wait()).await;
        if pid > 0 {
            kill_group(pid); // leftovers after an exit, everything after a timeout
        }
        match waited {
            Ok(status) => (status, false),
            Err(_) => (child.wait().await, true),
        }
    };
    let readers = async {
        let out = async {
            match stdout {
                Some(s) => capped(s, cap).await,
                None => Captured::default(),
            }
        };
        let err = async {
            match stderr {
                Some(s) => capped(s, cap).await,
                None => Captured::default(),
            }
        };
        tokio::time::timeout(config.timeout + DRAIN_GRACE, async { tokio::join!(out, err) }).await
    };
    let ((status, timed_out), read) = tokio::join!(waiter, readers);
    guard.armed = false; // the group was killed and the child reaped
    let status = status.map_err(|e| SandboxError::Io("waiting for the command".to_owned(), e))?;
    let (out, err) = read.unwrap_or_default();
    Ok(Outcome {
        exit_code: status.code(),
        signal: status.signal(),
        timed_out,
        stdout: out.kept,
        stderr: err.kept,
        stdout_dropped: out.dropped,
        stderr_dropped: err.dropped,
        abi,
        network_blocked,
        scoped,
        scratch_dir: scratch.path().to_string_lossy().into_owned(),
        scratch_entries: Vec::new(),
        scratch_removed: false,
        blocked: Vec::new(),
    })
}
