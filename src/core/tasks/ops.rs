//! AgentScope's `TaskUpdate` semantics on a [`Graph`], with the bad edges AgentScope silently
//! accepts (unknown ids, self-loops, cycles) refused atomically.
//!
//! The graph part of an update (edges, completion, deletion) is applied here and returned as a
//! log of list edits, so an owner that mirrors the lists elsewhere (the Python `Task` objects)
//! can replay exactly the same edits. Scalar fields (subject, description, owner, status,
//! metadata) belong to the owner: [`UpdateOutcome::fields`] says which ones to set.

use std::borrow::Cow;
use std::fmt;

use super::edges::Side;
use super::graph::Graph;
use super::hashing::HashSet;
use super::ids::Id;
use super::model::Status;
use super::order::Slot;

/// One edit to one edge list, in the order it was made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Change {
    /// `list.append(id)`.
    Append { slot: Slot, side: Side, id: Id },
    /// `list.remove(id)` (first occurrence).
    Remove { slot: Slot, side: Side, id: Id },
}

/// Why an operation was refused; nothing was changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TaskError {
    /// No task has this id.
    NotFound { id: String },
    /// An edge names ids that no task has.
    UnknownIds {
        task_id: String,
        field: &'static str,
        ids: Vec<String>,
    },
    /// An edge would make a task block itself.
    SelfLoop { task_id: String, field: &'static str },
    /// An edge would close a cycle: `path[0]` already waits on the last element through each step.
    Cycle {
        blocker: String,
        blocked: String,
        path: Vec<String>,
    },
    /// The ids are held by more than one task, so the request is ambiguous.
    Ambiguous { ids: Vec<String> },
}

impl fmt::Display for TaskError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TaskError::NotFound { id } => write!(f, "The task (id={id}) does not exist."),
            TaskError::UnknownIds { task_id, field, ids } => write!(
                f,
                "{field} names task id(s) that do not exist: {}. The task (id={}) was not changed; \
                 create those tasks first or check the ids with TaskList.",
                short_list(ids),
                short_id(task_id)
            ),
            TaskError::SelfLoop { task_id, field } => write!(
                f,
                "the task (id={}) cannot block itself ({field} names its own id). \
                 The task was not changed.",
                short_id(task_id)
            ),
            TaskError::Cycle {
                blocker,
                blocked,
                path,
            } => write!(
                f,
                "making task {blocker} block task {blocked} would close a dependency cycle: task {blocker} \
                 already waits on task {blocked} ({}). Nothing was changed.",
                wait_chain(path),
                blocker = short_id(blocker),
                blocked = short_id(blocked),
            ),
            TaskError::Ambiguous { ids } => write!(
                f,
                "more than one task has the id {}; remove or rename the duplicates first. Nothing was changed.",
                short_list(ids)
            ),
        }
    }
}

impl std::error::Error for TaskError {}

/// `a, b, c`, or the first ten and how many more (an error text must stay readable).
fn short_list(ids: &[String]) -> String {
    const SHOWN: usize = 10;
    let head: Vec<Cow<'_, str>> = ids.iter().take(SHOWN).map(|id| short_id(id)).collect();
    let head = head.join(", ");
    if ids.len() > SHOWN {
        format!("{head} and {} more", ids.len() - SHOWN)
    } else {
        head
    }
}

/// An id as an error text shows it: at most 64 bytes (cut at a character boundary, then `…`).
pub fn short_id(id: &str) -> Cow<'_, str> {
    const MAX: usize = 64;
    if id.len() <= MAX {
        return Cow::Borrowed(id);
    }
    let mut end = MAX;
    while !id.is_char_boundary(end) {
        end -= 1;
    }
    Cow::Owned(format!("{}…", &id[..end]))
}

/// `a is blocked by b, b is blocked by c, …` for a chain of waits, capped so that a long chain
/// cannot flood the model: the first and last four steps and how many lie between.
pub fn wait_chain(path: &[String]) -> String {
    const END: usize = 4;
    let steps = path.len().saturating_sub(1);
    let step = |i: usize| format!("{} is blocked by {}", short_id(&path[i]), short_id(&path[i + 1]));
    if steps <= 2 * END + 1 {
        return (0..steps).map(step).collect::<Vec<_>>().join(", ");
    }
    let head: Vec<String> = (0..END).map(step).collect();
    let tail: Vec<String> = (steps - END..steps).map(step).collect();
    format!(
        "{}, … {} more steps …, {}; {} tasks in all",
        head.join(", "),
        steps - 2 * END,
        tail.join(", "),
        path.len()
    )
}

