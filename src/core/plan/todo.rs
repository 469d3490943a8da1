//! The todo list: a whole-list replace with strict validation. While any item is open
//! (pending or in progress) exactly one item must be `in_progress`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::error::{PlanError, PlanResult};

/// Most todos one list may hold.
pub const MAX_TODOS: usize = 200;
/// Longest todo content, in characters.
pub const MAX_TODO_CHARS: usize = 2000;

/// Where a todo stands.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum TodoStatus {
    /// Not started.
    Pending,
    /// Being worked on now (exactly one while any todo is open).
    InProgress,
    /// Done.
    Completed,
}

/// How important a todo is.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Priority {
    /// Do first.
    High,
    /// Normal.
    Medium,
    /// Nice to have.
    Low,
}

/// One item of the todo list.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Todo {
    /// What to do (non-blank).
    pub content: String,
    /// Where it stands.
    pub status: TodoStatus,
    /// Optional importance.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<Priority>,
    /// The id of the plan step this todo carries out (seeded on approval; see `step_ids`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step_id: Option<String>,
}

const STATUSES: &str = "pending, in_progress, completed";
const PRIORITIES: &str = "high, medium, low";

fn invalid(msg: String) -> PlanError {
    PlanError::InvalidInput(msg)
}

/// Short quoted label of a todo for error messages: `todo 2 ("Add tests")`.
fn label(index: usize, content: &str) -> String {
    let short: String = content.chars().take(60).collect();
    let ell = if short.len() < content.len() { "..." } else { "" };
    format!("todo {} ({:?}{ell})", index + 1, short)
}

fn parse_status(v: Option<&Value>, who: &str) -> PlanResult<TodoStatus> {
    match v.and_then(Value::as_str) {
        Some("pending") => Ok(TodoStatus::Pending),
        Some("in_progress") => Ok(TodoStatus::InProgress),
        Some("completed") => Ok(TodoStatus::Completed),
        Some(other) => Err(invalid(format!(
            "invalid status {other:?} for {who}. Allowed: {STATUSES}."
        ))),
        None if v.is_none() || v == Some(&Value::Null) => {
            Err(invalid(format!("{who} has no status. Allowed: {STATUSES}.")))
        }
        None => Err(invalid(format!(
            "status of {who} must be a string. Allowed: {STATUSES}."
        ))),
    }
}

fn parse_priority(v: Option<&Value>, who: &str) -> PlanResult<Option<Priority>> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => match s.as_str() {
            "high" => Ok(Some(Priority::High)),
            "medium" => Ok(Some(Priority::Medium)),
            "low" => Ok(Some(Priority::Low)),
            other => Err(invalid(format!(
                "invalid priority {other:?} for {who}. Allowed: {PRIORITIES}."
            ))),
        },
        Some(_) => Err(invalid(format!(
            "priority of {who} must be a string. Allowed: {PRIORITIES}."
        ))),
    }
}

fn parse_one(index: usize, item: &Value) -> PlanResult<Todo> {
    let obj = item.as_object().ok_or_else(|| {
        invalid(format!(
            "todo {} must be an object {{content, status, priority?}}",
            index + 1
        ))
    })?;
    let content = match obj.get("content") {
        Some(Value::String(s)) if !s.trim().is_empty() => s.clone(),
        Some(Value::String(_)) | None | Some(Value::Null) => {
            return Err(invalid(format!(
                "todo {} has blank content: every todo must have non-blank content",
                index + 1
            )));
        }
        Some(_) => return Err(invalid(format!("content of todo {} must be a string", index + 1))),
    };
    let who = label(index, &content);
    if content.chars().count() > MAX_TODO_CHARS {
        return Err(invalid(format!(
            "{who} is longer than {MAX_TODO_CHARS} characters"
        )));
    }
    if let Some(key) = obj
        .keys()
        .find(|k| !["content", "status", "priority", "step_id"].contains(&k.as_str()))
    {
        return Err(invalid(format!(
            "{who} has unknown field {key:?}; allowed: content, status, priority, step_id"
        )));
    }
    let step_id = match obj.get("step_id") {
        None | Some(Value::Null) => None,
        Some(Value::String(id)) if super::step_ids::is_valid_id(id) => Some(id.clone()),
        Some(other) => {
            return Err(invalid(format!(
                "step_id of {who} must be a plan step id such as \"s3\", got {other}"
            )));
        }
    };
    Ok(Todo {
        status: parse_status(obj.get("status"), &who)?,
        priority: parse_priority(obj.get("priority"), &who)?,
        content,
        step_id,
    })
}

/// Parses and validates a whole todo list (JSON array of `{content, status, priority?}`).
///
/// Errors name the offending item by position and content: invalid status or priority,
/// blank content, unknown fields, duplicates, or not exactly one `in_progress` while open.
pub fn parse_todos(value: &Value) -> PlanResult<Vec<Todo>> {
    let items = value
        .as_array()
        .ok_or_else(|| invalid("todos must be a list of {content, status, priority?} objects".into()))?;
    if items.len() > MAX_TODOS {
        return Err(invalid(format!(
            "at most {MAX_TODOS} todos are allowed, got {}",
            items.len()
        )));
    }
    let todos = items
        .iter()
        .enumerate()
        .map(|(i, v)| parse_one(i, v))
        .collect::<PlanResult<Vec<_>>>()?;
    check_list(&todos)?;
    Ok(todos)
}

