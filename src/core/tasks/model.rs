//! Task fields exactly as AgentScope's `agentscope.state.Task` has them, and their serde form
//! (the shape of `TaskContext.model_dump()`).

use std::hash::{BuildHasher, Hasher};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::ids::Id;

/// A task's state (AgentScope's `Literal["pending", "in_progress", "completed"]`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskState {
    /// Not started.
    #[default]
    Pending,
    /// Being worked on.
    InProgress,
    /// Done; it no longer blocks anything.
    Completed,
}

impl TaskState {
    /// The state's name as AgentScope spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            TaskState::Pending => "pending",
            TaskState::InProgress => "in_progress",
            TaskState::Completed => "completed",
        }
    }
}

/// The `status` argument of `TaskUpdate`: a state, or `deleted`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// `pending`.
    Pending,
    /// `in_progress`.
    InProgress,
    /// `completed`: also drops the task from its dependents' `blocked_by`.
    Completed,
    /// `deleted`: removes the task and every edge that names it.
    Deleted,
}

impl Status {
    /// Parses AgentScope's status names.
    pub fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "pending" => Status::Pending,
            "in_progress" => Status::InProgress,
            "completed" => Status::Completed,
            "deleted" => Status::Deleted,
            _ => return None,
        })
    }

    /// The state this status sets (`None` for `deleted`).
    pub fn state(self) -> Option<TaskState> {
        match self {
            Status::Pending => Some(TaskState::Pending),
            Status::InProgress => Some(TaskState::InProgress),
            Status::Completed => Some(TaskState::Completed),
            Status::Deleted => None,
        }
    }
}

/// The fields of a task other than its id and edges (those live in the graph node).
#[derive(Clone, Debug, PartialEq)]
pub struct TaskData {
    /// A brief title.
    pub subject: String,
    /// What needs to be done.
    pub description: String,
    /// Arbitrary JSON metadata.
    pub metadata: Map<String, Value>,
    /// ISO-8601 creation time.
    pub created_at: String,
    /// The task's state.
    pub state: TaskState,
    /// Who owns the task.
    pub owner: Option<String>,
}

/// One task in the serialized shape of AgentScope's `Task.model_dump()` (same keys, same order).
/// Missing optional fields get AgentScope's defaults.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TaskRecord {
    /// A brief title.
    pub subject: String,
    /// What needs to be done.
    pub description: String,
    /// Arbitrary JSON metadata.
    pub metadata: Map<String, Value>,
    /// ISO-8601 creation time (default: now).
    #[serde(default = "now_iso")]
    pub created_at: String,
    /// The task's state (default: pending).
    #[serde(default)]
    pub state: TaskState,
    /// The task id (default: a random hex id, like AgentScope's).
    #[serde(default = "random_id")]
    pub id: Id,
    /// Who owns the task.
    #[serde(default)]
    pub owner: Option<String>,
    /// Ids of the tasks this task blocks.
    #[serde(default)]
    pub blocks: Vec<Id>,
    /// Ids of the tasks this task waits on.
    #[serde(default)]
    pub blocked_by: Vec<Id>,
}

/// The shape of AgentScope's `TaskContext.model_dump()`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ContextRecord {
    /// The tasks, in list order.
    #[serde(default)]
    pub tasks: Vec<TaskRecord>,
}

/// The current time as ISO-8601 in UTC with microseconds, e.g. `2026-11-30T07:31:48.123456+00:00`.
pub fn now_iso() -> String {
    let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = now.as_secs();
    let (year, month, day) = civil_from_days((secs / 86_400) as i64);
    let rem = secs % 86_400;
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:06}+00:00",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        now.subsec_micros()
    )
}

/// Days since 1970-01-01 to (year, month, day) in the proleptic Gregorian calendar.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(month <= 2), month, day)
}

/// A random 32-hex-digit id (the shape of AgentScope's default `uuid4().hex`).
pub fn random_id() -> Id {
    let state = std::collections::hash_map::RandomState::new();
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
        .as_nanos();
    let half = |salt: u8| {
        let mut h = state.build_hasher();
        h.write_u128(nanos);
        h.write_u8(salt);
        h.finish()
    };
    let bits = (u128::from(half(1)) << 64) | u128::from(half(2));
    // Version 4, variant 1 bits, as uuid4 has them.
    let bits = (bits & !(0xf << 76) & !(0x3 << 62)) | (0x4 << 76) | (0x2 << 62);
    Id::from(format!("{bits:032x}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(19_782), (2024, 2, 29));
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
    }

    #[test]
    fn random_ids_look_like_uuid4_hex() {
        let a = random_id();
        assert_eq!(a.len(), 32);
        assert_eq!(&a[12..13], "4");
        assert_ne!(a, random_id());
        assert!(now_iso().ends_with("+00:00"));
    }

    #[test]
    fn record_defaults_match_agentscope() {
        let r: TaskRecord =
            serde_json::from_str(r#"{"subject":"s","description":"d","metadata":{}}"#).unwrap();
        assert_eq!(r.state, TaskState::Pending);
        assert_eq!(
            (r.owner.clone(), r.blocks.len(), r.blocked_by.len()),
            (None, 0, 0)
        );
        let json = serde_json::to_string(&TaskRecord {
            id: "1".into(),
            created_at: "t".into(),
            ..r
        })
        .unwrap();
        assert_eq!(
            json,
            r#"{"subject":"s","description":"d","metadata":{},"created_at":"t","state":"pending","id":"1","owner":null,"blocks":[],"blocked_by":[]}"#
        );
    }
}
