//! The native task graph: AgentScope's task semantics with all task data held in Rust.

use serde_json::{Map, Value};

use super::canonical;
use super::edges::Edges;
use super::graph::{Graph, Node, Resolver};
use super::ids::Id;
use super::json_text::write_str;
use super::model::{ContextRecord, TaskData, TaskRecord, TaskState, now_iso};
use super::ops::{self, TaskError, UpdateRequest};
use crate::core::nesting::{MAX_DEPTH, Step, too_deep, too_deep_message};

/// Why saved data could not be loaded; the target graph was left as it was.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadError(pub String);

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for LoadError {}

/// A task graph holding AgentScope `Task` data, with AgentScope's create/update semantics.
#[derive(Clone, Debug, Default)]
pub struct TaskGraph {
    pub(super) graph: Graph<TaskData>,
}

/// What [`TaskGraph::update`] did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UpdateReport {
    /// Updated field names in AgentScope's order (`status` for a deletion too).
    pub fields: Vec<&'static str>,
    /// Whether the task was deleted.
    pub deleted: bool,
    /// Whether the task is completed after the update.
    pub completed: bool,
}

impl UpdateReport {
    /// AgentScope's `TaskUpdate` result text for the same call.
    pub fn message(&self, task_id: &str) -> String {
        if self.deleted {
            ops::deleted_message(task_id)
        } else {
            ops::update_message(task_id, &self.fields, self.completed)
        }
    }
}

impl TaskGraph {
    /// An empty graph; `resolver` decides what `int(id)` makes of non-ASCII ids.
    pub fn new(resolver: Resolver) -> Self {
        Self {
            graph: Graph::new(resolver),
        }
    }

    /// Number of tasks.
    pub fn len(&self) -> usize {
        self.graph.len()
    }

    /// Whether there are no tasks.
    pub fn is_empty(&self) -> bool {
        self.graph.is_empty()
    }

    /// The underlying index (read-only).
    pub fn graph(&self) -> &Graph<TaskData> {
        &self.graph
    }

    /// Tasks in list order.
    pub fn tasks(&self) -> impl Iterator<Item = &Node<TaskData>> + '_ {
        self.graph.nodes()
    }

    /// The task with this id.
    pub fn get(&self, id: &str) -> Option<&Node<TaskData>> {
        self.graph.first_slot(id).map(|s| self.graph.node(s))
    }

    /// Creates a pending task with the next numeric id (largest numeric id + 1) and returns the id.
    pub fn create(
        &mut self,
        subject: String,
        description: String,
        metadata: Map<String, Value>,
        created_at: Option<String>,
    ) -> String {
        let id = self.graph.next_id();
        let payload = TaskData {
            subject,
            description,
            metadata,
            created_at: created_at.unwrap_or_else(now_iso),
            state: TaskState::Pending,
            owner: None,
        };
        self.graph.insert(Node {
            id: id.as_str().into(),
            blocks: Edges::new(),
            blocked_by: Edges::new(),
            payload,
        });
        id
    }

    /// AgentScope's `TaskUpdate`, refusing unknown ids, self-loops and cycles with nothing changed.
    /// `metadata` is merged key by key; a null value deletes the key.
    pub fn update(
        &mut self,
        task_id: &str,
        req: &UpdateRequest<'_>,
        metadata: Option<&Map<String, Value>>,
    ) -> Result<UpdateReport, TaskError> {
        let metadata = metadata.filter(|m| !m.is_empty());
        let req = UpdateRequest {
            metadata: metadata.is_some(),
            ..req.clone()
        };
        let slot = ops::locate(&self.graph, task_id)?;
        let outcome = ops::apply_update(&mut self.graph, slot, &req)?;
        if outcome.deleted {
            self.graph.maybe_compact();
            let mut fields = outcome.fields;
            fields.push("status");
            return Ok(UpdateReport {
                fields,
                deleted: true,
                completed: false,
            });
        }
        let task = self.graph.payload_mut(slot);
        for field in &outcome.fields {
            match *field {
                "subject" => task.subject = req.subject.unwrap_or_default().to_owned(),
                "description" => task.description = req.description.unwrap_or_default().to_owned(),
                "owner" => task.owner = req.owner.map(str::to_owned),
                "status" => task.state = req.status.and_then(|s| s.state()).unwrap_or(task.state),
                "metadata" => merge_metadata(&mut task.metadata, metadata.into_iter().flatten()),
                _ => {}
            }
        }
        let completed = task.state == TaskState::Completed;
        Ok(UpdateReport {
            fields: outcome.fields,
            deleted: false,
            completed,
        })
    }

    /// Builds a graph from records (e.g. a `TaskContext.model_dump()`); duplicate ids are refused.
    pub fn from_records(records: Vec<TaskRecord>, resolver: Resolver) -> Result<Self, LoadError> {
        Self::checked(Graph::from_nodes(records.into_iter().map(node_of), resolver))
    }

    /// Accepts a freshly loaded index unless it holds duplicate ids or metadata nested deeper
    /// than [`MAX_DEPTH`].
    fn checked(graph: Graph<TaskData>) -> Result<Self, LoadError> {
        for (i, node) in graph.nodes().enumerate() {
            let metadata = &node.payload.metadata;
            if metadata.is_empty() {
                continue;
            }
            let found = metadata.iter().find_map(|(k, v)| {
                too_deep(v, MAX_DEPTH - 1).map(|mut steps| {
                    steps.insert(0, Step::Key(k.clone()));
                    steps
                })
            });
            if let Some(steps) = found {
                return Err(LoadError(too_deep_message(
                    &format!("tasks[{i}].metadata"),
                    &steps,
                )));
            }
        }
        if let Some(id) = graph.duplicate_ids().first() {
            let at: Vec<String> = graph
                .all_slots(id)
                .map(|s| format!("tasks[{}]", graph.position(s)))
                .collect();
            let who = if at.len() == 2 { "both" } else { "all" };
            let (last, rest) = at.split_last().map_or(("", &[][..]), |(l, r)| (l.as_str(), r));
            return Err(LoadError(format!(
                "duplicate task id {id:?}: {} and {last} {who} have it",
                rest.join(", ")
            )));
        }
        Ok(Self { graph })
    }

    /// Parses the JSON of a `TaskContext` (`{"tasks": [...]}`), naming the offending path on error.
    pub fn from_json(json: &str, resolver: Resolver) -> Result<Self, LoadError> {
        // Fast path: the layout `to_json` and pydantic write, read straight into the index.
        if let Some(graph) = canonical::read(json, resolver) {
            return Self::checked(graph);
        }
        // Anything else (even if valid) goes the general way, which also names bad paths.
        match serde_json::from_str::<ContextRecord>(json) {
            Ok(ctx) => Self::from_records(ctx.tasks, resolver),
            // Parse again, slowly, only to name the offending path.
            Err(_) => {
                let de = &mut serde_json::Deserializer::from_str(json);
                let err = serde_path_to_error::deserialize::<_, ContextRecord>(de).err();
                Err(err.map_or_else(|| LoadError("invalid JSON".into()), |e| load_error(&e)))
            }
        }
    }

    /// The compact JSON of the `TaskContext` shape (what `TaskContext.model_dump_json()` gives).
    pub fn to_json(&self) -> String {
        // Sized up front (fixed keys plus the strings' lengths) so the buffer never regrows.
        let text: usize = self
            .tasks()
            .map(|n| {
                let t = &n.payload;
                let edges = |ids: &[Id]| ids.iter().map(|id| id.len() + 3).sum::<usize>();
                t.subject.len()
                    + t.description.len()
                    + t.created_at.len()
                    + n.id.len()
                    + t.owner.as_ref().map_or(0, String::len)
                    + edges(&n.blocks)
                    + edges(&n.blocked_by)
                    + if t.metadata.is_empty() { 0 } else { 64 }
            })
            .sum();
        let mut out = Vec::with_capacity(text + self.len() * 160 + 16);
        out.extend_from_slice(b"{\"tasks\":[");
        for (i, node) in self.tasks().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            write_task(&mut out, node);
        }
        out.extend_from_slice(b"]}");
        // Only valid UTF-8 was written.
        String::from_utf8(out).unwrap_or_default()
    }
}

