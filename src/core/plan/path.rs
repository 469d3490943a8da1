//! Where the plan file lives, and safe reads and atomic writes inside the workspace.
//!
//! Rules: the plan directory is relative (no absolute path, no `..`), every existing
//! directory on the way must resolve inside the workspace (a symlinked directory pointing
//! outside is refused), the plan file itself must not be a symlink nor have a second hard
//! link (either would let a file outside the plan be read as the plan), and writes go to a
//! temporary file in the same directory that is then renamed over the plan file.

use std::fs::{self, OpenOptions};
use std::io::{ErrorKind, Read, Write};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use super::content::decode_plan_bytes;
use super::error::{PlanError, PlanResult};

/// The plan file name.
pub const PLAN_FILE: &str = "PLAN.md";

fn escape(msg: String) -> PlanError {
    PlanError::PathEscape(msg)
}

fn io_err(what: &str, path: &Path, e: &std::io::Error) -> PlanError {
    PlanError::Io(format!("{what} {}: {e}", path.display()))
}

/// Refuses a plan file with more than one hard link: its text is also another file's,
/// possibly one outside the workspace.
#[cfg(unix)]
fn check_single_link(meta: &fs::Metadata, path: &Path) -> PlanResult<()> {
    use std::os::unix::fs::MetadataExt;
    if meta.nlink() > 1 {
        return Err(escape(format!(
            "plan file {} has {} hard links; refusing to read or write through it (remove the other links)",
            path.display(),
            meta.nlink()
        )));
    }
    Ok(())
}

/// Hard-link counts are a Unix notion; elsewhere there is nothing to refuse.
#[cfg(not(unix))]
fn check_single_link(_meta: &fs::Metadata, _path: &Path) -> PlanResult<()> {
    Ok(())
}

/// Normalizes a configured plan directory: relative, `/`-separated, without `.` parts.
/// `"."` or `""` means the workspace root. Refuses absolute paths, `..`, backslashes and NUL.
pub fn normalize_plan_dir(plan_dir: &str) -> PlanResult<String> {
    let refuse = |why: &str| {
        escape(format!(
            "plan_dir {plan_dir:?} {why}: it must be a relative path inside the workspace"
        ))
    };
    if plan_dir.starts_with('/') || plan_dir.starts_with('~') || plan_dir.get(1..2) == Some(":") {
        return Err(refuse("is absolute"));
    }
    if plan_dir.contains('\\') || plan_dir.contains('\0') {
        return Err(refuse("contains a backslash or NUL"));
    }
    let parts: Vec<&str> = plan_dir
        .split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    if parts.contains(&"..") {
        return Err(refuse("contains '..'"));
    }
    Ok(parts.join("/"))
}

/// Checks a stored workspace-relative path: normalized, relative, no `..`.
pub fn check_relative(rel: &str) -> PlanResult<()> {
    let normalized = normalize_plan_dir(rel)?;
    if normalized != rel || rel.is_empty() {
        return Err(escape(format!(
            "plan path {rel:?} is not a normalized relative path (no '..', '.', '//')"
        )));
    }
    Ok(())
}

/// Turns an agent name into one safe path component (`[A-Za-z0-9._-]`, no leading dot).
pub fn namespace_component(name: &str) -> String {
    let mut out: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .take(48)
        .collect();
    while out.starts_with('.') {
        out.remove(0);
    }
    if out.is_empty() { "agent".to_string() } else { out }
}

/// The plan file path relative to the workspace: `<plan_dir>/PLAN.md`, or
/// `<plan_dir>/<namespace>/PLAN.md` when namespaced.
pub fn plan_relpath(plan_dir: &str, namespace: Option<&str>) -> PlanResult<String> {
    let mut parts: Vec<String> = Vec::new();
    let dir = normalize_plan_dir(plan_dir)?;
    if !dir.is_empty() {
        parts.push(dir);
    }
    if let Some(ns) = namespace {
        parts.push(namespace_component(ns));
    }
    parts.push(PLAN_FILE.to_string());
    Ok(parts.join("/"))
}

/// A workspace directory, resolved once; every path handed to it must stay inside.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Workspace {
    root: PathBuf,
}

impl Workspace {
    /// Opens an existing workspace directory (resolving symlinks in its own path).
    pub fn open(dir: &Path) -> PlanResult<Self> {
        let root = fs::canonicalize(dir).map_err(|e| io_err("workspace_dir", dir, &e))?;
        if !root.is_dir() {
            return Err(PlanError::Io(format!(
                "workspace_dir {} is not a directory",
                dir.display()
            )));
        }
        Ok(Self { root })
    }

    /// The resolved workspace directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Absolute path of a workspace-relative path (no file-system checks).
    pub fn join(&self, rel: &str) -> PathBuf {
        rel.split('/').fold(self.root.clone(), |p, c| p.join(c))
    }

