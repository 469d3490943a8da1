//! The permission modes and rule lists, mirroring AgentScope's `PermissionMode` and the three rule
//! dictionaries of `PermissionContext`.

use std::fmt;

/// A permission mode (AgentScope's `PermissionMode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mode {
    /// Every operation asks unless a rule or the tool allows it.
    Default,
    /// Edits inside working directories are allowed by the tools themselves.
    AcceptEdits,
    /// Read-only: everything that is not read-only is denied.
    Explore,
    /// Everything is allowed except what deny / ask rules or the tool's own DENY stop.
    Bypass,
    /// Unattended: every ASK becomes a DENY.
    DontAsk,
}

impl Mode {
    /// Every mode, in AgentScope's declaration order.
    pub const ALL: [Mode; 5] = [
        Mode::Default,
        Mode::AcceptEdits,
        Mode::Explore,
        Mode::Bypass,
        Mode::DontAsk,
    ];

    /// The enum value AgentScope uses (`"dont_ask"`).
    pub fn value(self) -> &'static str {
        match self {
            Mode::Default => "default",
            Mode::AcceptEdits => "accept_edits",
            Mode::Explore => "explore",
            Mode::Bypass => "bypass",
            Mode::DontAsk => "dont_ask",
        }
    }

    /// Parses an enum value (`"dont_ask"`) or name (`"DONT_ASK"`), case-insensitively.
    pub fn parse(text: &str) -> Option<Mode> {
        let lower = text.to_ascii_lowercase();
        Mode::ALL.into_iter().find(|m| m.value() == lower)
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.value())
    }
}

/// One of the three rule dictionaries of a permission context, in the order the engine reads them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RuleList {
    /// `deny_rules`: a match denies.
    Deny,
    /// `ask_rules`: a match asks (denies in DONT_ASK).
    Ask,
    /// `allow_rules`: a match allows.
    Allow,
}

impl RuleList {
    /// All three lists.
    pub const ALL: [RuleList; 3] = [RuleList::Deny, RuleList::Ask, RuleList::Allow];

    /// Position of the list in [`RuleList::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_values_and_names_case_insensitively() {
        assert_eq!(Mode::parse("dont_ask"), Some(Mode::DontAsk));
        assert_eq!(Mode::parse("DONT_ASK"), Some(Mode::DontAsk));
        assert_eq!(Mode::parse("Accept_Edits"), Some(Mode::AcceptEdits));
        assert_eq!(Mode::parse("plan"), None);
        assert_eq!(Mode::parse(" bypass"), None);
        for m in Mode::ALL {
            assert_eq!(Mode::parse(m.value()), Some(m));
            assert_eq!(m.to_string(), m.value());
        }
    }
}
