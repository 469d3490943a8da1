//! The rule semantics of AgentScope's `Bash.match_rule`:
//!
//! * `git:*` (a rule ending in `:*`) matches the command `git` and every command starting `git `;
//! * a rule without an unescaped `*` matches when it is a substring of the command (`\*` stands
//!   for `*` and `\\` for `\`);
//! * otherwise `*` is a wildcard over the whole command that does not cross a newline (Python's
//!   `re.fullmatch` with `.*`), and a trailing ` *` also accepts the bare prefix (`git *` matches
//!   `git`).
//!
//! Wildcard rules containing a backslash or a newline are refused by [`BashPattern::compile`]
//! (their meaning depends on Python's regex escapes), as is anything containing NUL (AgentScope's
//! placeholders); those rules are left to the tool's own `match_rule`.

use super::pystr::{py_rstrip, py_strip};

/// A compiled Bash permission rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BashPattern {
    /// `prefix:*`: the command is `prefix` or starts with `prefix `.
    Prefix(String),
    /// No wildcard: the (unescaped) text occurs in the command.
    Substring(String),
    /// `*` wildcards over a single-line command.
    Wildcard {
        /// The literal pieces between the stars.
        segments: Vec<String>,
        /// For a rule ending in `*`: the pieces without that star, trailing whitespace removed.
        bare: Option<Vec<String>>,
    },
}

const PLACEHOLDER: &str = "\u{0}BACKSLASH\u{0}";

impl BashPattern {
    /// Compiles a non-empty rule, or `None` when only Python can reproduce its meaning.
    pub fn compile(rule: &str) -> Option<BashPattern> {
        if let Some(prefix) = rule.strip_suffix(":*") {
            return Some(BashPattern::Prefix(py_strip(prefix).to_owned()));
        }
        if rule.contains('\u{0}') {
            return None;
        }
        if !has_unescaped_star(rule) {
            let text = rule
                .replace("\\\\", PLACEHOLDER)
                .replace("\\*", "*")
                .replace(PLACEHOLDER, "\\");
            return Some(BashPattern::Substring(text));
        }
        if rule.contains('\\') || rule.contains('\n') {
            return None;
        }
        let segments: Vec<String> = rule.split('*').map(str::to_owned).collect();
        let bare = rule.ends_with('*').then(|| {
            let mut bare = segments[..segments.len() - 1].to_vec();
            if let Some(last) = bare.last_mut() {
                *last = py_rstrip(last).to_owned();
            }
            bare
        });
        Some(BashPattern::Wildcard { segments, bare })
    }

    /// Whether the rule matches `command`.
    pub fn is_match(&self, command: &str) -> bool {
        match self {
            BashPattern::Prefix(prefix) => {
                command == prefix
                    || (command.starts_with(prefix.as_str()) && command[prefix.len()..].starts_with(' '))
            }
            BashPattern::Substring(text) => command.contains(text.as_str()),
            BashPattern::Wildcard { segments, bare } => {
                !command.contains('\n')
                    && (bare.as_ref().is_some_and(|b| full_match(b, command))
                        || full_match(segments, command))
            }
        }
    }
}

/// AgentScope's `has_wildcards`: a `*` not preceded by an escaping backslash.
fn has_unescaped_star(rule: &str) -> bool {
    let mut chars = rule.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                chars.next();
            }
            '*' => return true,
            _ => {}
        }
    }
    false
}

/// Whether `text` is `segments` joined by arbitrary runs of characters (stars between them).
fn full_match(segments: &[String], text: &str) -> bool {
    let (first, rest) = match segments.split_first() {
        Some(split) => split,
        None => return text.is_empty(),
    };
    let Some((last, middle)) = rest.split_last() else {
        return text == first;
    };
    if text.len() < first.len() + last.len()
        || !text.starts_with(first.as_str())
        || !text.ends_with(last.as_str())
    {
        return false;
    }
    let mut inner = &text[first.len()..text.len() - last.len()];
    for piece in middle {
        match inner.find(piece.as_str()) {
            Some(at) => inner = &inner[at + piece.len()..],
            None => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(command: &str, rule: &str) -> bool {
        BashPattern::compile(rule).expect("compiles").is_match(command)
    }

    #[test]
    fn prefix_rules() {
        assert!(m("git", "git:*") && m("git status", "git:*"));
        assert!(!m("gitk", "git:*") && !m(" git status", "git:*"));
        assert!(m("git commit -m x", " git commit :*"));
        assert!(m("npm run build", "npm run:*") && !m("npm install", "npm run:*"));
    }

    #[test]
    fn substring_rules_with_escapes() {
        assert!(m("npm install express", "npm install"));
        assert!(m("echo a*b", "a\\*b") && !m("echo ab", "a\\*b"));
        assert!(m("echo a\\b", "a\\\\b"));
        assert!(m("rm -rf /", "rm -rf"));
    }

    #[test]
    fn wildcard_rules() {
        assert!(m("git", "git *") && m("git add x", "git *") && !m("gitk", "git *"));
        assert!(m("ls -la /tmp", "ls * /tmp") && !m("ls /tmp", "ls * /tmp"));
        assert!(m("a.b", "a.*") && !m("axb", "a.*"));
        assert!(
            !m("git add\nrm -rf /", "git *"),
            "a star does not cross a newline"
        );
        assert!(m("", "*") && m("x", "*") && !m("x\ny", "*"));
        assert!(m("ab", "a**b") && m("aXYb", "a*b") && !m("aXYbc", "a*b"));
        assert!(m("aba", "a*a") && !m("a", "a*a"));
    }

    #[test]
    fn refuses_regex_escapes_and_multiline_wildcards() {
        assert_eq!(BashPattern::compile("a\\d*"), None);
        assert_eq!(BashPattern::compile("a\n*"), None);
        assert_eq!(BashPattern::compile("a\u{0}b"), None);
        assert!(
            BashPattern::compile("a\\d").is_some(),
            "no wildcard: plain substring"
        );
    }
}

#[cfg(test)]
mod props {
    use super::*;
    use proptest::prelude::*;

    /// Full match of `*`-separated literals where a star never spans a newline (exponential reference).
    fn reference(p: &[char], s: &[char]) -> bool {
        match p.split_first() {
            None => s.is_empty(),
            Some(('*', rest)) => (0..=s.len())
                .take_while(|&k| !s[..k].contains(&'\n'))
                .any(|k| reference(rest, &s[k..])),
            Some((c, rest)) => s.first() == Some(c) && reference(rest, &s[1..]),
        }
    }

    proptest! {
        #[test]
        fn wildcards_match_the_reference(rule in "[ab *]{1,7}", command in "[ab \n]{0,10}") {
            prop_assume!(rule.contains('*') && !rule.ends_with(":*"));
            let cmd: Vec<char> = command.chars().collect();
            let full = reference(&rule.chars().collect::<Vec<_>>(), &cmd);
            let bare = rule.strip_suffix('*').is_some_and(|b| {
                reference(&py_rstrip(b).chars().collect::<Vec<_>>(), &cmd)
            });
            prop_assert_eq!(BashPattern::compile(&rule).unwrap().is_match(&command), full || bare);
        }
    }
}
