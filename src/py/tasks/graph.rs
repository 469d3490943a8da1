//! `planmode.TaskGraph`: the native task graph as a Python class.

use pyo3::IntoPyObjectExt;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyType};
use serde::Deserialize;
use serde_json::{Map, Value};

use super::{args, state};
use crate::core::tasks::{ContextRecord, Id, Node, Problem, TaskData, TaskError, TaskGraph, TaskState};
use crate::py::convert::{to_json_value, to_py};
use crate::py::errors::{InvalidInput, StateLoad};
use crate::py::shared::Shared;

/// A task graph with AgentScope's task semantics, held in Rust.
///
/// Tasks have exactly AgentScope's `Task` fields. `create`/`update` behave like AgentScope's
/// `TaskCreate`/`TaskUpdate` tools, except that an edge to an unknown id, a self-loop or an edge
/// closing a cycle is refused (nothing changes). `state_dict()` has the shape of
/// `TaskContext.model_dump()`.
///
/// Safe to share between threads: calls on one graph take turns (a caller waits with the GIL
/// released), so each sees the graph before or after another call, never in between.
#[pyclass(module = "planmode._core", name = "TaskGraph", frozen)]
pub struct PyTaskGraph {
    inner: Shared<TaskGraph>,
}

impl PyTaskGraph {
    fn of(graph: TaskGraph) -> Self {
        Self {
            inner: Shared::new(graph, "TaskGraph"),
        }
    }
}

fn new_graph() -> TaskGraph {
    TaskGraph::new(args::python_int)
}

/// Reads a state dict (`{"tasks": [...]}`) straight from the Python objects, naming the path of
/// bad data; NaN, infinities and bytes in metadata are refused too. Plain dicts, lists and strs
/// take a direct path; anything else (or bad data) goes through pythonize.
fn read_state(state: &Bound<'_, PyAny>) -> PyResult<ContextRecord> {
    if !state.is_instance_of::<PyDict>() {
        return Err(StateLoad(args::type_error("state", "a dict like {'tasks': [...]}", state)).into());
    }
    // The direct reader never recurses (its metadata conversion stops at the nesting limit).
    if let Some(tasks) = state::read_plain(state.cast::<PyDict>()?) {
        return Ok(ContextRecord { tasks });
    }
    // pythonize recurses into whatever it is given: check the nesting before it walks.
    state::check_nesting(state.cast::<PyDict>()?).map_err(|e| load_error(state.py(), &e))?;
    // Tracking the path costs on every field: read untracked, and again tracked only to name it.
    let ctx = match ContextRecord::deserialize(&mut pythonize::Depythonizer::from_object(state)) {
        Ok(ctx) => ctx,
        Err(_) => {
            let mut de = pythonize::Depythonizer::from_object(state);
            serde_path_to_error::deserialize::<_, ContextRecord>(&mut de)
                .map_err(|e| StateLoad(format!("cannot load tasks: {}: {}", e.path(), e.inner())))?
        }
    };
    // pythonize reads NaN as null: check every non-empty metadata dict it accepted.
    if let Some(tasks) = state.cast::<PyDict>()?.get_item("tasks")? {
        for (i, task) in tasks.try_iter()?.enumerate() {
            let metadata = task?.get_item("metadata")?;
            if metadata.is_truthy()? {
                to_json_value(&metadata, &format!("tasks[{i}].metadata"))
                    .map_err(|e| load_error(state.py(), &e))?;
            }
        }
    }
    Ok(ctx)
}

/// A conversion refusal inside a state dict, as the `StateLoadError` loading raises.
fn load_error(py: Python<'_>, e: &PyErr) -> PyErr {
    StateLoad(format!("cannot load tasks: {}", e.value(py))).into()
}

fn load_state(state: &Bound<'_, PyAny>) -> PyResult<TaskGraph> {
    Ok(TaskGraph::from_records(
        read_state(state)?.tasks,
        args::python_int,
    )?)
}

