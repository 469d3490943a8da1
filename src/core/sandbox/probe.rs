//! Whether Landlock works on this kernel, probed once per process.

use std::sync::OnceLock;

use landlock::ABI;

/// Landlock support on the running system.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Support {
    /// The Landlock ABI version the sandbox uses, or `None` when Landlock cannot be used.
    pub abi: Option<u8>,
    /// A sentence describing the support (and, when missing, how to get it).
    pub reason: String,
}

/// The probed support (the kernel is asked once; the answer is reused).
pub fn support() -> &'static Support {
    static SUPPORT: OnceLock<Support> = OnceLock::new();
    SUPPORT.get_or_init(probe)
}

fn probe() -> Support {
    if !cfg!(target_os = "linux") {
        return unavailable("Landlock exists only on Linux");
    }
    if std::env::var_os(DISABLE_VAR).is_some_and(|v| !v.is_empty()) {
        // Only ever a downgrade: `auto` falls back to the classifier, `required` refuses.
        return unavailable(&format!("the sandbox is disabled by {DISABLE_VAR}"));
    }
    // landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION) returns the ABI version.
    // SAFETY: this form of the call reads no memory.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<u8>(),
            0usize,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    };
    if rc > 0 {
        let kernel = i32::try_from(rc).unwrap_or(i32::MAX);
        let Some(abi) = abi_number(ABI::from(kernel)) else {
            return unavailable("the kernel reports an unknown Landlock ABI");
        };
        return Support {
            abi: Some(abi),
            reason: format!("Landlock ABI {abi} is available (the kernel has ABI {kernel})"),
        };
    }
    let err = std::io::Error::last_os_error();
    match err.raw_os_error() {
        Some(libc::EOPNOTSUPP) => unavailable(
            "the kernel has Landlock but it is not enabled: add `landlock` to the `lsm=` boot \
             parameter (or CONFIG_LSM)",
        ),
        Some(libc::ENOSYS) => unavailable(
            "the kernel has no Landlock (Linux 5.13+ built with CONFIG_SECURITY_LANDLOCK), or a \
             container's seccomp policy blocks the landlock_* system calls",
        ),
        _ => unavailable(&format!("probing Landlock failed: {err}")),
    }
}

/// Setting this environment variable (to anything non-empty) makes the probe report the
/// sandbox as unavailable: to see what `auto` does without it, or test `required`.
pub const DISABLE_VAR: &str = "PLANMODE_SANDBOX_DISABLE";

/// The flag that makes `landlock_create_ruleset` return the ABI version.
const LANDLOCK_CREATE_RULESET_VERSION: u32 = 1;

fn unavailable(why: &str) -> Support {
    Support {
        abi: None,
        reason: why.to_owned(),
    }
}

/// The crate's ABI enum as its version number (`None` for `Unsupported`).
pub(super) fn abi_number(abi: ABI) -> Option<u8> {
    let n = match abi {
        ABI::V1 => 1,
        ABI::V2 => 2,
        ABI::V3 => 3,
        ABI::V4 => 4,
        ABI::V5 => 5,
        ABI::V6 => 6,
        ABI::V7 => 7,
        ABI::V8 => 8,
        ABI::V9 => 9,
        ABI::V10 => 10,
        _ => return None,
    };
    Some(n)
}

/// The crate's ABI enum for a version number the probe returned.
pub(super) fn abi_enum(n: u8) -> ABI {
    ABI::from(i32::from(n))
}