/// Checks list-wide rules: distinct contents, exactly one `in_progress` while any item is open.
pub fn check_list(todos: &[Todo]) -> PlanResult<()> {
    for (i, t) in todos.iter().enumerate() {
        if let Some(j) = todos[..i]
            .iter()
            .position(|o| o.content.trim() == t.content.trim())
        {
            return Err(invalid(format!(
                "{} duplicates todo {}: each todo needs distinct content",
                label(i, &t.content),
                j + 1
            )));
        }
    }
    let open = todos.iter().any(|t| t.status != TodoStatus::Completed);
    let in_progress: Vec<String> = todos
        .iter()
        .enumerate()
        .filter(|(_, t)| t.status == TodoStatus::InProgress)
        .map(|(i, _)| (i + 1).to_string())
        .collect();
    if open && in_progress.len() != 1 {
        let which = if in_progress.is_empty() {
            "none is".to_string()
        } else {
            format!("{} are (todos {})", in_progress.len(), in_progress.join(", "))
        };
        return Err(invalid(format!(
            "exactly one todo must be in_progress while any todo is open, but {which}. \
             Keep exactly one in_progress."
        )));
    }
    Ok(())
}

/// Todo items seeded from plan steps `(id, text)`: the first `in_progress`, the rest `pending`,
/// each carrying its step id.
pub fn todos_from_steps(steps: &[(String, String)]) -> Vec<Todo> {
    steps
        .iter()
        .enumerate()
        .map(|(i, (id, s))| Todo {
            content: s.clone(),
            step_id: Some(id.clone()),
            status: if i == 0 {
                TodoStatus::InProgress
            } else {
                TodoStatus::Pending
            },
            priority: None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn err(v: Value) -> String {
        parse_todos(&v).unwrap_err().to_string()
    }

    #[test]
    fn accepts_a_valid_list() {
        let todos = parse_todos(&json!([
            {"content": "a", "status": "completed"},
            {"content": "b", "status": "in_progress", "priority": "high"},
            {"content": "c", "status": "pending"}
        ]))
        .unwrap();
        assert_eq!(todos[1].priority, Some(Priority::High));
        assert!(parse_todos(&json!([])).unwrap().is_empty());
        assert!(parse_todos(&json!([{"content": "a", "status": "completed"}])).is_ok());
    }

    #[test]
    fn names_the_offending_item() {
        assert!(
            err(json!([{"content": "a", "status": "done"}]))
                .contains("invalid status \"done\" for todo 1 (\"a\")")
        );
        assert!(
            err(json!([{"content": "x", "status": "in_progress"}, {"content": " ", "status": "pending"}]))
                .contains("todo 2 has blank content")
        );
        assert!(
            err(json!([{"content": "a", "status": "in_progress", "priority": "urgent"}]))
                .contains("invalid priority \"urgent\" for todo 1")
        );
        assert!(err(json!([{"content": "a"}])).contains("todo 1 (\"a\") has no status"));
        assert!(
            err(json!([{"content": "a", "status": "in_progress", "x": 1}])).contains("unknown field \"x\"")
        );
        assert!(
            err(json!([{"content": "a", "status": "in_progress"}, {"content": "a", "status": "pending"}]))
                .contains("todo 2 (\"a\") duplicates todo 1")
        );
        assert!(err(json!({"content": "a"})).contains("must be a list"));
        assert!(err(json!([3])).contains("todo 1 must be an object"));
        for bad in [
            json!("3"),
            json!(3),
            json!("1; rm"),
            json!("a b"),
            json!("S1"),
            json!(""),
        ] {
            let e = err(json!([{"content": "a", "status": "in_progress", "step_id": bad}]));
            assert!(
                e.contains("step_id of todo 1 (\"a\") must be a plan step id"),
                "{e}"
            );
        }
        let ok = parse_todos(&json!([{"content": "a", "status": "in_progress", "step_id": "s12"}])).unwrap();
        assert_eq!(ok[0].step_id.as_deref(), Some("s12"));
    }

    #[test]
    fn exactly_one_in_progress_while_open() {
        assert!(err(json!([{"content": "a", "status": "pending"}])).contains("but none is"));
        let two = err(
            json!([{"content": "a", "status": "in_progress"}, {"content": "b", "status": "in_progress"}]),
        );
        assert!(two.contains("2 are (todos 1, 2)"), "{two}");
    }

    #[test]
    fn seeds_from_steps() {
        let t = todos_from_steps(&[("s1".into(), "one".into()), ("s2".into(), "two".into())]);
        assert_eq!(t[0].status, TodoStatus::InProgress);
        assert_eq!(t[1].step_id.as_deref(), Some("s2"));
        assert_eq!(t[1].status, TodoStatus::Pending);
        assert!(check_list(&t).is_ok());
    }
}
