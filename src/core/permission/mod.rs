//! The permission engine: AgentScope 2.0.11's evaluation order per mode, with rule matching for the
//! common tools done natively.
//!
//! The engine is sans-IO: [`engine::Evaluation`] walks the steps of one check (deny rules, ask
//! rules, read-only fast path, the tool's own check, allow rules, the mode's fallback) and asks
//! its caller whenever it needs the tool (a rule only the tool's own `match_rule` can decide, the
//! read-only verdict, the tool's `check_permissions`). Rules are compiled once ([`rules`]) with the
//! exact semantics of AgentScope's Bash ([`bash`]) and file tools ([`glob`]); anything a native
//! matcher cannot decide with certainty is handed back to the tool.

pub mod bash;
pub mod engine;
pub mod glob;
pub mod pystr;
pub mod rules;
pub mod types;

pub use engine::{AdvanceError, Evaluation, Outcome, Reply, RuleSource, Step, ToolVerdict};
pub use rules::{CompiledRule, RuleContent, Subject};
pub use types::{Mode, RuleList};
