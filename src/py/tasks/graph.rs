//! `planmode.TaskGraph`: the native task graph as a Python class.

use pyo3::IntoPyObjectExt;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyType};
use serde::Deserialize;
use serde_json::{Map, Value};

use super::{args, state};
use crate::core::tasks::{
    ContextRecord, Id, LoadError, Node, Problem, TaskData, TaskError, TaskGraph, TaskState,
};
use crate::py::convert::to_json_value;
use crate::py::exceptions::{CycleError, InvalidInputError, StateLoadError, TaskNotFoundError};

/// A task graph with AgentScope's task semantics, held in Rust.
///
/// Tasks have exactly AgentScope's `Task` fields. `create`/`update` behave like AgentScope's
/// `TaskCreate`/`TaskUpdate` tools, except that an edge to an unknown id, a self-loop or an edge
/// closing a cycle is refused (nothing changes). `state_dict()` has the shape of
/// `TaskContext.model_dump()`.
#[pyclass(module = "planmode._core", name = "TaskGraph")]
pub struct PyTaskGraph {
    inner: TaskGraph,
}

fn new_graph() -> TaskGraph {
    TaskGraph::new(args::python_int)
}

/// Maps a refused operation to the matching `planmode.exceptions` class.
fn task_error(e: TaskError) -> PyErr {
    let message = e.to_string();
    match e {
        TaskError::NotFound { .. } => TaskNotFoundError::new_err(message),
        TaskError::SelfLoop { .. } | TaskError::Cycle { .. } => CycleError::new_err(message),
        TaskError::UnknownIds { .. } | TaskError::Ambiguous { .. } => InvalidInputError::new_err(message),
    }
}

fn load_error(e: LoadError) -> PyErr {
    StateLoadError::new_err(format!("cannot load tasks: {e}"))
}

/// Reads a state dict (`{"tasks": [...]}`) straight from the Python objects, naming the path of
/// bad data; NaN, infinities and bytes in metadata are refused too. Plain dicts, lists and strs
/// take a direct path; anything else (or bad data) goes through pythonize.
fn read_state(state: &Bound<'_, PyAny>) -> PyResult<ContextRecord> {
    if !state.is_instance_of::<PyDict>() {
        return Err(StateLoadError::new_err(args::type_error(
            "state",
            "a dict like {'tasks': [...]}",
            state,
        )));
    }
    if let Some(tasks) = state::read_plain(state.cast::<PyDict>()?) {
        return Ok(ContextRecord { tasks });
    }
    // Tracking the path costs on every field: read untracked, and again tracked only to name it.
    let ctx = match ContextRecord::deserialize(&mut pythonize::Depythonizer::from_object(state)) {
        Ok(ctx) => ctx,
        Err(_) => {
            let mut de = pythonize::Depythonizer::from_object(state);
            serde_path_to_error::deserialize::<_, ContextRecord>(&mut de).map_err(|e| {
                StateLoadError::new_err(format!("cannot load tasks: {}: {}", e.path(), e.inner()))
            })?
        }
    };
    // pythonize reads NaN as null: check every non-empty metadata dict it accepted.
    if let Some(tasks) = state.cast::<PyDict>()?.get_item("tasks")? {
        for (i, task) in tasks.try_iter()?.enumerate() {
            let metadata = task?.get_item("metadata")?;
            if metadata.is_truthy()? {
                to_json_value(&metadata, &format!("tasks[{i}].metadata")).map_err(|e| {
                    StateLoadError::new_err(format!("cannot load tasks: {}", e.value(state.py())))
                })?;
            }
        }
    }
    Ok(ctx)
}

fn load_state(state: &Bound<'_, PyAny>) -> PyResult<TaskGraph> {
    TaskGraph::from_records(read_state(state)?.tasks, args::python_int).map_err(load_error)
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
        pythonize(py, &t.metadata)?
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
        .map_err(|_| StateLoadError::new_err(args::type_error(what, "a string", json)))?
        .to_str()?;
    py.detach(|| TaskGraph::from_json(text, args::python_int))
        .map_err(load_error)
}

fn metadata_map(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Map<String, Value>>> {
    let Some(obj) = obj.filter(|o| !o.is_none()) else {
        return Ok(None);
    };
    if !obj.is_instance_of::<PyDict>() {
        return Err(InvalidInputError::new_err(args::type_error(
            "metadata", "a dict", obj,
        )));
    }
    match to_json_value(obj, "metadata")? {
        Value::Object(map) => Ok(Some(map)),
        _ => Err(InvalidInputError::new_err("metadata must be a dict")),
    }
}

fn pythonize<'py, T: serde::Serialize>(py: Python<'py>, value: &T) -> PyResult<Bound<'py, PyAny>> {
    pythonize::pythonize(py, value).map_err(|e| InvalidInputError::new_err(format!("cannot convert: {e}")))
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
    InvalidInputError::new_err(message)
}

