//! The two edge lists every task has, named once for the whole area (the index, the graph and
//! the update semantics all speak of them).

use super::ids::Id;

/// Which edge list of a task.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// `blocks`: the ids of the tasks this one blocks.
    Blocks,
    /// `blocked_by`: the ids of the tasks this one waits on.
    BlockedBy,
}

impl Side {
    /// The field name, as in AgentScope's `Task`.
    pub fn field(self) -> &'static str {
        match self {
            Side::Blocks => "blocks",
            Side::BlockedBy => "blocked_by",
        }
    }
}

/// One edge list of a task: usually zero or one id, kept inline (the `smallvec` feature, on by
/// default).
#[cfg(feature = "smallvec")]
pub type Edges = smallvec::SmallVec<[Id; 1]>;
/// One edge list of a task.
#[cfg(not(feature = "smallvec"))]
pub type Edges = Vec<Id>;
