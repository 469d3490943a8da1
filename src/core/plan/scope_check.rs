//! Judges one tool call against the approved scope, as the call will act on the disk: every path
//! its input names (any known path key, at any depth, lists included), each resolved against the
//! workspace through symlinks and `..`, and every simple command and redirection of a shell line.
//!
//! Fail closed: a writing call whose input names no recognisable path, a path outside the
//! workspace, a hard-linked file, a home-relative (`~`) path or a line that cannot be analysed
//! is outside the scope.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::os::unix::fs::MetadataExt;
use std::path::{Component, Path, PathBuf};

use serde_json::Value;

use super::scope::Scope;

/// Deepest nesting of a tool input that is searched for paths.
pub const MAX_INPUT_DEPTH: usize = 32;
/// Most paths judged in one call (more: the call is outside the scope).
pub const MAX_INPUT_PATHS: usize = 256;
/// Most symlinks followed while resolving one path (as the kernel's limit).
const MAX_SYMLINKS: usize = 40;

/// Keys whose values name files or directories, beyond the suffix rules of [`is_path_key`].
const PATH_KEYS: [&str; 22] = [
    "path",
    "paths",
    "file",
    "files",
    "filename",
    "filenames",
    "filepath",
    "filepaths",
    "source",
    "sources",
    "src",
    "destination",
    "destinations",
    "dest",
    "dst",
    "target",
    "targets",
    "from",
    "to",
    "dir",
    "directory",
    "cwd",
];

/// True for an input key that names a path: one of [`PATH_KEYS`], or ending in `path(s)`,
/// `_file(s)`, `_dir(s)`, `_directory`, `_folder` (case-insensitive: `file_path`, `notebook_path`).
pub fn is_path_key(key: &str) -> bool {
    let k = key.to_ascii_lowercase();
    const SUFFIXES: [&str; 8] = [
        "path",
        "paths",
        "_file",
        "_files",
        "_dir",
        "_dirs",
        "_directory",
        "_folder",
    ];
    PATH_KEYS.contains(&k.as_str()) || SUFFIXES.iter().any(|s| k.ends_with(s))
}

/// Every path an input names: string values (or lists of strings) under a path key, at any
/// depth. `Err` when the input is too deep or names too many paths to judge.
pub fn input_paths(input: &Value) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    collect(input, false, 0, &mut out)?;
    Ok(out)
}

fn collect(value: &Value, under_path_key: bool, depth: usize, out: &mut Vec<String>) -> Result<(), String> {
    if depth > MAX_INPUT_DEPTH {
        return Err(format!("the input nests deeper than {MAX_INPUT_DEPTH} levels"));
    }
    match value {
        Value::String(s) if under_path_key => {
            if out.len() == MAX_INPUT_PATHS {
                return Err(format!("the input names more than {MAX_INPUT_PATHS} paths"));
            }
            out.push(s.clone());
        }
        Value::Array(items) => {
            for item in items {
                collect(item, under_path_key, depth + 1, out)?;
            }
        }
        Value::Object(map) => {
            for (k, v) in map {
                collect(v, is_path_key(k), depth + 1, out)?;
            }
        }
        _ => {}
    }
    Ok(())
}

