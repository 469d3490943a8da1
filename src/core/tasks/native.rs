//! The native task graph: AgentScope's task semantics with all task data held in Rust.

use serde::Serialize;
use serde::de::{DeserializeSeed, Deserializer, Error as _, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use super::graph::{Graph, Node, Resolver};
use super::model::{ContextRecord, TaskData, TaskRecord, TaskState, now_iso};
use super::ops::{self, TaskError, UpdateRequest};

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
            id: id.clone(),
            blocks: Vec::new(),
            blocked_by: Vec::new(),
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

    /// Accepts a freshly loaded index unless it holds duplicate ids.
    fn checked(graph: Graph<TaskData>) -> Result<Self, LoadError> {
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
        // Fast path: tasks go straight into a pre-sized index (no list of records in between).
        let mut de = serde_json::Deserializer::from_str(json);
        let seed = ContextSeed {
            resolver,
            capacity: json.len() / JSON_BYTES_PER_TASK,
        };
        if let Ok(graph) = de.deserialize_map(seed).and_then(|g| de.end().map(|()| g)) {
            return Self::checked(graph);
        }
        // Anything unusual (even if valid) goes the general way, which also names bad paths.
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
                let edges = |ids: &[String]| ids.iter().map(|id| id.len() + 3).sum::<usize>();
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
    write_value(out, &t.subject);
    out.extend_from_slice(b",\"description\":");
    write_value(out, &t.description);
    out.extend_from_slice(b",\"metadata\":");
    write_value(out, &t.metadata);
    out.extend_from_slice(b",\"created_at\":");
    write_value(out, &t.created_at);
    out.extend_from_slice(b",\"state\":\"");
    out.extend_from_slice(t.state.as_str().as_bytes());
    out.extend_from_slice(b"\",\"id\":");
    write_value(out, &node.id);
    out.extend_from_slice(b",\"owner\":");
    write_value(out, &t.owner);
    out.extend_from_slice(b",\"blocks\":");
    write_value(out, &node.blocks);
    out.extend_from_slice(b",\"blocked_by\":");
    write_value(out, &node.blocked_by);
    out.push(b'}');
}

/// Appends the compact JSON of a value; strings, string lists and JSON maps never fail to
/// serialize into a `Vec`, so there is no error to report.
fn write_value<T: Serialize + ?Sized>(out: &mut Vec<u8>, value: &T) {
    let _ = serde_json::to_writer(out, value);
}

fn load_error<E: std::fmt::Display>(e: &serde_path_to_error::Error<E>) -> LoadError {
    let path = e.path().to_string();
    LoadError(if path == "." {
        e.inner().to_string()
    } else {
        format!("{path}: {}", e.inner())
    })
}

/// A task's JSON is rarely shorter than this (an empty one with a short id and date takes about
/// 150 bytes), so `len / JSON_BYTES_PER_TASK` tasks are reserved up front: room for every task in
/// the usual case, and at most a small multiple of the input's size otherwise.
const JSON_BYTES_PER_TASK: usize = 160;

fn node_of(r: TaskRecord) -> Node<TaskData> {
    Node {
        id: r.id,
        blocks: r.blocks,
        blocked_by: r.blocked_by,
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

/// Reads `{"tasks": [...]}` (other keys ignored, as pydantic does) into an index: visited as a
/// map at the top, then used as the seed of the `tasks` list.
struct ContextSeed {
    resolver: Resolver,
    capacity: usize,
}

impl<'de> DeserializeSeed<'de> for ContextSeed {
    type Value = Graph<TaskData>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for ContextSeed {
    type Value = Graph<TaskData>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a TaskContext")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let (resolver, capacity) = (self.resolver, self.capacity);
        let mut graph = None;
        while let Some(key) = map.next_key::<&'de str>()? {
            if key != "tasks" {
                map.next_value::<IgnoredAny>()?;
            } else if graph.is_none() {
                graph = Some(map.next_value_seed(ContextSeed { resolver, capacity })?);
            } else {
                return Err(A::Error::duplicate_field("tasks"));
            }
        }
        Ok(graph.unwrap_or_else(|| Graph::new(resolver)))
    }

    /// The `tasks` list: each record becomes a node as soon as it is read.
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut graph = Graph::new(self.resolver);
        graph.reserve(self.capacity);
        let mut failed = None;
        graph.extend(std::iter::from_fn(|| match seq.next_element::<TaskRecord>() {
            Ok(record) => record.map(node_of),
            Err(e) => {
                failed = Some(e);
                None
            }
        }));
        failed.map_or(Ok(graph), Err)
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
