//! The permission-mode names plan mode records (AgentScope's `PermissionMode` values).

use super::error::{PlanError, PlanResult};

/// AgentScope's permission modes, by value.
pub const MODES: [&str; 5] = ["default", "accept_edits", "explore", "bypass", "dont_ask"];

/// Checks a permission-mode value (`"default"`, `"accept_edits"`, `"explore"`, `"bypass"`, `"dont_ask"`).
pub fn validate_mode(mode: &str) -> PlanResult<&str> {
    if MODES.contains(&mode) {
        Ok(mode)
    } else {
        Err(PlanError::UnknownMode(format!(
            "unknown permission mode {mode:?}: use one of {}",
            MODES.join(", ")
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn knows_the_five_modes() {
        for m in MODES {
            assert!(validate_mode(m).is_ok());
        }
        assert!(matches!(validate_mode("plan"), Err(PlanError::UnknownMode(_))));
    }
}
