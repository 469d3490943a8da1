//! The scope a plan declares — what the build phase may touch — and the check of a path or a
//! shell command against it.
//!
//! A plan declares its scope in a `Scope` or `Files` section (a markdown heading of that name):
//! each bullet item is a path glob (`` `src/**/*.py` ``, `docs/plan.md`) or, written as
//! `` `$ cargo test*` ``, a command pattern. In path globs `*` and `?` stay within one path
//! segment and `**` crosses segments; in command patterns `*` matches anything.

use serde::Serialize;

use super::steps::lines_outside_fences;

/// What an approved plan says the build phase will touch.
#[derive(Serialize, Clone, Debug, Default, PartialEq, Eq)]
pub struct Scope {
    /// Path globs relative to the workspace.
    pub paths: Vec<String>,
    /// Shell command patterns.
    pub commands: Vec<String>,
}

/// True for a heading line naming the scope section; returns its level.
fn scope_heading(line: &str) -> Option<usize> {
    let level = line.bytes().take_while(|b| *b == b'#').count();
    if level == 0 || level > 6 {
        return None;
    }
    let title = line[level..]
        .trim()
        .trim_end_matches(':')
        .trim()
        .to_ascii_lowercase();
    matches!(title.as_str(), "scope" | "files").then_some(level)
}

/// The patterns of one bullet item: its backticked spans, or else its first word.
fn item_patterns(item: &str) -> Vec<String> {
    let spans: Vec<&str> = item.split('`').skip(1).step_by(2).map(str::trim).collect();
    let raw: Vec<&str> = if spans.is_empty() {
        item.split_whitespace().take(1).collect()
    } else {
        spans
    };
    raw.into_iter()
        .filter(|p| !p.is_empty())
        .map(str::to_string)
        .collect()
}

/// The scope declared by a plan, or None when it declares none.
pub fn parse_scope(plan: &str) -> Option<Scope> {
    let mut scope = Scope::default();
    let mut section: Option<usize> = None;
    for line in lines_outside_fences(plan) {
        let trimmed = line.trim_start();
        if trimmed.starts_with('#') {
            let level = trimmed.bytes().take_while(|b| *b == b'#').count();
            section = match (scope_heading(trimmed), section) {
                (Some(l), _) => Some(l),
                (None, Some(open)) if level > open => Some(open),
                _ => None,
            };
            continue;
        }
        let Some(item) = section.and(trimmed.strip_prefix(['-', '*', '+'])) else {
            continue;
        };
        let item = item.trim_start();
        let item = ["[ ]", "[x]", "[X]"]
            .iter()
            .find_map(|b| item.strip_prefix(b))
            .unwrap_or(item);
        for pattern in item_patterns(item) {
            match pattern.strip_prefix('$') {
                Some(command) if !command.trim().is_empty() => {
                    scope.commands.push(command.trim().to_string())
                }
                Some(_) => {}
                None => scope.paths.push(pattern.trim_start_matches("./").to_string()),
            }
        }
    }
    (!scope.paths.is_empty() || !scope.commands.is_empty()).then_some(scope)
}

/// Glob match of `text` against `pattern`; with `segments`, `*`/`?` do not match `/`.
pub fn glob_match(pattern: &str, text: &str, segments: bool) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    // memo[i][j]: does p[i..] match t[j..]? Filled from the end.
    let mut memo = vec![vec![false; t.len() + 1]; p.len() + 1];
    memo[p.len()][t.len()] = true;
    for i in (0..p.len()).rev() {
        let double = segments && p[i] == '*' && p.get(i + 1) == Some(&'*');
        for j in (0..=t.len()).rev() {
            memo[i][j] = if double {
                // `**` (and a following `/`) match any run of characters, `/` included.
                let skip = if p.get(i + 2) == Some(&'/') { i + 3 } else { i + 2 };
                memo[skip][j] || memo[i + 2][j] || (j < t.len() && memo[i][j + 1])
            } else if p[i] == '*' {
                memo[i + 1][j] || (j < t.len() && !(segments && t[j] == '/') && memo[i][j + 1])
            } else if j == t.len() {
                false
            } else if p[i] == '?' {
                !(segments && t[j] == '/') && memo[i + 1][j + 1]
            } else {
                p[i] == t[j] && memo[i + 1][j + 1]
            };
        }
    }
    memo[0][0]
}

