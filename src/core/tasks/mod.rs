//! The task graph: AgentScope's task semantics (create, get, list, update with dependency edges)
//! over an index that makes every per-task operation independent of how many tasks exist.
//!
//! - [`graph`]: the structural index (order, id lookup, both edge directions, cycle search);
//! - [`ops`]: AgentScope's `TaskUpdate` semantics, refusing bad edges atomically;
//! - [`native`]: [`TaskGraph`], which also owns the task fields; [`queries`] and [`render`] add
//!   what AgentScope lacks (ready tasks, topological order, validate/repair, Mermaid/DOT).

mod canonical;
pub mod edges;
pub mod graph;
mod hashing;
mod id_index;
pub mod ids;
mod json_text;
pub mod model;
pub mod native;
pub mod ops;
pub mod order;
pub mod queries;
pub mod render;

#[cfg(test)]
mod json_tests;
#[cfg(test)]
mod tests;

pub use edges::{Edges, Side};
pub use graph::{Graph, Node};
pub use ids::Id;
pub use model::{ContextRecord, Status, TaskData, TaskRecord, TaskState};
pub use native::{LoadError, TaskGraph, UpdateReport};
pub use ops::{Change, TaskError, UpdateOutcome, UpdateRequest};
pub use queries::{Problem, ProblemKind};