/// Where a path really is, relative to the workspace root (POSIX separators), following every
/// symlink as the kernel would (a dangling one to where it would create the file). `Err` says
/// why it is outside the workspace or cannot be judged.
pub fn resolve(root: &Path, base: &Path, raw: &str) -> Result<String, String> {
    if raw.is_empty() || raw.contains('\0') {
        return Err("an empty or NUL-holding path".into());
    }
    if raw.starts_with('~') {
        return Err("a home-relative path".into());
    }
    let joined = if Path::new(raw).is_absolute() {
        PathBuf::from(raw)
    } else {
        base.join(raw)
    };
    let mut todo: VecDeque<OsString> = VecDeque::new();
    let mut cur = PathBuf::from("/");
    push_components(&joined, &mut todo, &mut cur);
    let mut links = 0;
    while let Some(name) = todo.pop_front() {
        if name == ".." {
            cur.pop();
            continue;
        }
        let next = cur.join(&name);
        match std::fs::symlink_metadata(&next) {
            Ok(meta) if meta.file_type().is_symlink() => {
                links += 1;
                if links > MAX_SYMLINKS {
                    return Err("too many symlinks".into());
                }
                let target = std::fs::read_link(&next).map_err(|e| format!("an unreadable symlink: {e}"))?;
                let mut rest = VecDeque::new();
                push_components(&target, &mut rest, &mut cur);
                rest.extend(todo);
                todo = rest;
            }
            _ => cur = next,
        }
    }
    let rel = cur
        .strip_prefix(root)
        .map_err(|_| "outside the workspace".to_string())?;
    let rel = rel
        .to_str()
        .ok_or_else(|| "a path that is not UTF-8".to_string())?
        .to_string();
    if let Ok(meta) = std::fs::metadata(&cur)
        && meta.is_file()
        && meta.nlink() > 1
    {
        return Err(format!("{rel:?} is hard-linked (it may be another file too)"));
    }
    Ok(rel)
}

/// Queues the components of `path`; an absolute one restarts `cur` at `/`.
fn push_components(path: &Path, todo: &mut VecDeque<OsString>, cur: &mut PathBuf) {
    for c in path.components() {
        match c {
            Component::RootDir | Component::Prefix(_) => {
                *cur = PathBuf::from("/");
                todo.clear();
            }
            Component::CurDir => {}
            Component::ParentDir => todo.push_back("..".into()),
            Component::Normal(n) => todo.push_back(n.to_os_string()),
        }
    }
}

/// The workspace-relative form of `raw` without touching the disk (`..` folded), or None when
/// it leaves the workspace.
fn lexical(root: &Path, base: &Path, raw: &str) -> Option<String> {
    let joined = if Path::new(raw).is_absolute() {
        PathBuf::from(raw)
    } else {
        base.join(raw)
    };
    let mut parts: Vec<&std::ffi::OsStr> = Vec::new();
    for c in joined.components() {
        match c {
            Component::ParentDir => {
                parts.pop()?;
            }
            Component::Normal(n) => parts.push(n),
            _ => {}
        }
    }
    let full: PathBuf = std::iter::once(std::ffi::OsStr::new("/")).chain(parts).collect();
    full.strip_prefix(root).ok()?.to_str().map(str::to_string)
}

/// Judges one path; the description of what is outside, or None when it is inside.
fn judge_path(scope: &Scope, root: &Path, base: &Path, raw: &str) -> Option<String> {
    match (lexical(root, base, raw), resolve(root, base, raw)) {
        (Some(named), Ok(real)) if named == real => {
            (!scope.allows_path(&real)).then(|| format!("path {real:?}"))
        }
        (Some(named), Ok(real)) => (!scope.allows_path(&named) || !scope.allows_path(&real))
            .then(|| format!("path {named:?} (which is {real:?} on disk)")),
        (_, Err(why)) => Some(format!("path {raw:?} ({why})")),
        (None, Ok(_)) => Some(format!("path {raw:?} (outside the workspace)")),
    }
}

