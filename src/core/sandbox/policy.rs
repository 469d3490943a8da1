//! The Landlock ruleset of one command, built in the parent (the child only applies its fd).

use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};

use landlock::{
    ABI, Access, AccessFs, AccessNet, BitFlags, CompatLevel, Compatible, PathBeneath, PathFd, Ruleset,
    RulesetAttr, RulesetCreated, RulesetCreatedAttr, Scope,
};

use super::error::SandboxError;
use super::probe::abi_enum;

/// Devices every command may read and write (and truncate, as `> /dev/null` does).
const DEVICES: &[&str] = &[
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
];

/// A ruleset ready to be applied in the child, and what it covers.
pub(super) struct Prepared {
    /// The ruleset file descriptor (`landlock_restrict_self` takes it in the child).
    pub fd: OwnedFd,
    /// Whether TCP bind/connect are denied.
    pub network_blocked: bool,
    /// Whether signals and abstract Unix sockets are scoped.
    pub scoped: bool,
}

/// Builds the ruleset: `readable` (or `/`) read-only, `scratch` fully writable, the devices
/// read/write; network denied unless `allow_network` (where ABI ≥ 4); scopes where ABI ≥ 6.
pub(super) fn build(
    abi: u8,
    readable: Option<&[PathBuf]>,
    scratch: &Path,
    allow_network: bool,
) -> Result<Prepared, SandboxError> {
    let v = abi_enum(abi);
    let err = |what: &str, e: landlock::RulesetError| {
        SandboxError::Io(format!("{what} (Landlock ABI {abi})"), std::io::Error::other(e))
    };
    let network_blocked = !allow_network && v >= ABI::V4;
    let scoped = v >= ABI::V6;
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::HardRequirement)
        .handle_access(AccessFs::from_all(v))
        .map_err(|e| err("handling filesystem access", e))?;
    if network_blocked {
        ruleset = ruleset
            .handle_access(AccessNet::from_all(v))
            .map_err(|e| err("handling network access", e))?;
    }
    if scoped {
        ruleset = ruleset
            .scope(Scope::from_all(v))
            .map_err(|e| err("scoping signals and sockets", e))?;
    }
    let mut created = ruleset.create().map_err(|e| err("creating the ruleset", e))?;
    let root = [PathBuf::from("/")];
    for path in readable.unwrap_or(&root) {
        if path.exists() {
            created = add(created, path, AccessFs::from_read(v), abi)?;
        }
    }
    created = add(created, scratch, AccessFs::from_all(v), abi)?;
    let device = AccessFs::from_file(v) & !BitFlags::from(AccessFs::Execute);
    for dev in DEVICES {
        if Path::new(dev).exists() {
            created = add(created, Path::new(dev), device, abi)?;
        }
    }
    let fd: Option<OwnedFd> = created.into();
    let fd = fd.ok_or_else(|| SandboxError::Unavailable(format!("Landlock ABI {abi} gave no ruleset")))?;
    Ok(Prepared {
        fd,
        network_blocked,
        scoped,
    })
}

fn add(
    created: RulesetCreated,
    path: &Path,
    access: BitFlags<AccessFs>,
    abi: u8,
) -> Result<RulesetCreated, SandboxError> {
    let io = |e: &dyn std::fmt::Display| {
        SandboxError::Io(
            format!("adding a Landlock rule for {} (ABI {abi})", path.display()),
            std::io::Error::other(e.to_string()),
        )
    };
    let fd = PathFd::new(path).map_err(|e| io(&e))?;
    created.add_rule(PathBeneath::new(fd, access)).map_err(|e| io(&e))
}
