//! Who did something: `model`, `user`, `api`, `admin`, `lead`, `policy` or `system`,
//! optionally qualified (`admin:alice`).

use super::error::{PlanError, PlanResult};

/// The actor kinds an audit entry may name.
pub const ACTOR_KINDS: [&str; 7] = ["model", "user", "api", "admin", "lead", "policy", "system"];

/// Longest accepted actor string.
const MAX_ACTOR_CHARS: usize = 128;

/// Checks an actor string and returns it unchanged: a known kind, optionally followed by
/// `:` and a printable qualifier (`user:alice`).
pub fn validate_actor(actor: &str) -> PlanResult<&str> {
    let (kind, qualifier) = match actor.split_once(':') {
        Some((k, q)) => (k, Some(q)),
        None => (actor, None),
    };
    let bad_qualifier = qualifier.is_some_and(|q| q.trim().is_empty() || q.chars().any(char::is_control));
    if !ACTOR_KINDS.contains(&kind) || bad_qualifier || actor.chars().count() > MAX_ACTOR_CHARS {
        return Err(PlanError::InvalidInput(format!(
            "unknown actor {actor:?}: use one of {} (optionally qualified, e.g. \"user:alice\", \
             at most {MAX_ACTOR_CHARS} characters)",
            ACTOR_KINDS.join(", ")
        )));
    }
    Ok(actor)
}

/// The actor an operator header names: kept when it already starts with a known kind
/// (`user:alice`, `lead:ci`), else qualified with `default_kind` (`alice` -> `admin:alice`);
/// `None` gives `default_kind` itself. Refused when the result is not a valid actor.
pub fn qualify_actor(given: Option<&str>, default_kind: &str) -> PlanResult<String> {
    let actor = match given {
        None => default_kind.to_string(),
        Some(g) if ACTOR_KINDS.contains(&g.split_once(':').map_or(g, |(k, _)| k)) => g.to_string(),
        Some(g) => format!("{default_kind}:{g}"),
    };
    validate_actor(&actor)?;
    Ok(actor)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qualifies_operator_names() {
        assert_eq!(qualify_actor(None, "admin").unwrap(), "admin");
        assert_eq!(qualify_actor(Some("alice"), "admin").unwrap(), "admin:alice");
        assert_eq!(qualify_actor(Some("lead:ci"), "admin").unwrap(), "lead:ci");
        assert!(qualify_actor(Some("a\nb"), "admin").is_err());
        assert!(qualify_actor(Some(&"x".repeat(200)), "admin").is_err());
    }

    #[test]
    fn accepts_kinds_and_qualified_kinds() {
        for a in ["model", "user", "admin:alice", "lead:team-1", "api"] {
            assert_eq!(validate_actor(a), Ok(a));
        }
    }

    #[test]
    fn refuses_unknown_blank_and_control() {
        for a in ["", "bob", "user:", "user: ", "user:a\nb", "Model"] {
            let err = validate_actor(a).unwrap_err().to_string();
            assert!(err.contains("unknown actor"), "{err}");
        }
        assert!(validate_actor(&format!("user:{}", "x".repeat(200))).is_err());
    }
}