/// The arguments of one `TaskUpdate` call (AgentScope's names and truthiness rules).
#[derive(Clone, Debug, Default)]
pub struct UpdateRequest<'a> {
    /// New subject; ignored when empty (AgentScope tests `if subject:`).
    pub subject: Option<&'a str>,
    /// New description (any string, even empty).
    pub description: Option<&'a str>,
    /// Ids this task blocks; ignored when empty.
    pub add_blocks: Option<&'a [String]>,
    /// Ids this task waits on.
    pub add_blocked_by: Option<&'a [String]>,
    /// New status, or `Deleted`.
    pub status: Option<Status>,
    /// New owner (any string, even empty).
    pub owner: Option<&'a str>,
    /// Whether a non-empty metadata patch was given.
    pub metadata: bool,
}

/// What an accepted update did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UpdateOutcome {
    /// The task's slot (no longer alive if `deleted`).
    pub slot: Slot,
    /// Updated field names in AgentScope's order; the owner sets `subject`, `description`,
    /// `status`, `owner` and `metadata` when listed.
    pub fields: Vec<&'static str>,
    /// Edge-list edits made, in order.
    pub changes: Vec<Change>,
    /// Whether the task was deleted.
    pub deleted: bool,
}

fn ambiguous<P>(g: &Graph<P>, ids: impl IntoIterator<Item = impl AsRef<str>>) -> Result<(), TaskError> {
    let mut dups: Vec<String> = ids
        .into_iter()
        .filter(|id| g.is_duplicated(id.as_ref()))
        .map(|id| id.as_ref().to_owned())
        .collect();
    dups.sort();
    dups.dedup();
    if dups.is_empty() {
        Ok(())
    } else {
        Err(TaskError::Ambiguous { ids: dups })
    }
}

/// Finds the task an update names: AgentScope takes the last task with that id.
pub fn locate<P>(g: &Graph<P>, task_id: &str) -> Result<Slot, TaskError> {
    let slot = g.last_slot(task_id).ok_or_else(|| TaskError::NotFound {
        id: task_id.to_owned(),
    })?;
    ambiguous(g, [task_id])?;
    Ok(slot)
}

fn check_names<P>(g: &Graph<P>, task_id: &str, field: &'static str, ids: &[String]) -> Result<(), TaskError> {
    let mut unknown: Vec<String> = Vec::new();
    let mut seen = HashSet::default();
    for id in ids {
        if g.first_slot(id).is_none() && seen.insert(id) {
            unknown.push(id.clone());
        }
    }
    if !unknown.is_empty() {
        return Err(TaskError::UnknownIds {
            task_id: task_id.to_owned(),
            field,
            ids: unknown,
        });
    }
    if ids.iter().any(|id| id == task_id) {
        return Err(TaskError::SelfLoop {
            task_id: task_id.to_owned(),
            field,
        });
    }
    ambiguous(g, ids)
}

/// AgentScope's `_update_block_relation` for an id that `side` of the task in `slot` does not
/// hold yet: links both directions, refusing an edge that closes a cycle. Only the other task's
/// list is searched, so a long request stays linear in its length.
fn relate<P>(
    g: &mut Graph<P>,
    slot: Slot,
    side: Side,
    other: Slot,
    log: &mut Vec<Change>,
) -> Result<(), TaskError> {
    let (blocker, blocked) = match side {
        Side::Blocks => (slot, other),
        Side::BlockedBy => (other, slot),
    };
    let blocker_id = g.node(blocker).id.clone();
    let blocked_id = g.node(blocked).id.clone();
    let (new_wait, new_block) = match side {
        Side::Blocks => (!g.node(other).blocked_by.contains(&blocker_id), true),
        Side::BlockedBy => (true, !g.node(other).blocks.contains(&blocked_id)),
    };
    if new_wait && let Err(path) = g.order_wait(blocker, blocked) {
        let path = path.into_iter().map(|s| g.node(s).id.to_string()).collect();
        return Err(TaskError::Cycle {
            blocker: blocker_id.into(),
            blocked: blocked_id.into(),
            path,
        });
    }
    if new_block {
        g.append_edge(blocker, Side::Blocks, &blocked_id);
        log.push(Change::Append {
            slot: blocker,
            side: Side::Blocks,
            id: blocked_id,
        });
    }
    if new_wait {
        g.append_edge(blocked, Side::BlockedBy, &blocker_id);
        log.push(Change::Append {
            slot: blocked,
            side: Side::BlockedBy,
            id: blocker_id,
        });
    }
    Ok(())
}

