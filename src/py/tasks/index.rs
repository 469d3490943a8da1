//! `TaskStateIndex`: the Rust index behind `planmode.agentscope`'s Task tools.
//!
//! The truth is the agent's `tasks_context.tasks` list of AgentScope `Task` objects; the index
//! maps ids to those objects and keeps both edge directions. Before each call it checks, in O(1)
//! amortised:
//!
//! - that it indexes the same list object, of the same length, whose last item is the object
//!   it expects (appends are then indexed incrementally; anything else rebuilds the index);
//! - for every task the call touches (the named task, the tasks named in `add_blocks` /
//!   `add_blocked_by`, and, when completing or deleting, the tasks whose edge lists name it),
//!   that the object at the expected position is still that object with that id, and it re-reads
//!   that task's `blocks` / `blocked_by`;
//! - an id it does not know triggers a rebuild before it is reported as unknown.
//!
//! A call that may add an edge also checks every task's identity, id and `blocked_by` (one
//! pass, [`Indexed::verify_waits`]): a cycle can close through any task, edited directly or
//! not, and no O(1) check can see an edit made in place to a Python list (nor a task renamed
//! or replaced so that it shares the id of the blocker). So every cycle is refused, at a cost
//! linear in the number of tasks (about 0.1 µs per task) for those calls only.
//!
//! Every other field is read from the `Task` object at call time. Not detected by the other
//! calls (call `planmode.agentscope.resync_tasks(state)` after such edits): replacing an
//! untouched item in place while keeping the length, renaming an untouched task to a larger
//! numeric id, or editing an untouched task's edge list so that it names a task the call touches.
//!
//! The index is shared safely between threads: calls on one index take turns ([`Shared`]).

use pyo3::IntoPyObjectExt;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use super::args;
use super::seen::{self, Seen};
use super::text;
use crate::core::tasks::order::Slot;
use crate::core::tasks::{Change, Edges, Graph, Id, Node, Side, Status, TaskError, ops};
use crate::py::convert::{MAX_DEPTH, check_nesting};
use crate::py::errors::{InvalidInput, StateLoad, reply_text};
use crate::py::shared::Shared;

/// A call's result: the text and whether it succeeded (False = an ERROR result).
type Reply = (String, bool);

fn error(kind: &str, message: impl std::fmt::Display) -> Reply {
    (format!("{kind}: {message}"), false)
}

/// A refusal as an ERROR result, named by the `planmode.exceptions` class it maps to.
fn refused(py: Python<'_>, err: impl Into<PyErr>) -> Reply {
    (reply_text(py, &err.into()), false)
}

/// Reads a list of str (a task's `blocks` / `blocked_by`), naming the task on bad content.
fn read_ids(list: &Bound<'_, PyAny>, what: impl Fn() -> String) -> PyResult<Edges> {
    let list = list
        .cast::<PyList>()
        .map_err(|_| state_error(args::type_error(&what(), "a list", list)))?;
    list.iter()
        .enumerate()
        .map(|(i, item)| {
            args::text(&item, || format!("{}[{i}]", what()))
                .map(Id::from)
                .map_err(state_error)
        })
        .collect()
}

fn state_error(message: String) -> PyErr {
    StateLoad(message).into()
}

/// Reads the indexed part of a `Task`: its id and both edge lists.
fn read_node(task: &Bound<'_, PyAny>, at: usize) -> PyResult<Node<Seen>> {
    let py = task.py();
    let what = |field: &'static str| move || format!("tasks_context.tasks[{at}].{field}");
    let id_object = task.getattr(intern!(py, "id"))?;
    let id = Id::from(args::text(&id_object, what("id")).map_err(state_error)?);
    let blocks = read_ids(&task.getattr(intern!(py, "blocks"))?, what("blocks"))?;
    let blocked_by = read_ids(&task.getattr(intern!(py, "blocked_by"))?, what("blocked_by"))?;
    Ok(Node {
        id,
        blocks,
        blocked_by,
        payload: Seen {
            task: task.clone().unbind(),
            id: id_object.unbind(),
        },
    })
}

/// What [`TaskStateIndex::touch`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Touch {
    /// The list changed behind the index (the object or its id is not where it was).
    Stale,
    /// The task's edge lists are as indexed.
    Same,
    /// The task's edge lists had changed and were re-read.
    Refreshed,
}

