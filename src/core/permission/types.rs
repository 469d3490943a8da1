//! The permission modes and rule lists, mirroring AgentScope's `PermissionMode` and the three rule
//! dictionaries of `PermissionContext`.

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
    /// Position of the list in deny, ask, allow order.
    pub fn index(self) -> usize {
        self as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_agentscopes() {
        let values: Vec<&str> = Mode::ALL.iter().map(|m| m.value()).collect();
        assert_eq!(
            values,
            ["default", "accept_edits", "explore", "bypass", "dont_ask"]
        );
        assert_eq!(
            [
                RuleList::Deny.index(),
                RuleList::Ask.index(),
                RuleList::Allow.index()
            ],
            [0, 1, 2]
        );
    }
}
