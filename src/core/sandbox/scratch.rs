//! The per-command scratch directory: the only writable place, removed after the command.

use std::ffi::OsString;
use std::fs::DirBuilder;
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use super::error::SandboxError;

/// Entries of scratch listed back to the caller at most.
const MAX_LISTED: usize = 50;

/// A fresh directory (mode 0700) that exists for one command.
pub(super) struct Scratch {
    path: PathBuf,
}

/// What was left in scratch when the command ended.
pub(super) struct Leftovers {
    /// Files relative to scratch (at most [`MAX_LISTED`]).
    pub entries: Vec<String>,
    /// Whether the directory is gone.
    pub removed: bool,
}

/// Subdirectories created up front so that tools that keep caches find them.
const CACHE_DIRS: &[&str] = &["tmp", "cache"];

impl Scratch {
    /// Creates `planmode-sandbox-<pid>-<n>-<nanos>` under `parent` (the system temp dir).
    pub fn create(parent: Option<&Path>) -> Result<Self, SandboxError> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let parent = parent.map_or_else(std::env::temp_dir, Path::to_path_buf);
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let path = parent.join(format!("planmode-sandbox-{}-{n}-{nanos:08x}", std::process::id()));
        let io = |what: String, e| SandboxError::Io(what, e);
        DirBuilder::new()
            .mode(0o700)
            .create(&path)
            .map_err(|e| io(format!("creating scratch directory {}", path.display()), e))?;
        let path = path
            .canonicalize()
            .map_err(|e| io(format!("resolving scratch directory {}", path.display()), e))?;
        for sub in CACHE_DIRS {
            DirBuilder::new()
                .mode(0o700)
                .create(path.join(sub))
                .map_err(|e| io(format!("creating {sub} in scratch"), e))?;
        }
        Ok(Self { path })
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Environment pointing temp files and common tools' caches into scratch (`HOME` itself
    /// stays, so configuration is still read from it).
    pub fn env(&self) -> Vec<(&'static str, OsString)> {
        let tmp = self.path.join("tmp");
        let cache = self.path.join("cache");
        let mut env: Vec<(&'static str, OsString)> = ["TMPDIR", "TMP", "TEMP"]
            .into_iter()
            .map(|k| (k, tmp.clone().into_os_string()))
            .collect();
        for (key, sub) in [
            ("XDG_CACHE_HOME", "xdg"),
            ("PIP_CACHE_DIR", "pip"),
            ("MYPY_CACHE_DIR", "mypy"),
            ("RUFF_CACHE_DIR", "ruff"),
            ("npm_config_cache", "npm"),
            ("CARGO_TARGET_DIR", "cargo-target"),
            ("GOCACHE", "go-build"),
        ] {
            env.push((key, cache.join(sub).into_os_string()));
        }
        // Python still reads the bytecode caches it finds but does not try to write new ones
        // (a cache prefix in scratch would recompile the whole standard library every run).
        env.push(("PYTHONDONTWRITEBYTECODE", OsString::from("1")));
        env.push(("PLANMODE_SANDBOX_SCRATCH", self.path.clone().into_os_string()));
        env
    }

    /// Lists what the command left and removes the directory.
    pub fn finish(self) -> Leftovers {
        let mut entries = Vec::new();
        list(&self.path, &self.path, &mut entries);
        let removed = remove(&self.path);
        Leftovers { entries, removed }
    }
}

impl Drop for Scratch {
    /// A run that was cancelled (its future dropped) still removes its scratch directory.
    fn drop(&mut self) {
        if self.path.exists() {
            remove(&self.path);
        }
    }
}

/// Relative paths of files and non-empty directories below `dir` (breadth bounded).
fn list(root: &Path, dir: &Path, out: &mut Vec<String>) {
    let Ok(read) = std::fs::read_dir(dir) else {
        return;
    };
    let mut names: Vec<_> = read.flatten().collect();
    names.sort_by_key(std::fs::DirEntry::file_name);
    for entry in names {
        if out.len() >= MAX_LISTED {
            return;
        }
        let path = entry.path();
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        if is_dir {
            list(root, &path, out);
        } else if let Ok(rel) = path.strip_prefix(root) {
            out.push(rel.to_string_lossy().into_owned());
        }
    }
}

/// Removes the tree (the seccomp filter keeps commands from locking it with `chmod`).
fn remove(path: &Path) -> bool {
    std::fs::remove_dir_all(path).is_ok()
}