/// The index behind the AgentScope Task tools (one per `tasks_context`); see the module docs
/// of `planmode.agentscope` for exactly which direct edits are detected. Safe to share between
/// threads: calls take turns.
#[pyclass(module = "planmode._core", frozen)]
pub struct TaskStateIndex {
    /// `agentscope.state.Task`, used to build new tasks exactly as AgentScope does.
    task_type: Py<PyAny>,
    indexed: Shared<Indexed>,
}

/// What the index knows, behind its lock.
struct Indexed {
    /// The list indexed (None until first use or after `invalidate`).
    list: Option<Py<PyList>>,
    graph: Graph<Seen>,
}

impl Indexed {
    /// Re-indexes every task of `tasks`.
    fn rebuild(&mut self, tasks: &Bound<'_, PyList>) -> PyResult<()> {
        self.list = None;
        self.graph = Graph::new(args::python_int);
        // Read straight into the index (no intermediate list of nodes: less peak memory).
        let mut failed = None;
        let mut graph = Graph::new(args::python_int);
        graph.reserve(tasks.len());
        graph.extend(
            tasks
                .iter()
                .enumerate()
                .map_while(|(at, task)| read_node(&task, at).map_err(|e| failed = Some(e)).ok()),
        );
        if let Some(e) = failed {
            return Err(e);
        }
        self.graph = graph;
        self.list = Some(tasks.clone().unbind());
        Ok(())
    }

    /// Indexes the tasks appended after position `start` (the ranks are kept up to date).
    fn index_from(&mut self, tasks: &Bound<'_, PyList>, start: usize) -> PyResult<()> {
        for at in start..tasks.len() {
            let node = read_node(&tasks.get_item(at)?, at)?;
            self.graph.insert(node);
        }
        Ok(())
    }

    /// Whether list position `pos` holds the object indexed in `slot`.
    fn holds(&self, tasks: &Bound<'_, PyList>, pos: usize, slot: Slot) -> bool {
        seen::holds_at(tasks, pos, &self.graph.node(slot).payload.task)
    }

    /// The O(1) check before every call: same list, same length, same last object; appended
    /// tasks are indexed incrementally, anything else is rebuilt.
    fn sync(&mut self, tasks: &Bound<'_, PyList>) -> PyResult<()> {
        let same_list = self.list.as_ref().is_some_and(|l| l.bind(tasks.py()).is(tasks));
        let (n, known) = (tasks.len(), self.graph.len());
        let prefix_intact = known == 0
            || self
                .graph
                .slot_at(known - 1)
                .is_some_and(|s| self.holds(tasks, known - 1, s));
        if same_list && n >= known && prefix_intact {
            if n > known {
                self.list = None;
                self.index_from(tasks, known)?;
                self.list = Some(tasks.clone().unbind());
            }
            return Ok(());
        }
        self.rebuild(tasks)
    }

    /// Checks that `slot` is still the object at its position with its id, and re-reads its edge
    /// lists.
    fn touch(&mut self, tasks: &Bound<'_, PyList>, slot: Slot) -> PyResult<Touch> {
        let py = tasks.py();
        let pos = self.graph.position(slot);
        if !self.holds(tasks, pos, slot) {
            return Ok(Touch::Stale);
        }
        let task = self.graph.node(slot).payload.task.clone_ref(py).into_bound(py);
        let id = task.getattr(intern!(py, "id"))?;
        if !seen::is_text(&id, &self.graph.node(slot).id) {
            return Ok(Touch::Stale);
        }
        let blocks = task.getattr(intern!(py, "blocks"))?;
        let blocked_by = task.getattr(intern!(py, "blocked_by"))?;
        let node = self.graph.node(slot);
        if seen::same_ids(&blocks, &node.blocks) && seen::same_ids(&blocked_by, &node.blocked_by) {
            return Ok(Touch::Same);
        }
        let fresh = read_node(&task, pos)?;
        self.graph.set_edges(slot, fresh.blocks, fresh.blocked_by);
        Ok(Touch::Refreshed)
    }