/// One task as the dict `Task.model_dump()` gives (same keys, same order).
fn task_dict<'py>(py: Python<'py>, node: &Node<TaskData>) -> PyResult<Bound<'py, PyDict>> {
    let t = &node.payload;
    let d = PyDict::new(py);
    d.set_item(intern!(py, "subject"), &t.subject)?;
    d.set_item(intern!(py, "description"), &t.description)?;
    let metadata = if t.metadata.is_empty() {
        PyDict::new(py).into_any()
    } else {
        to_py(py, &t.metadata)?
    };
    d.set_item(intern!(py, "metadata"), metadata)?;
    d.set_item(intern!(py, "created_at"), &t.created_at)?;
    let state = match t.state {
        TaskState::Pending => intern!(py, "pending"),
        TaskState::InProgress => intern!(py, "in_progress"),
        TaskState::Completed => intern!(py, "completed"),
    };
    d.set_item(intern!(py, "state"), state)?;
    d.set_item(intern!(py, "id"), node.id.as_str())?;
    d.set_item(intern!(py, "owner"), &t.owner)?;
    d.set_item(
        intern!(py, "blocks"),
        PyList::new(py, node.blocks.iter().map(Id::as_str))?,
    )?;
    d.set_item(
        intern!(py, "blocked_by"),
        PyList::new(py, node.blocked_by.iter().map(Id::as_str))?,
    )?;
    Ok(d)
}

fn task_list<'py>(py: Python<'py>, graph: &TaskGraph) -> PyResult<Bound<'py, PyList>> {
    let out = PyList::empty(py);
    for node in graph.tasks() {
        out.append(task_dict(py, node)?)?;
    }
    Ok(out)
}

/// Parses JSON text without copying it, with the GIL released.
fn parse_json(py: Python<'_>, json: &Bound<'_, PyAny>, what: &str) -> PyResult<TaskGraph> {
    let text = json
        .cast::<PyString>()
        .map_err(|_| StateLoad(args::type_error(what, "a string", json)))?
        .to_str()?;
    Ok(py.detach(|| TaskGraph::from_json(text, args::python_int))?)
}

fn metadata_map(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Map<String, Value>>> {
    let Some(obj) = obj.filter(|o| !o.is_none()) else {
        return Ok(None);
    };
    if !obj.is_instance_of::<PyDict>() {
        return Err(InvalidInput(args::type_error("metadata", "a dict", obj)).into());
    }
    match to_json_value(obj, "metadata")? {
        Value::Object(map) => Ok(Some(map)),
        _ => Err(InvalidInput("metadata must be a dict".into()).into()),
    }
}

fn problems<'py>(py: Python<'py>, problems: &[Problem]) -> PyResult<Bound<'py, PyList>> {
    let out = PyList::empty(py);
    for p in problems {
        let d = PyDict::new(py);
        d.set_item("kind", p.kind.as_str())?;
        d.set_item("ids", &p.ids)?;
        d.set_item("message", &p.message)?;
        out.append(d)?;
    }
    Ok(out)
}

fn invalid(message: String) -> PyErr {
    InvalidInput(message).into()
}

