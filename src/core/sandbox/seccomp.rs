//! A seccomp filter for what Landlock does not cover: metadata changes (`chmod`, `chown`,
//! `utime`, extended attributes) anywhere; leaving the process group (`setsid`, `setpgid`),
//! which would let a process outlive the timeout's group kill; and the system-wide changes a
//! root process could make without touching a file (the clock, the host name, kernel modules,
//! reboot, swap, BPF programs). Those calls fail with `EPERM`; a foreign syscall ABI (x32,
//! i386) kills the process, since its numbers are not checked.

use libc::{c_long, sock_filter};

/// `AUDIT_ARCH_*` of this build, or `None` where no filter is built.
#[cfg(target_arch = "x86_64")]
const ARCH: Option<u32> = Some(0xC000_003E);
#[cfg(target_arch = "aarch64")]
const ARCH: Option<u32> = Some(0xC000_00B7);
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
const ARCH: Option<u32> = None;

/// Numbers too new for every libc release: the same on every architecture.
const SYS_FCHMODAT2: c_long = 452;
const SYS_SETXATTRAT: c_long = 463;
const SYS_REMOVEXATTRAT: c_long = 466;

/// The system calls refused with `EPERM`.
fn denied() -> Vec<c_long> {
    let mut calls = vec![
        libc::SYS_fchmod,
        libc::SYS_fchmodat,
        SYS_FCHMODAT2,
        libc::SYS_fchown,
        libc::SYS_fchownat,
        libc::SYS_setxattr,
        libc::SYS_lsetxattr,
        libc::SYS_fsetxattr,
        SYS_SETXATTRAT,
        libc::SYS_removexattr,
        libc::SYS_lremovexattr,
        libc::SYS_fremovexattr,
        SYS_REMOVEXATTRAT,
        libc::SYS_utimensat,
        libc::SYS_setsid,
        libc::SYS_setpgid,
        libc::SYS_settimeofday,
        libc::SYS_clock_settime,
        libc::SYS_clock_adjtime,
        libc::SYS_adjtimex,
        libc::SYS_sethostname,
        libc::SYS_setdomainname,
        libc::SYS_reboot,
        libc::SYS_init_module,
        libc::SYS_finit_module,
        libc::SYS_delete_module,
        libc::SYS_kexec_load,
        libc::SYS_swapon,
        libc::SYS_swapoff,
        libc::SYS_acct,
        libc::SYS_quotactl,
        libc::SYS_bpf,
    ];
    #[cfg(target_arch = "x86_64")]
    calls.extend([
        libc::SYS_chmod,
        libc::SYS_chown,
        libc::SYS_lchown,
        libc::SYS_utime,
        libc::SYS_utimes,
        libc::SYS_futimesat,
        libc::SYS_kexec_file_load,
        libc::SYS_iopl,
        libc::SYS_ioperm,
    ]);
    calls
}

const BPF_LD_W_ABS: u16 = (libc::BPF_LD | libc::BPF_W | libc::BPF_ABS) as u16;
const BPF_JEQ_K: u16 = (libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K) as u16;
const BPF_JGE_K: u16 = (libc::BPF_JMP | libc::BPF_JGE | libc::BPF_K) as u16;
const BPF_RET_K: u16 = (libc::BPF_RET | libc::BPF_K) as u16;
/// Offsets in `struct seccomp_data`.
const NR_OFFSET: u32 = 0;
const ARCH_OFFSET: u32 = 4;
/// x32 system calls have this bit set in their number.
const X32_BIT: u32 = 0x4000_0000;

fn op(code: u16, jt: u8, jf: u8, k: u32) -> sock_filter {
    sock_filter { code, jt, jf, k }
}

/// The filter program, or `None` on an architecture this build has no numbers for.
pub(super) fn program() -> Option<Vec<sock_filter>> {
    let arch = ARCH?;
    let calls = denied();
    let n = u8::try_from(calls.len()).ok()?;
    let kill = libc::SECCOMP_RET_KILL_PROCESS;
    let eperm = libc::SECCOMP_RET_ERRNO | libc::EPERM as u32;
    let mut prog = vec![
        op(BPF_LD_W_ABS, 0, 0, ARCH_OFFSET),
        op(BPF_JEQ_K, 1, 0, arch),
        op(BPF_RET_K, 0, 0, kill),
        op(BPF_LD_W_ABS, 0, 0, NR_OFFSET),
        op(BPF_JGE_K, 0, 1, X32_BIT),
        op(BPF_RET_K, 0, 0, kill),
    ];
    for (i, nr) in calls.iter().enumerate() {
        // Jump over the remaining comparisons and the ALLOW to the EPERM return.
        let jump = n - u8::try_from(i).ok()?;
        prog.push(op(BPF_JEQ_K, jump, 0, u32::try_from(*nr).ok()?));
    }
    prog.push(op(BPF_RET_K, 0, 0, libc::SECCOMP_RET_ALLOW));
    prog.push(op(BPF_RET_K, 0, 0, eperm));
    Some(prog)
}
