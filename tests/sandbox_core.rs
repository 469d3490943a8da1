//! The Landlock sandbox for real on this kernel: what it lets through and what it stops.
//! Each test first asserts that Landlock is available, so none of them passes by skipping.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::time::Duration;

use planmode::core::sandbox::{SandboxConfig, SandboxError, run, support};

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio runtime")
}

fn sh(line: &str) -> SandboxConfig {
    assert!(
        support().abi.is_some(),
        "Landlock must be available on the test machine: {}",
        support().reason
    );
    SandboxConfig::new(vec!["/bin/sh".into(), "-c".into(), line.into()])
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("planmode-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn reads_work_and_writes_outside_scratch_fail() {
    let rt = runtime();
    let dir = temp_dir("writes");
    std::fs::write(dir.join("kept.txt"), "original").unwrap();
    let mut config = sh("cat kept.txt; echo x > kept.txt; echo y > new.txt; \
         echo z > \"$TMPDIR/ok.txt\" && cat \"$TMPDIR/ok.txt\"; chmod 000 kept.txt; echo done");
    config.cwd = Some(dir.clone());
    let outcome = rt.block_on(run(&config)).unwrap();
    let stdout = String::from_utf8_lossy(&outcome.stdout);
    assert_eq!(stdout, "originalz\ndone\n");
    let stderr = String::from_utf8_lossy(&outcome.stderr);
    assert!(stderr.contains("Permission denied"), "{stderr}");
    assert!(stderr.contains("Operation not permitted"), "{stderr}");
    assert_eq!(std::fs::read_to_string(dir.join("kept.txt")).unwrap(), "original");
    assert!(!dir.join("new.txt").exists());
    assert_eq!(outcome.scratch_entries, vec!["tmp/ok.txt"]);
    assert!(outcome.scratch_removed);
    assert!(!Path::new(&outcome.scratch_dir).exists());
    let mode = std::fs::metadata(dir.join("kept.txt")).unwrap();
    assert_ne!(
        std::os::unix::fs::PermissionsExt::mode(&mode.permissions()) & 0o777,
        0
    );
}

#[test]
fn tcp_connect_is_denied_unless_allowed() {
    let rt = runtime();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let probe = format!(
        "python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", {port}), 5); print(\"connected\")'"
    );
    let outcome = rt.block_on(run(&sh(&probe))).unwrap();
    assert!(outcome.network_blocked);
    assert_ne!(outcome.exit_code, Some(0));
    assert!(String::from_utf8_lossy(&outcome.stderr).contains("PermissionError"));
    let mut allowed = sh(&probe);
    allowed.allow_network = true;
    let outcome = rt.block_on(run(&allowed)).unwrap();
    assert!(!outcome.network_blocked);
    assert_eq!(String::from_utf8_lossy(&outcome.stdout), "connected\n");
}

#[test]
fn timeout_kills_the_whole_group_and_output_is_capped() {
    let rt = runtime();
    let mut config = sh("yes planmode | head -c 300000; sleep 1000 & sleep 1000 & wait");
    config.timeout = Duration::from_millis(500);
    config.output_cap = 1000;
    let outcome = rt.block_on(run(&config)).unwrap();
    assert!(outcome.timed_out);
    assert_eq!(outcome.signal, Some(libc::SIGKILL));
    assert_eq!(outcome.stdout.len(), 1000);
    assert_eq!(outcome.stdout_dropped, 299_000);
}

#[test]
fn leaving_the_process_group_is_refused() {
    let rt = runtime();
    let outcome = rt
        .block_on(run(&sh("python3 -c 'import os; os.setsid()'")))
        .unwrap();
    assert!(String::from_utf8_lossy(&outcome.stderr).contains("Operation not permitted"));
}

#[test]
fn invalid_configs_start_nothing() {
    let rt = runtime();
    let mut config = sh("true");
    config.timeout = Duration::ZERO;
    assert!(matches!(
        rt.block_on(run(&config)),
        Err(SandboxError::InvalidConfig(_))
    ));
    let mut config = sh("true");
    config.cwd = Some("/no/such/dir".into());
    assert!(matches!(
        rt.block_on(run(&config)),
        Err(SandboxError::InvalidConfig(_))
    ));
    let config = SandboxConfig::new(vec![]);
    assert!(matches!(
        rt.block_on(run(&config)),
        Err(SandboxError::InvalidConfig(_))
    ));
}
