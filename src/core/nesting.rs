//! The one nesting limit for the JSON-like values planmode accepts (task metadata, plan state,
//! todos, grants), and the paths its errors name.
//!
//! The references: serde_json refuses documents nested more than 128 levels deep; pydantic 2.14
//! parses JSON up to 200 levels (jiter's recursion limit) and serializes up to 255. planmode
//! writes a value a few levels inside a document (`{"tasks": [{"metadata": …}]}`, the agent state
//! around the plan state), so a value may nest at most [`MAX_DEPTH`] = 100 lists/dicts: whatever
//! is accepted also loads back from its JSON and its pickle, through pydantic too, with room to
//! spare for the wrapping.

use serde_json::Value;

/// How many lists/dicts deep a value may nest, the outermost one counting as 1.
pub const MAX_DEPTH: usize = 100;

/// One step of a path into a value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// A dict key.
    Key(String),
    /// A list index.
    Index(usize),
}

/// A path into a value, written `root.key[3].key`; a long path shows its first steps only, then
/// how deep it goes (a 13,000-level path must not flood an error text).
pub fn path_text(root: &str, steps: &[Step]) -> String {
    const SHOWN: usize = 6;
    let mut path = root.to_owned();
    for step in steps.iter().take(SHOWN) {
        match step {
            Step::Key(k) if k.len() <= 32 => {
                path.push('.');
                path.push_str(k);
            }
            Step::Key(_) => path.push_str(".…"),
            Step::Index(i) => path.push_str(&format!("[{i}]")),
        }
    }
    if steps.len() > SHOWN {
        path.push_str(&format!("…(level {})", steps.len() + 1));
    }
    path
}

/// The error text for a container deeper than [`MAX_DEPTH`] at `steps` below `root`.
pub fn too_deep_message(root: &str, steps: &[Step]) -> String {
    format!(
        "{}: nested more than {MAX_DEPTH} lists/dicts deep (planmode's limit for JSON values)",
        path_text(root, steps)
    )
}

/// The steps to the first container deeper than `limit` levels in `value` (itself at level 1),
/// or `None` when it is within the limit. Never recurses more than `limit + 1` levels.
pub fn too_deep(value: &Value, limit: usize) -> Option<Vec<Step>> {
    let children: Box<dyn Iterator<Item = (Step, &Value)>> = match value {
        Value::Array(items) => Box::new(items.iter().enumerate().map(|(i, v)| (Step::Index(i), v))),
        Value::Object(map) => Box::new(map.iter().map(|(k, v)| (Step::Key(k.clone()), v))),
        _ => return None,
    };
    if limit == 0 {
        return Some(Vec::new());
    }
    for (step, child) in children {
        if let Some(mut rest) = too_deep(child, limit - 1) {
            rest.insert(0, step);
            return Some(rest);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nested(levels: usize) -> Value {
        let mut v = Value::Null;
        for _ in 0..levels {
            v = serde_json::json!({ "a": v });
        }
        v
    }

    #[test]
    fn the_limit_counts_containers() {
        assert_eq!(too_deep(&nested(MAX_DEPTH), MAX_DEPTH), None);
        let steps = too_deep(&nested(MAX_DEPTH + 1), MAX_DEPTH).unwrap();
        assert_eq!(steps.len(), MAX_DEPTH);
        let message = too_deep_message("metadata", &steps);
        assert!(
            message.starts_with("metadata.a.a.a.a.a.a…(level 101): nested more than 100"),
            "{message}"
        );
        assert_eq!(too_deep(&serde_json::json!([[1], {"x": [2]}]), 3), None);
        assert_eq!(
            too_deep(&serde_json::json!([[1], {"x": [[]]}]), 3),
            Some(vec![Step::Index(1), Step::Key("x".into()), Step::Index(0)])
        );
    }
}