/// Writes one task as `Task.model_dump_json()` does (same keys, same order); the fixed parts
/// are copied in one piece each, the values are written by serde_json.
fn write_task(out: &mut Vec<u8>, node: &Node<TaskData>) {
    let t = &node.payload;
    out.extend_from_slice(b"{\"subject\":");
    write_str(out, &t.subject);
    out.extend_from_slice(b",\"description\":");
    write_str(out, &t.description);
    out.extend_from_slice(b",\"metadata\":");
    if t.metadata.is_empty() {
        out.extend_from_slice(b"{}");
    } else {
        // A JSON map never fails to serialize into a `Vec`.
        let _ = serde_json::to_writer(&mut *out, &t.metadata);
    }
    out.extend_from_slice(b",\"created_at\":");
    write_str(out, &t.created_at);
    out.extend_from_slice(b",\"state\":\"");
    out.extend_from_slice(t.state.as_str().as_bytes());
    out.extend_from_slice(b"\",\"id\":");
    write_str(out, &node.id);
    out.extend_from_slice(b",\"owner\":");
    match &t.owner {
        Some(owner) => write_str(out, owner),
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(b",\"blocks\":");
    write_ids(out, &node.blocks);
    out.extend_from_slice(b",\"blocked_by\":");
    write_ids(out, &node.blocked_by);
    out.push(b'}');
}

fn write_ids(out: &mut Vec<u8>, ids: &[Id]) {
    out.push(b'[');
    for (i, id) in ids.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_str(out, id);
    }
    out.push(b']');
}

fn load_error<E: std::fmt::Display>(e: &serde_path_to_error::Error<E>) -> LoadError {
    let path = e.path().to_string();
    LoadError(if path == "." {
        e.inner().to_string()
    } else {
        format!("{path}: {}", e.inner())
    })
}

fn node_of(r: TaskRecord) -> Node<TaskData> {
    Node {
        id: r.id,
        blocks: Edges::from(r.blocks),
        blocked_by: Edges::from(r.blocked_by),
        payload: TaskData {
            subject: r.subject,
            description: r.description,
            metadata: r.metadata,
            created_at: r.created_at,
            state: r.state,
            owner: r.owner,
        },
    }
}

/// Merges a metadata patch into `metadata` the AgentScope way: null deletes the key.
pub fn merge_metadata<'a>(
    metadata: &mut Map<String, Value>,
    patch: impl IntoIterator<Item = (&'a String, &'a Value)>,
) {
    for (k, v) in patch {
        if v.is_null() {
            metadata.shift_remove(k);
        } else {
            metadata.insert(k.clone(), v.clone());
        }
    }
}