#[pymethods]
impl PyTaskGraph {
    /// A graph holding `tasks` (dicts shaped like `Task.model_dump()`), or an empty one.
    #[new]
    #[pyo3(signature = (tasks = None))]
    fn new(py: Python<'_>, tasks: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let Some(tasks) = tasks.filter(|t| !t.is_none()) else {
            return Ok(Self { inner: new_graph() });
        };
        let state = PyDict::new(py);
        state.set_item("tasks", tasks)?;
        Ok(Self {
            inner: load_state(state.as_any())?,
        })
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        const SHOWN: usize = 20;
        let mut parts = Vec::new();
        for node in self.inner.tasks().take(SHOWN) {
            parts.push(task_dict(py, node)?.repr()?.to_string());
        }
        if self.inner.len() > SHOWN {
            parts.push(format!("... {} more", self.inner.len() - SHOWN));
        }
        Ok(format!("TaskGraph(tasks=[{}])", parts.join(", ")))
    }

    fn __len__(&self) -> usize {
        self.inner.len()
    }

    fn __contains__(&self, task_id: &Bound<'_, PyAny>) -> bool {
        args::string(task_id, "task_id").is_ok_and(|id| self.inner.get(&id).is_some())
    }

    /// Creates a pending task with the next numeric id (largest numeric id + 1) and returns the id.
    #[pyo3(signature = (subject, description, metadata = None, *, created_at = None))]
    fn create(
        &mut self,
        subject: &Bound<'_, PyAny>,
        description: &Bound<'_, PyAny>,
        metadata: Option<&Bound<'_, PyAny>>,
        created_at: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<String> {
        let subject = args::string(subject, "subject").map_err(invalid)?;
        let description = args::string(description, "description").map_err(invalid)?;
        let created_at = args::opt_string(created_at, "created_at").map_err(invalid)?;
        let metadata = metadata_map(metadata)?.unwrap_or_default();
        Ok(self.inner.create(subject, description, metadata, created_at))
    }

    /// The task with this id, as a dict shaped like `Task.model_dump()`.
    fn get<'py>(&self, py: Python<'py>, task_id: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyDict>> {
        let id = args::string(task_id, "task_id").map_err(invalid)?;
        let node = self
            .inner
            .get(&id)
            .ok_or_else(|| task_error(TaskError::NotFound { id }))?;
        task_dict(py, node)
    }

    /// Every task in list order, as dicts shaped like `Task.model_dump()`.
    fn list<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        task_list(py, &self.inner)
    }

    /// AgentScope's `TaskUpdate`; returns the updated field names. Raises `TaskNotFoundError`,
    /// `InvalidInputError` (unknown ids, wrong types) or `CycleError`, changing nothing.
    #[pyo3(signature = (task_id, *, subject = None, description = None, add_blocks = None, status = None,
                        add_blocked_by = None, owner = None, metadata = None))]
    #[allow(clippy::too_many_arguments)]
    fn update(
        &mut self,
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
        let report = self
            .inner
            .update(&fields.task_id, &fields.request(false), metadata.as_ref())
            .map_err(task_error)?;
        Ok(report.fields)
    }

    /// Ids of pending tasks whose blockers are all completed (or gone), lowest id first.
    fn ready(&self) -> Vec<String> {
        self.inner.ready().into_iter().map(str::to_owned).collect()
    }

    /// Every id after the tasks it waits on, lowest id first among equals; `CycleError` on a cycle.
    fn topological_order(&self) -> PyResult<Vec<String>> {
        Ok(self
            .inner
            .topological_order()
            .map_err(task_error)?
            .into_iter()
            .map(str::to_owned)
            .collect())
    }

    /// Problems in the data (dangling, one-sided, repeated or self edges, cycles) as dicts with
    /// `kind`, `ids` and `message`; empty when the graph is sound.
    fn validate<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        problems(py, &self.inner.validate())
    }

    /// Fixes what `validate()` reports and returns those problems.
    fn repair<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let fixed = self.inner.repair();
        problems(py, &fixed)
    }

    /// Problems in a state dict before loading it, duplicate ids included (wrong types still raise).
    #[staticmethod]
    fn validate_state_dict<'py>(py: Python<'py>, state: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
        let records = read_state(state)?.tasks;
        problems(
            py,
            &TaskGraph::problems_in(records, args::python_int).map_err(load_error)?,
        )
    }

    /// A Mermaid flowchart: blockers point at the tasks they block; dashed = kept only by a
    /// completed blocker.
    fn to_mermaid(&self) -> String {
        self.inner.to_mermaid()
    }

    /// A Graphviz digraph of the same drawing.
    fn to_dot(&self) -> String {
        self.inner.to_dot()
    }

    /// Exactly what `agentscope.state.TaskContext(...).model_dump()` returns for these tasks.
    fn state_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item(intern!(py, "tasks"), task_list(py, &self.inner)?)?;
        Ok(d)
    }

    /// A graph from a `TaskContext.model_dump()`-shaped dict; `StateLoadError` on bad data.
    #[classmethod]
    fn from_state_dict(_cls: &Bound<'_, PyType>, state: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(Self {
            inner: load_state(state)?,
        })
    }

    /// Replaces the tasks with those of a state dict; on bad data raises and keeps the old tasks.
    fn load_state_dict(&mut self, state: &Bound<'_, PyAny>) -> PyResult<()> {
        self.inner = load_state(state)?;
        Ok(())
    }

    /// Compact JSON of the `TaskContext` shape.
    fn to_json(&self, py: Python<'_>) -> String {
        let inner = &self.inner;
        py.detach(|| inner.to_json())
    }

    /// A graph from `to_json()` / `TaskContext.model_dump_json()` output; `StateLoadError` on bad data.
    #[classmethod]
    fn from_json(_cls: &Bound<'_, PyType>, py: Python<'_>, json: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(Self {
            inner: parse_json(py, json, "json")?,
        })
    }

    fn __getstate__(&self, py: Python<'_>) -> String {
        self.to_json(py)
    }

    fn __setstate__(&mut self, py: Python<'_>, state: &Bound<'_, PyAny>) -> PyResult<()> {
        self.inner = parse_json(py, state, "pickled state")?;
        Ok(())
    }

    fn __copy__(&self) -> Self {
        Self {
            inner: self.inner.clone(),
        }
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> Self {
        Self {
            inner: self.inner.clone(),
        }
    }

    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        match other.cast::<Self>() {
            Ok(other) => (self.to_json(py) == other.borrow().to_json(py)).into_py_any(py),
            Err(_) => Ok(py.NotImplemented()),
        }
    }
}
