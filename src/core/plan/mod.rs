//! The plan-mode manager: a per-agent state machine
//! (never_entered -> planning -> awaiting_approval -> building, and back to planning on
//! re-entry), plan revisions fingerprinted with sha256, an audit log, todo validation,
//! plan-path safety, and the JSON form stored in `agent.state.middle_context["planmode"]`.

pub mod actor;
pub mod bounds;
pub mod claim;
pub mod clock;
pub mod content;
pub mod disk;
pub mod error;
pub mod grant;
pub mod machine;
pub mod mode;
pub mod path;
pub mod progress;
pub mod render;
pub mod report;
pub mod review;
pub mod scope;
pub mod scope_ask;
pub mod scope_check;
pub mod scope_choice;
pub mod state;
pub mod step_ids;
pub mod steps;
pub mod todo;

#[cfg(test)]
mod tests;

pub use bounds::{Bounds, Trimmed};
pub use claim::{Channel, Claim};
pub use error::{PlanError, PlanResult};
pub use machine::{Answer, DecisionOutcome, EnterOutcome, ForceExit, Limits, WriteOutcome};
pub use path::Workspace;
pub use state::{AuditEntry, AuditKind, Decision, Outcome, Pending, Phase, PlanState, Revision};
pub use todo::{Todo, parse_todos};