    /// Checks every task's identity, id and `blocked_by` against the index, re-reading the edge
    /// lists that changed and rebuilding on a changed identity or id. Afterwards every "waits
    /// on" edge of the list is in the index, so a cycle check on it is exact whatever was edited
    /// directly. One pass over the list (two attribute reads per task, the rest compares
    /// addresses and bytes), taken only before a call that may add an edge; docs/tasks.md says
    /// why no sound check can look at less.
    fn verify_waits(&mut self, tasks: &Bound<'_, PyList>, task_type: &Bound<'_, PyAny>) -> PyResult<()> {
        let py = tasks.py();
        let (id_name, waits_name) = (intern!(py, "id"), intern!(py, "blocked_by"));
        let lookup = seen::Lookup::of(task_type)?;
        let mut changed = Vec::new();
        let mut new_id_objects = Vec::new();
        let mut stale = false;
        for (pos, slot) in self.graph.slots().enumerate() {
            let node = self.graph.node(slot);
            if !seen::holds_at(tasks, pos, &node.payload.task) {
                stale = true;
                break;
            }
            let task = node.payload.task.bind(py);
            let id = lookup.attr(task, id_name)?;
            if !id.is(&node.payload.id) {
                if !seen::is_text(&id, &node.id) {
                    stale = true;
                    break;
                }
                new_id_objects.push((slot, id.unbind())); // an equal str: same id, new object
            }
            if !seen::same_ids(&lookup.attr(task, waits_name)?, &node.blocked_by) {
                changed.push((pos, slot));
            }
        }
        // An attribute read may run code (a property of a Task subclass): the list must still
        // be the one checked.
        if stale || tasks.len() != self.graph.len() {
            return self.rebuild(tasks);
        }
        for (slot, id) in new_id_objects {
            self.graph.payload_mut(slot).id = id;
        }
        for (pos, slot) in changed {
            let fresh = read_node(self.graph.node(slot).payload.task.bind(py), pos)?;
            self.graph.set_edges(slot, fresh.blocks, fresh.blocked_by);
        }
        Ok(())
    }

    /// Finds the first (or last) task with `id`, verified; rebuilds once on a mismatch or a miss.
    fn find(
        &mut self,
        tasks: &Bound<'_, PyList>,
        id: &str,
        last: bool,
        fresh: &mut bool,
    ) -> PyResult<Option<Slot>> {
        loop {
            let slot = if last {
                self.graph.last_slot(id)
            } else {
                self.graph.first_slot(id)
            };
            match slot {
                Some(s) if *fresh || self.touch(tasks, s)? != Touch::Stale => return Ok(Some(s)),
                None if *fresh => return Ok(None),
                _ => {
                    self.rebuild(tasks)?;
                    *fresh = true;
                }
            }
        }
    }