#[pymethods]
impl PyTaskGraph {
    /// A graph holding `tasks` (dicts shaped like `Task.model_dump()`), or an empty one.
    #[new]
    #[pyo3(signature = (tasks = None))]
    fn new(py: Python<'_>, tasks: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let Some(tasks) = tasks.filter(|t| !t.is_none()) else {
            return Ok(Self::of(new_graph()));
        };
        let state = PyDict::new(py);
        state.set_item("tasks", tasks)?;
        Ok(Self::of(load_state(state.as_any())?))
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        const SHOWN: usize = 20;
        let g = self.inner.lock(py)?;
        let mut parts = Vec::new();
        for node in g.tasks().take(SHOWN) {
            parts.push(task_dict(py, node)?.repr()?.to_string());
        }
        if g.len() > SHOWN {
            parts.push(format!("... {} more", g.len() - SHOWN));
        }
        Ok(format!("TaskGraph(tasks=[{}])", parts.join(", ")))
    }

    fn __len__(&self, py: Python<'_>) -> PyResult<usize> {
        Ok(self.inner.lock(py)?.len())
    }

    fn __contains__(&self, py: Python<'_>, task_id: &Bound<'_, PyAny>) -> PyResult<bool> {
        let Ok(id) = args::string(task_id, "task_id") else {
            return Ok(false);
        };
        Ok(self.inner.lock(py)?.get(&id).is_some())
    }

    /// Creates a pending task with the next numeric id (largest numeric id + 1) and returns the id.
    #[pyo3(signature = (subject, description, metadata = None, *, created_at = None))]
    fn create(
        &self,
        py: Python<'_>,
        subject: &Bound<'_, PyAny>,
        description: &Bound<'_, PyAny>,
        metadata: Option<&Bound<'_, PyAny>>,
        created_at: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<String> {
        let subject = args::string(subject, "subject").map_err(invalid)?;
        let description = args::string(description, "description").map_err(invalid)?;
        let created_at = args::opt_string(created_at, "created_at").map_err(invalid)?;
        let metadata = metadata_map(metadata)?.unwrap_or_default();
        let mut g = self.inner.lock(py)?;
        Ok(g.create(subject, description, metadata, created_at))
    }

    /// The task with this id, as a dict shaped like `Task.model_dump()`.
    fn get<'py>(&self, py: Python<'py>, task_id: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyDict>> {
        let id = args::string(task_id, "task_id").map_err(invalid)?;
        let g = self.inner.lock(py)?;
        let node = g.get(&id).ok_or(TaskError::NotFound { id: id.clone() })?;
        task_dict(py, node)
    }

    /// Every task in list order, as dicts shaped like `Task.model_dump()`.
    fn list<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        task_list(py, &*self.inner.lock(py)?)
    }

    /// AgentScope's `TaskUpdate`; returns the updated field names. Raises `TaskNotFoundError`,
    /// `InvalidInputError` (unknown ids, wrong types) or `CycleError`, changing nothing.
    #[pyo3(signature = (task_id, *, subject = None, description = None, add_blocks = None, status = None,
                        add_blocked_by = None, owner = None, metadata = None))]
    #[allow(clippy::too_many_arguments)]
    fn update(
        &self,
        py: Python<'_>,
        task_id: &Bound<'_, PyAny>,
        subject: Option<&Bound<'_, PyAny>>,
        description: Option<&Bound<'_, PyAny>>,
        add_blocks: Option<&Bound<'_, PyAny>>,
        status: Option<&Bound<'_, PyAny>>,
        add_blocked_by: Option<&Bound<'_, PyAny>>,
        owner: Option<&Bound<'_, PyAny>>,
        metadata: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Vec<&'static str>> {
        let fields = args::UpdateArgs {
            subject,
            description,
            add_blocks,
            status,
            add_blocked_by,
            owner,
        }
        .parse(task_id)
        .map_err(invalid)?;
        let metadata = metadata_map(metadata)?;
        let mut g = self.inner.lock(py)?;
        let report = g.update(&fields.task_id, &fields.request(false), metadata.as_ref())?;
        Ok(report.fields)
    }

    /// Ids of pending tasks whose blockers are all completed (or gone), lowest id first.
    fn ready(&self, py: Python<'_>) -> PyResult<Vec<String>> {
        let g = self.inner.lock(py)?;
        Ok(g.ready().into_iter().map(str::to_owned).collect())
    }

    /// Every id after the tasks it waits on, lowest id first among equals; `CycleError` on a cycle.
    fn topological_order(&self, py: Python<'_>) -> PyResult<Vec<String>> {
        let g = self.inner.lock(py)?;
        Ok(g.topological_order()?.into_iter().map(str::to_owned).collect())
    }

    /// Problems in the data (dangling, one-sided, repeated or self edges, cycles) as dicts with
    /// `kind`, `ids` and `message`; empty when the graph is sound.
    fn validate<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let found = {
            let g = self.inner.lock(py)?;
            py.detach(|| g.validate())
        };
        problems(py, &found)
    }

    /// Fixes what `validate()` reports and returns those problems.
    fn repair<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let fixed = {
            let mut g = self.inner.lock(py)?;
            let g = &mut *g;
            py.detach(|| g.repair())
        };
        problems(py, &fixed)
    }

    /// Problems in a state dict before loading it, duplicate ids included (wrong types still raise).
    #[staticmethod]
    fn validate_state_dict<'py>(py: Python<'py>, state: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
        let records = read_state(state)?.tasks;
        let found = py.detach(|| TaskGraph::problems_in(records, args::python_int))?;
        problems(py, &found)
    }

    /// A Mermaid flowchart: blockers point at the tasks they block; dashed = kept only by a
    /// completed blocker.
    fn to_mermaid(&self, py: Python<'_>) -> PyResult<String> {
        Ok(self.inner.lock(py)?.to_mermaid())
    }

    /// A Graphviz digraph of the same drawing.
    fn to_dot(&self, py: Python<'_>) -> PyResult<String> {
        Ok(self.inner.lock(py)?.to_dot())
    }

    /// Exactly what `agentscope.state.TaskContext(...).model_dump()` returns for these tasks.
    fn state_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item(intern!(py, "tasks"), task_list(py, &*self.inner.lock(py)?)?)?;
        Ok(d)
    }

    /// A graph from a `TaskContext.model_dump()`-shaped dict; `StateLoadError` on bad data.
    #[classmethod]
    fn from_state_dict(_cls: &Bound<'_, PyType>, state: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(Self::of(load_state(state)?))
    }

    /// Replaces the tasks with those of a state dict; on bad data raises and keeps the old tasks.
    fn load_state_dict(&self, py: Python<'_>, state: &Bound<'_, PyAny>) -> PyResult<()> {
        let loaded = load_state(state)?;
        *self.inner.lock(py)? = loaded;
        Ok(())
    }

    /// Compact JSON of the `TaskContext` shape.
    fn to_json(&self, py: Python<'_>) -> PyResult<String> {
        let g = self.inner.lock(py)?;
        let g = &*g;
        Ok(py.detach(|| g.to_json()))
    }

    /// A graph from `to_json()` / `TaskContext.model_dump_json()` output; `StateLoadError` on bad data.
    #[classmethod]
    fn from_json(_cls: &Bound<'_, PyType>, py: Python<'_>, json: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(Self::of(parse_json(py, json, "json")?))
    }

    fn __getstate__(&self, py: Python<'_>) -> PyResult<String> {
        self.to_json(py)
    }

    fn __setstate__(&self, py: Python<'_>, state: &Bound<'_, PyAny>) -> PyResult<()> {
        let loaded = parse_json(py, state, "pickled state")?;
        *self.inner.lock(py)? = loaded;
        Ok(())
    }

    fn __copy__(&self, py: Python<'_>) -> PyResult<Self> {
        Ok(Self::of(self.inner.lock(py)?.clone()))
    }

    fn __deepcopy__(&self, py: Python<'_>, _memo: &Bound<'_, PyAny>) -> PyResult<Self> {
        self.__copy__(py)
    }

    fn __eq__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let py = slf.py();
        let Ok(other) = other.cast::<Self>() else {
            return Ok(py.NotImplemented());
        };
        if slf.is(other) {
            return true.into_py_any(py);
        }
        // One lock at a time, so two threads comparing a == b and b == a cannot deadlock.
        let mine = slf.get().to_json(py)?;
        let theirs = other.get().to_json(py)?;
        (mine == theirs).into_py_any(py)
    }
}