fn undo<P>(g: &mut Graph<P>, log: &[Change]) {
    for change in log.iter().rev() {
        if let Change::Append { slot, side, .. } = change {
            g.pop_edge(*slot, *side);
        }
    }
}

/// The `add_blocks` / `add_blocked_by` part of an update; returns which of the two added edges.
fn link<P>(
    g: &mut Graph<P>,
    slot: Slot,
    req: &UpdateRequest<'_>,
    log: &mut Vec<Change>,
) -> Result<(bool, bool), TaskError> {
    let task_id = g.node(slot).id.clone();
    let add_blocks = req.add_blocks.filter(|ids| !ids.is_empty());
    if let Some(ids) = add_blocks {
        check_names(g, &task_id, "add_blocks", ids)?;
    }
    if let Some(ids) = req.add_blocked_by {
        check_names(g, &task_id, "add_blocked_by", ids)?;
    }
    let mut added = (false, false);
    let result = (|| {
        for (side, ids) in [(Side::Blocks, add_blocks), (Side::BlockedBy, req.add_blocked_by)] {
            let Some(ids) = ids else { continue };
            // The ids this side already holds (and those added): a set, so 100k ids stay linear.
            let mut held: HashSet<Id> = g.node(slot).edges(side).iter().cloned().collect();
            for id in ids {
                if held.contains(id.as_str()) {
                    continue;
                }
                match side {
                    Side::Blocks => added.0 = true,
                    Side::BlockedBy => added.1 = true,
                }
                let other = g.first_slot(id).expect("checked");
                relate(g, slot, side, other, log)?;
                held.insert(Id::from(id.as_str()));
            }
        }
        Ok(())
    })();
    match result {
        Ok(()) => Ok(added),
        Err(e) => {
            undo(g, log);
            log.clear();
            Err(e)
        }
    }
}

/// Removes `id` from one edge list of every task that names it (first occurrence per task).
fn detach<P>(g: &mut Graph<P>, id: &str, side: Side, log: &mut Vec<Change>) {
    for slot in g.detach(side, id) {
        log.push(Change::Remove {
            slot,
            side,
            id: id.into(),
        });
    }
}

/// Applies the graph part of an update to the task in `slot` (found with [`locate`]); refuses
/// bad edges with nothing changed.
pub fn apply_update<P>(
    g: &mut Graph<P>,
    slot: Slot,
    req: &UpdateRequest<'_>,
) -> Result<UpdateOutcome, TaskError> {
    let mut changes = Vec::new();
    let (added_blocks, added_blocked_by) = link(g, slot, req, &mut changes)?;
    let mut fields = Vec::new();
    if req.subject.is_some_and(|s| !s.is_empty()) {
        fields.push("subject");
    }
    if req.description.is_some() {
        fields.push("description");
    }
    if added_blocks {
        fields.push("add_blocks");
    }
    if added_blocked_by {
        fields.push("add_blocked_by");
    }
    let id = g.node(slot).id.clone();
    match req.status {
        Some(Status::Deleted) => {
            g.remove(slot);
            detach(g, &id, Side::Blocks, &mut changes);
            detach(g, &id, Side::BlockedBy, &mut changes);
            return Ok(UpdateOutcome {
                slot,
                fields,
                changes,
                deleted: true,
            });
        }
        Some(status) => {
            fields.push("status");
            if status == Status::Completed {
                detach(g, &id, Side::BlockedBy, &mut changes);
            }
        }
        None => {}
    }
    if req.owner.is_some() {
        fields.push("owner");
    }
    if req.metadata {
        fields.push("metadata");
    }
    Ok(UpdateOutcome {
        slot,
        fields,
        changes,
        deleted: false,
    })
}

/// AgentScope's `TaskCreate` result text.
pub fn created_message(id: &str, subject: &str) -> String {
    format!("Task (id={id}) created successfully: {subject}")
}

/// AgentScope's `TaskUpdate` result text for a deleted task.
pub fn deleted_message(id: &str) -> String {
    format!("Task (id={id}) has been deleted.")
}

/// AgentScope's `TaskUpdate` result text; `completed` is the task's state after the update.
pub fn update_message(id: &str, fields: &[&str], completed: bool) -> String {
    let mut text = if fields.is_empty() {
        format!(
            "No updates were made to the task (id={id}). Make sure you provided at least one field to \
             update and the values are correct."
        )
    } else {
        format!("Update task (id={id}) {}.", fields.join(", "))
    };
    if completed {
        text.push_str(
            "\n\nTask completed. Call TaskList now to find your next available task or see if your work \
             unblocked others.",
        );
    }
    text
}