    /// Checks the way to `rel` and returns its absolute path; `None` when a directory on the
    /// way is missing and `create` is false. With `create`, missing directories are made.
    fn resolve(&self, rel: &str, create: bool) -> PlanResult<Option<PathBuf>> {
        check_relative(rel)?;
        let parts: Vec<&str> = rel.split('/').collect();
        let (file, dirs) = parts
            .split_last()
            .ok_or_else(|| escape("empty plan path".into()))?;
        let mut cur = self.root.clone();
        for d in dirs {
            cur.push(d);
            match fs::symlink_metadata(&cur) {
                Ok(m) if m.file_type().is_symlink() => {
                    let target =
                        fs::canonicalize(&cur).map_err(|e| io_err("cannot resolve symlink", &cur, &e))?;
                    if !target.starts_with(&self.root) {
                        return Err(escape(format!(
                            "plan directory {} is a symlink to {}, outside the workspace {}",
                            cur.display(),
                            target.display(),
                            self.root.display()
                        )));
                    }
                    if !target.is_dir() {
                        return Err(PlanError::Io(format!("{} is not a directory", cur.display())));
                    }
                }
                Ok(m) if m.is_dir() => {}
                Ok(_) => {
                    return Err(PlanError::Io(format!(
                        "{} exists and is not a directory",
                        cur.display()
                    )));
                }
                Err(e) if e.kind() == ErrorKind::NotFound => {
                    if !create {
                        return Ok(None);
                    }
                    match fs::create_dir(&cur) {
                        Ok(()) => {}
                        Err(e) if e.kind() == ErrorKind::AlreadyExists && cur.is_dir() => {}
                        Err(e) => return Err(io_err("cannot create directory", &cur, &e)),
                    }
                }
                Err(e) => return Err(io_err("cannot inspect", &cur, &e)),
            }
        }
        let parent = fs::canonicalize(&cur).map_err(|e| io_err("cannot resolve", &cur, &e))?;
        if !parent.starts_with(&self.root) {
            return Err(escape(format!(
                "{} resolves outside the workspace {}",
                cur.display(),
                self.root.display()
            )));
        }
        let path = parent.join(file);
        match fs::symlink_metadata(&path) {
            Ok(m) if m.file_type().is_symlink() => Err(escape(format!(
                "plan file {} is a symlink; refusing to read or write through it",
                path.display()
            ))),
            Ok(m) if !m.is_file() => Err(PlanError::Io(format!(
                "{} exists and is not a regular file",
                path.display()
            ))),
            Ok(m) => check_single_link(&m, &path).map(|()| Some(path)),
            _ => Ok(Some(path)),
        }
    }

    /// Reads a text file in the workspace; `None` when it does not exist. Refuses files
    /// over `max_bytes`, non-UTF-8 content, and the path escapes `resolve` refuses.
    pub fn read(&self, rel: &str, max_bytes: usize) -> PlanResult<Option<String>> {
        let Some(path) = self.resolve(rel, false)? else {
            return Ok(None);
        };
        let mut f = match fs::File::open(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io_err("cannot open", &path, &e)),
        };
        // Checked again on the open file: a link made after `resolve` must not slip through.
        let meta = f.metadata().map_err(|e| io_err("cannot inspect", &path, &e))?;
        check_single_link(&meta, &path)?;
        let mut bytes = Vec::new();
        let limit = u64::try_from(max_bytes).unwrap_or(u64::MAX).saturating_add(1);
        (&mut f)
            .take(limit)
            .read_to_end(&mut bytes)
            .map_err(|e| io_err("cannot read", &path, &e))?;
        if bytes.len() > max_bytes {
            return Err(PlanError::InvalidInput(format!(
                "plan file {} is over the limit of {max_bytes} bytes",
                path.display()
            )));
        }
        decode_plan_bytes(bytes, &format!("plan file {}", path.display())).map(Some)
    }

    /// Replaces a file in the workspace atomically (temporary file + rename in the same directory).
    pub fn write_atomic(&self, rel: &str, text: &str) -> PlanResult<PathBuf> {
        let path = self
            .resolve(rel, true)?
            .ok_or_else(|| escape(format!("cannot place {rel}")))?;
        let dir = path.parent().unwrap_or(&self.root);
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or(PLAN_FILE);
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let tmp = dir.join(format!(".{name}.{}.{nanos}.tmp", std::process::id()));
        let result = (|| {
            let mut f = OpenOptions::new().write(true).create_new(true).open(&tmp)?;
            f.write_all(text.as_bytes())?;
            f.sync_all()?;
            fs::rename(&tmp, &path)
        })();
        if let Err(e) = result {
            let _ = fs::remove_file(&tmp);
            return Err(io_err("cannot write", &path, &e));
        }
        Ok(path)
    }
}