    /// Locates and verifies every task an update touches; returns the task's slot, or None if
    /// no task has `task_id`.
    fn prepare_update(
        &mut self,
        tasks: &Bound<'_, PyList>,
        task_id: &str,
        named: &[&String],
        status: Option<Status>,
    ) -> PyResult<Option<Slot>> {
        let mut fresh = false;
        'retry: loop {
            let was_fresh = fresh;
            let Some(slot) = self.find(tasks, task_id, true, &mut fresh)? else {
                return Ok(None);
            };
            for id in named {
                self.find(tasks, id, false, &mut fresh)?;
            }
            if fresh != was_fresh {
                continue 'retry; // a rebuild renumbered the slots found so far
            }
            if matches!(status, Some(Status::Completed | Status::Deleted)) {
                let node = self.graph.node(slot);
                let deleting = status == Some(Status::Deleted);
                let mut around: Vec<Slot> = self.graph.dependents(&node.id).to_vec();
                let mut names: Vec<&Id> = node.blocks.iter().collect();
                if deleting {
                    around.extend_from_slice(self.graph.blockers(&node.id));
                    names.extend(node.blocked_by.iter());
                }
                around.extend(names.into_iter().filter_map(|id| self.graph.first_slot(id)));
                around.sort_unstable();
                around.dedup();
                for s in around {
                    if s != slot && !fresh && self.touch(tasks, s)? == Touch::Stale {
                        self.rebuild(tasks)?;
                        fresh = true;
                        continue 'retry;
                    }
                }
            }
            return Ok(Some(slot));
        }
    }

    /// Replays the graph's edge-list edits on the `Task` objects.
    fn replay(&self, py: Python<'_>, changes: &[Change], skip: Option<Slot>) -> PyResult<()> {
        for change in changes {
            let (slot, side, id, append) = match change {
                Change::Append { slot, side, id } => (*slot, *side, id, true),
                Change::Remove { slot, side, id } => (*slot, *side, id, false),
            };
            if Some(slot) == skip {
                continue;
            }
            let field = match side {
                Side::Blocks => intern!(py, "blocks"),
                Side::BlockedBy => intern!(py, "blocked_by"),
            };
            let list = self.graph.node(slot).payload.task.bind(py).getattr(field)?;
            if append {
                list.call_method1(intern!(py, "append"), (id.as_str(),))?;
            } else {
                list.call_method1(intern!(py, "remove"), (id.as_str(),))?;
            }
        }
        Ok(())
    }

    fn update_impl(
        &mut self,
        tasks: &Bound<'_, PyList>,
        task_id: &Bound<'_, PyAny>,
        fields: &args::UpdateArgs<'_, '_>,
        metadata: Option<&Bound<'_, PyAny>>,
        task_type: &Bound<'_, PyAny>,
    ) -> PyResult<Reply> {
        let py = tasks.py();
        let parsed = fields
            .parse(task_id)
            .and_then(|f| Ok((f, args::opt_dict(metadata, "metadata")?)));
        let (fields, metadata) = match parsed {
            Ok(p) => p,
            Err(message) => return Ok(refused(py, InvalidInput(message))),
        };
        let metadata = metadata.filter(|m| !m.is_empty());
        if let Some(m) = &metadata
            && let Err(e) = check_nesting(m.as_any(), "metadata", MAX_DEPTH)
        {
            return Ok(refused(py, e));
        }
        let task_id = &fields.task_id;
        let status = fields.status;
        let named: Vec<&String> = fields
            .add_blocks
            .iter()
            .chain(fields.add_blocked_by.iter())
            .flatten()
            .collect();
        if !named.is_empty() {
            self.verify_waits(tasks, task_type)?;
        }
        let req = fields.request(metadata.is_some());
        let Some(slot) = self.prepare_update(tasks, task_id, &named, status)? else {
            return Ok(refused(py, TaskError::NotFound { id: task_id.clone() }));
        };
        let task = self.graph.node(slot).payload.task.clone_ref(py).into_bound(py);
        let task_metadata = task.getattr(intern!(py, "metadata"))?;
        if metadata.is_some() && !task_metadata.is_instance_of::<PyDict>() {
            let what = format!("the metadata of task (id={task_id})");
            return Ok(error(
                "TaskStateError",
                args::type_error(&what, "a dict", &task_metadata),
            ));
        }
        let pos = self.graph.position(slot);
        let outcome = match ops::locate(&self.graph, task_id)
            .and_then(|_| ops::apply_update(&mut self.graph, slot, &req))
        {
            Ok(outcome) => outcome,
            Err(e) => return Ok(refused(py, e)),
        };
        if outcome.deleted {
            tasks.del_item(pos)?;
            self.replay(py, &outcome.changes, Some(slot))?;
            self.graph.maybe_compact();
            return Ok((ops::deleted_message(task_id), true));
        }
        self.replay(py, &outcome.changes, None)?;
        for field in &outcome.fields {
            match *field {
                "subject" => task.setattr(intern!(py, "subject"), fields.subject.as_deref())?,
                "description" => task.setattr(intern!(py, "description"), fields.description.as_deref())?,
                "status" => {
                    let state = status.and_then(|s| s.state()).map(|s| s.as_str());
                    task.setattr(intern!(py, "state"), state)?;
                }
                "owner" => task.setattr(intern!(py, "owner"), fields.owner.as_deref())?,
                "metadata" => {
                    let target = task_metadata.cast::<PyDict>()?;
                    for (k, v) in metadata.iter().flat_map(|m| m.iter()) {
                        if v.is_none() {
                            if target.contains(&k)? {
                                target.del_item(&k)?;
                            }
                        } else {
                            target.set_item(k, v)?;
                        }
                    }
                }
                _ => {}
            }
        }
        let completed = task.getattr(intern!(py, "state"))?.eq("completed")?;
        Ok((ops::update_message(task_id, &outcome.fields, completed), true))
    }

    /// Runs `f`; a failure marks the index stale so that the next call rebuilds it.
    fn guarded<T>(&mut self, f: impl FnOnce(&mut Self) -> PyResult<T>) -> PyResult<T> {
        let result = f(self);
        if result.is_err() {
            self.list = None;
        }
        result
    }
}

/// Reports a malformed `tasks_context.tasks` (or a failure inside it) as an ERROR result.
fn state_reply(py: Python<'_>, result: PyResult<Reply>) -> PyResult<Reply> {
    result.or_else(|e| Ok(error("TaskStateError", e.value(py))))
}