/// What a call would touch outside `scope`: for a shell call (`command`) its simple commands
/// matching no pattern and its redirections outside the paths; otherwise every path named by
/// `input` that is outside. Relative paths are taken from `base` (the tool's working
/// directory, the workspace when None). Empty when the call stays inside the scope.
pub fn outside_parts(
    scope: &Scope,
    root: &Path,
    base: Option<&Path>,
    command: Option<&str>,
    input: &Value,
) -> Vec<String> {
    let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let base = base.map_or_else(|| root.clone(), Path::to_path_buf);
    if let Some(command) = command {
        return match scope.outside_command(command) {
            Err(why) => vec![format!("command {command:?} (cannot be analysed: {why})")],
            Ok((commands, writes)) => commands
                .iter()
                .map(|c| format!("command {c:?}"))
                .chain(writes.iter().filter_map(|w| judge_path(scope, &root, &base, w)))
                .collect(),
        };
    }
    match input_paths(input) {
        Err(why) => vec![format!("the paths it names ({why})")],
        Ok(paths) if paths.is_empty() => {
            vec!["an unknown path (its input names none planmode recognises)".into()]
        }
        Ok(paths) => {
            let mut out: Vec<String> = Vec::new();
            for p in paths {
                if let Some(o) = judge_path(scope, &root, &base, &p)
                    && !out.contains(&o)
                {
                    out.push(o);
                }
            }
            out
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn scope() -> Scope {
        Scope {
            paths: vec!["notes/**".into(), "src/a.py".into()],
            commands: vec!["make docs*".into(), "touch notes/*".into()],
        }
    }

    #[test]
    fn finds_every_path_of_an_input() {
        let input = json!({"source": "a", "destination": "b", "paths": ["c", "d"], "content": "not/a/path",
                           "edits": [{"file_path": "e", "old_string": "x"}], "notebook_path": "f",
                           "options": {"target_dir": "g"}, "count": 3});
        let mut found = input_paths(&input).unwrap();
        found.sort();
        assert_eq!(found, ["a", "b", "c", "d", "e", "f", "g"]);
        assert!(input_paths(&json!({"content": "x"})).unwrap().is_empty());
        let mut deep = json!("p");
        for _ in 0..40 {
            deep = json!({ "path": [deep] });
        }
        assert!(input_paths(&deep).is_err());
    }

    #[test]
    fn judges_paths_on_disk() {
        let dir = std::env::temp_dir().join(format!("planmode-scope-check-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let root = std::fs::canonicalize(&dir).unwrap();
        std::fs::create_dir_all(root.join("notes")).unwrap();
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(root.join("src/b.py"), "").unwrap();
        std::os::unix::fs::symlink(root.join("src/b.py"), root.join("notes/link.md")).unwrap();
        std::os::unix::fs::symlink("../src", root.join("notes/dir")).unwrap();
        std::os::unix::fs::symlink("/etc", root.join("notes/etc")).unwrap();
        std::os::unix::fs::symlink("../src/new.py", root.join("notes/dangling.md")).unwrap();
        std::fs::write(root.join("notes/hard.md"), "").unwrap();
        std::fs::hard_link(root.join("notes/hard.md"), root.join("src/hard.py")).unwrap();
        let s = scope();
        let judge = |input: Value| outside_parts(&s, &root, None, None, &input);
        assert!(judge(json!({"path": "notes/a.md"})).is_empty());
        assert!(judge(json!({"path": root.join("notes/x/y.md").to_str().unwrap()})).is_empty());
        assert!(judge(json!({"source": "notes/a.md", "destination": "src/a.py"})).is_empty());
        for bad in [
            json!({"source": "notes/a.md", "destination": "src/b.py"}),
            json!({"paths": ["notes/a.md", "other.txt"]}),
            json!({"edits": [{"file_path": "notes/a.md"}, {"file_path": "src/../x.py"}]}),
            json!({"path": "notes/link.md"}),
            json!({"path": "notes/dir/b.py"}),
            json!({"path": "notes/etc/passwd"}),
            json!({"path": "notes/dangling.md"}),
            json!({"path": "notes/hard.md"}),
            json!({"path": "notes/../../x"}),
            json!({"path": "/etc/passwd"}),
            json!({"path": "~/notes/a.md"}),
            json!({"path": ""}),
            json!({"content": "x"}),
        ] {
            assert!(!judge(bad.clone()).is_empty(), "{bad}");
        }
        let out = judge(json!({"path": "notes/link.md"}));
        assert_eq!(out, ["path \"notes/link.md\" (which is \"src/b.py\" on disk)"]);
        let sh = |cmd: &str| outside_parts(&s, &root, None, Some(cmd), &Value::Null);
        assert!(sh("make docs && touch notes/x").is_empty());
        assert!(sh("make docs > notes/out.txt").is_empty());
        assert_eq!(sh("make docs; rm -rf x"), ["command \"rm -rf x\""]);
        assert_eq!(sh("make docs > src/b.py"), ["path \"src/b.py\""]);
        assert_eq!(sh("make docs > notes/link.md").len(), 1);
        assert!(sh("make docs $(rm x)")[0].contains("cannot be analysed"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
