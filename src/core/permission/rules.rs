//! Compiled permission rules and the invocation facts they are matched against.

use super::bash::BashPattern;
use super::glob::Glob;

/// What a rule's `rule_content` is, compiled for every native matcher that can reproduce it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RuleContent {
    /// `None` or `""`: a tool-name-level rule that matches every invocation.
    Always,
    /// A non-empty string.
    Text {
        /// Bash semantics, if reproducible natively.
        bash: Option<BashPattern>,
        /// fnmatch semantics, if reproducible natively.
        glob: Option<Glob>,
    },
    /// Not a string (only reachable by assigning into a rule by hand): only the tool decides.
    Opaque,
}

/// One rule, ready to match.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompiledRule {
    /// The compiled content.
    pub content: RuleContent,
    /// How the content prints in a decision reason (`Rule: {display}`).
    pub display: String,
}

impl CompiledRule {
    /// A rule whose content is `None` (`display` is `"None"`) or a string.
    pub fn new(content: Option<&str>) -> CompiledRule {
        match content {
            None => CompiledRule {
                content: RuleContent::Always,
                display: "None".to_owned(),
            },
            Some("") => CompiledRule {
                content: RuleContent::Always,
                display: String::new(),
            },
            Some(text) => CompiledRule {
                content: RuleContent::Text {
                    bash: BashPattern::compile(text),
                    glob: Glob::compile(text),
                },
                display: text.to_owned(),
            },
        }
    }

    /// A rule whose content is some other object, printed as `display`.
    pub fn opaque(display: String) -> CompiledRule {
        CompiledRule {
            content: RuleContent::Opaque,
            display,
        }
    }

    /// Whether the rule matches the invocation, or `None` when only the tool's `match_rule` can say.
    pub fn matches(&self, subject: &Subject) -> Option<bool> {
        let (bash, glob) = match &self.content {
            RuleContent::Always => return Some(true),
            RuleContent::Opaque => return None,
            RuleContent::Text { bash, glob } => (bash, glob),
        };
        match subject {
            Subject::Tool => None,
            Subject::NoContent => Some(false),
            Subject::Command(command) => Some(bash.as_ref()?.is_match(command)),
            Subject::FilePath(path) => {
                let glob = glob.as_ref()?;
                Some(path.as_ref().is_some_and(|p| !p.is_empty() && glob.is_match(p)))
            }
            Subject::Search { path, pattern } => {
                let glob = glob.as_ref()?;
                let hit =
                    |s: &Option<Vec<char>>| s.as_ref().is_some_and(|s| !s.is_empty() && glob.is_match(s));
                Some(hit(path) || hit(pattern))
            }
        }
    }
}

/// The facts of one invocation that native matching needs, by the kind of the tool's `match_rule`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Subject {
    /// AgentScope's Bash: the command (`""` when absent).
    Command(String),
    /// Read / Write / Edit (and Grep with a path): the path; `None` when absent or falsy.
    FilePath(Option<Vec<char>>),
    /// Glob: the search path and the pattern; `None` when absent or falsy.
    Search {
        /// `tool_input["path"]`.
        path: Option<Vec<char>>,
        /// `tool_input["pattern"]`.
        pattern: Option<Vec<char>>,
    },
    /// A tool with ToolBase's own `match_rule` (`rule_content is None`): content rules never match.
    NoContent,
    /// Any other tool (or input the native matchers cannot read): the tool's `match_rule` decides.
    Tool,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chars(text: &str) -> Option<Vec<char>> {
        Some(text.chars().collect())
    }

    #[test]
    fn empty_and_none_contents_match_everything() {
        assert_eq!(CompiledRule::new(None).matches(&Subject::Tool), Some(true));
        assert_eq!(CompiledRule::new(None).display, "None");
        assert_eq!(
            CompiledRule::new(Some("")).matches(&Subject::Command("x".into())),
            Some(true)
        );
    }

    #[test]
    fn content_rules_use_the_subjects_matcher_or_defer() {
        let rule = CompiledRule::new(Some("src/**"));
        assert_eq!(rule.matches(&Subject::FilePath(chars("src/a.py"))), Some(true));
        assert_eq!(rule.matches(&Subject::FilePath(chars(""))), Some(false));
        assert_eq!(rule.matches(&Subject::FilePath(None)), Some(false));
        let search = Subject::Search {
            path: None,
            pattern: chars("src/x/*.rs"),
        };
        assert_eq!(rule.matches(&search), Some(true));
        assert_eq!(rule.matches(&Subject::Tool), None);
        assert_eq!(rule.matches(&Subject::NoContent), Some(false));
        assert_eq!(CompiledRule::new(None).matches(&Subject::NoContent), Some(true));
        assert_eq!(
            CompiledRule::new(Some("git:*")).matches(&Subject::Command("git log".into())),
            Some(true)
        );
        assert_eq!(
            CompiledRule::new(Some("a\\d*")).matches(&Subject::Command("a1".into())),
            None
        );
        assert_eq!(
            CompiledRule::opaque("3".into()).matches(&Subject::Command("3".into())),
            None
        );
    }
}