#[pymethods]
impl TaskStateIndex {
    /// An empty index that builds new tasks with `task_type` (`agentscope.state.Task`).
    #[new]
    fn new(task_type: Py<PyAny>) -> Self {
        let indexed = Indexed {
            list: None,
            graph: Graph::new(args::python_int),
        };
        Self {
            task_type,
            indexed: Shared::new(indexed, "TaskStateIndex"),
        }
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!("TaskStateIndex({})", self.task_type.bind(py).repr()?))
    }

    /// Pickles as a fresh index (it is a cache: it rebuilds from the list on first use).
    fn __reduce__(&self, py: Python<'_>) -> PyResult<(Py<PyAny>, (Py<PyAny>,))> {
        let cls = py.get_type::<Self>().into_py_any(py)?;
        Ok((cls, (self.task_type.clone_ref(py),)))
    }

    /// Forgets everything; the next call re-reads the whole list.
    fn invalidate(&self, py: Python<'_>) -> PyResult<()> {
        let mut this = self.indexed.lock(py)?;
        this.list = None;
        this.graph = Graph::new(args::python_int);
        Ok(())
    }

    /// AgentScope's `TaskCreate` on `tasks`; returns (text, ok).
    fn create(
        &self,
        tasks: &Bound<'_, PyList>,
        subject: &Bound<'_, PyAny>,
        description: &Bound<'_, PyAny>,
        metadata: &Bound<'_, PyAny>,
    ) -> PyResult<Reply> {
        let py = tasks.py();
        if let Err(e) = check_nesting(metadata, "metadata", MAX_DEPTH) {
            return Ok(refused(py, e));
        }
        let mut this = self.indexed.lock(py)?;
        let result = this.guarded(|this| {
            this.sync(tasks)?;
            let id = this.graph.next_id();
            let kwargs = PyDict::new(py);
            kwargs.set_item(intern!(py, "id"), &id)?;
            kwargs.set_item(intern!(py, "subject"), subject)?;
            kwargs.set_item(intern!(py, "description"), description)?;
            let metadata = if metadata.is_truthy()? {
                metadata.clone()
            } else {
                PyDict::new(py).into_any()
            };
            kwargs.set_item(intern!(py, "metadata"), metadata)?;
            let task = match self.task_type.bind(py).call((), Some(&kwargs)) {
                Ok(task) => task,
                Err(e) => return Ok(error("CreateTaskError", e.value(py))),
            };
            tasks.append(&task)?;
            let text = ops::created_message(&id, task.getattr(intern!(py, "subject"))?.str()?.to_str()?);
            let node = Node {
                id: id.into(),
                blocks: Edges::new(),
                blocked_by: Edges::new(),
                payload: Seen {
                    id: task.getattr(intern!(py, "id"))?.unbind(),
                    task: task.unbind(),
                },
            };
            this.graph.insert(node);
            Ok((text, true))
        });
        state_reply(py, result)
    }

    /// AgentScope's `TaskGet` on `tasks`; returns (text, ok).
    fn get(&self, tasks: &Bound<'_, PyList>, task_id: &Bound<'_, PyAny>) -> PyResult<Reply> {
        let py = tasks.py();
        let Ok(id) = args::string(task_id, "task_id") else {
            return Ok(("Task not found".to_owned(), false)); // AgentScope compares with ==
        };
        let mut this = self.indexed.lock(py)?;
        let result = this.guarded(|this| {
            this.sync(tasks)?;
            let mut fresh = false;
            match this.find(tasks, &id, false, &mut fresh)? {
                Some(slot) => Ok((
                    text::task_details(this.graph.node(slot).payload.task.bind(py))?,
                    true,
                )),
                None => Ok(("Task not found".to_owned(), false)),
            }
        });
        state_reply(py, result)
    }

    /// AgentScope's `TaskUpdate` on `tasks`, refusing unknown ids, self-loops and cycles with
    /// nothing changed; returns (text, ok).
    #[pyo3(signature = (tasks, task_id, subject = None, description = None, add_blocks = None, status = None,
                        add_blocked_by = None, owner = None, metadata = None))]
    #[allow(clippy::too_many_arguments)]
    fn update(
        &self,
        tasks: &Bound<'_, PyList>,
        task_id: &Bound<'_, PyAny>,
        subject: Option<&Bound<'_, PyAny>>,
        description: Option<&Bound<'_, PyAny>>,
        add_blocks: Option<&Bound<'_, PyAny>>,
        status: Option<&Bound<'_, PyAny>>,
        add_blocked_by: Option<&Bound<'_, PyAny>>,
        owner: Option<&Bound<'_, PyAny>>,
        metadata: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Reply> {
        let py = tasks.py();
        let mut this = self.indexed.lock(py)?;
        let result = this.guarded(|this| {
            this.sync(tasks)?;
            let fields = args::UpdateArgs {
                subject,
                description,
                add_blocks,
                status,
                add_blocked_by,
                owner,
            };
            this.update_impl(tasks, task_id, &fields, metadata, self.task_type.bind(py))
        });
        state_reply(py, result)
    }
}