impl Scope {
    /// True when the workspace-relative `path` (POSIX separators) matches a path glob.
    pub fn allows_path(&self, path: &str) -> bool {
        let path = path.trim_start_matches("./");
        !path.split('/').any(|s| s == "..") && self.paths.iter().any(|g| glob_match(g, path, true))
    }

    /// True when every simple command of `command` matches a command pattern (each part of
    /// `a; b`, `a && b`, `a | b`... on its own) and every file it redirects output into is an
    /// allowed path (judged as written; [`super::scope_check`] also resolves symlinks). A line
    /// that cannot be analysed (substitutions, loops, functions...) never matches.
    pub fn allows_command(&self, command: &str) -> bool {
        self.outside_command(command)
            .is_ok_and(|(commands, writes)| commands.is_empty() && writes.iter().all(|w| self.allows_path(w)))
    }

    /// The simple commands of `command` that match no command pattern, and the files it
    /// writes through redirections (to be judged as paths); `Err` says why the line cannot
    /// be analysed.
    pub fn outside_command(&self, command: &str) -> Result<(Vec<String>, Vec<String>), String> {
        let parts = crate::core::shell::simple_commands(command)?;
        // A pattern written as a compound line (`cd docs && make`) allows each of its parts.
        let patterns: Vec<&str> = self
            .commands
            .iter()
            .flat_map(|p| p.split([';', '&', '|', '\n']))
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .collect();
        let outside = parts
            .commands
            .into_iter()
            .filter(|c| !patterns.iter().any(|p| glob_match(p, c, false)))
            .collect();
        Ok((outside, parts.writes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLAN: &str = "# Plan\n\n## Steps\n1. Fix `src/x.py`\n\n## Scope\n- `src/**/*.py` and `tests/test_*.py`\n\
                        - docs/plan.md (the section)\n- `$ pytest -q*`\n### Notes\n- `extra/*` still scope\n\
                        ## Risks\n- `not/scope/*`\n```\n## Scope\n- `fenced/*`\n```\n";

    #[test]
    fn parses_paths_and_commands_of_the_section_only() {
        let s = parse_scope(PLAN).unwrap();
        assert_eq!(
            s.paths,
            ["src/**/*.py", "tests/test_*.py", "docs/plan.md", "extra/*"]
        );
        assert_eq!(s.commands, ["pytest -q*"]);
        assert_eq!(parse_scope("# Plan\n1. do it\n"), None);
        assert_eq!(
            parse_scope("## Files:\n- [ ] `a.txt`\n").unwrap().paths,
            ["a.txt"]
        );
    }

    #[test]
    fn globs_respect_segments() {
        let s = parse_scope(PLAN).unwrap();
        for ok in [
            "src/a.py",
            "src/deep/er/b.py",
            "./tests/test_x.py",
            "docs/plan.md",
            "extra/y",
        ] {
            assert!(s.allows_path(ok), "{ok}");
        }
        for bad in [
            "src/a.pyc",
            "tests/sub/test_x.py",
            "docs/plan.mdx",
            "src/../etc/x.py",
            "other.py",
            "",
        ] {
            assert!(!s.allows_path(bad), "{bad}");
        }
        assert!(s.allows_command("pytest -q tests/"));
        assert!(!s.allows_command("rm -rf / ; pytest -q"));
        for chained in [
            "pytest -q; rm -rf /",
            "pytest -q && curl x",
            "pytest -q $(rm x)",
            "pytest -q > /etc/x",
            "pytest -q\nrm x",
            "pytest -q | sh",
        ] {
            assert!(!s.allows_command(chained), "{chained}");
        }
        assert!(glob_match("a?c", "abc", true) && !glob_match("a?c", "a/c", true));
        let compound = parse_scope("## Scope\n- `$ cd docs && make html`\n").unwrap();
        assert!(compound.allows_command("cd docs && make html"));
        assert!(compound.allows_command("cd docs; make html"));
        assert!(!compound.allows_command("cd docs && make html && rm -rf /"));
    }
}
