//! Scoped grants: permission rules a human hands out with an approval. They belong to the
//! approved revision and expire when plan mode is entered again.

use serde::{Deserialize, Serialize};

use super::error::{PlanError, PlanResult};

/// Most grants one approval may carry.
pub const MAX_GRANTS: usize = 32;

/// An allow rule given with an approval (`Bash` + `npm test*`, or a whole tool when
/// `rule_content` is None).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Grant {
    /// The tool the rule applies to.
    pub tool_name: String,
    /// The tool-specific rule content (None: every call of the tool).
    #[serde(default)]
    pub rule_content: Option<String>,
    /// The approved revision the grant belongs to.
    #[serde(default)]
    pub revision: u32,
}

impl Grant {
    /// `Bash(npm test*)` or `Write`.
    pub fn label(&self) -> String {
        match &self.rule_content {
            Some(c) => format!("{}({c})", self.tool_name),
            None => self.tool_name.clone(),
        }
    }
}

/// Checks the grants of an answer: non-blank tool names, bounded sizes, no duplicates.
pub fn check_grants(grants: &[Grant]) -> PlanResult<()> {
    if grants.len() > MAX_GRANTS {
        return Err(PlanError::InvalidInput(format!(
            "at most {MAX_GRANTS} grants, got {}",
            grants.len()
        )));
    }
    for (i, g) in grants.iter().enumerate() {
        let bad_name = g.tool_name.trim().is_empty() || g.tool_name.len() > 128;
        let bad_content = g
            .rule_content
            .as_ref()
            .is_some_and(|c| c.trim().is_empty() || c.len() > 1024);
        if bad_name || bad_content {
            return Err(PlanError::InvalidInput(format!(
                "grant {} ({}) needs a tool name (1-128 bytes) and, if given, a non-blank rule content \
                 of at most 1024 bytes",
                i + 1,
                g.label()
            )));
        }
        if grants[..i]
            .iter()
            .any(|o| o.tool_name == g.tool_name && o.rule_content == g.rule_content)
        {
            return Err(PlanError::InvalidInput(format!(
                "grant {} ({}) is given twice",
                i + 1,
                g.label()
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g(tool: &str, content: Option<&str>) -> Grant {
        Grant {
            tool_name: tool.into(),
            rule_content: content.map(Into::into),
            revision: 0,
        }
    }

    #[test]
    fn labels_and_checks() {
        assert_eq!(g("Bash", Some("npm test*")).label(), "Bash(npm test*)");
        assert!(check_grants(&[g("Bash", Some("npm test*")), g("Write", None)]).is_ok());
        let dup = check_grants(&[g("Write", None), g("Write", None)])
            .unwrap_err()
            .to_string();
        assert!(dup.contains("grant 2 (Write) is given twice"), "{dup}");
        assert!(check_grants(&[g(" ", None)]).is_err());
        assert!(check_grants(&[g("Bash", Some(""))]).is_err());
        assert!(check_grants(&vec![g("a", None); MAX_GRANTS + 1]).is_err());
    }
}
