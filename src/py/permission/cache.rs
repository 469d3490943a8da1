//! `RuleCache`: compiles a permission context's rule lists once and starts checks against them.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, TryLockError};

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyTuple, PyType};

use super::check::PermissionCheck;
use super::plain::PlainTypes;
use super::snapshot::{CachedList, Snapshot, load};
use crate::core::permission::{Mode, RuleList, Subject};
use crate::py::exceptions::{InvalidInputError, UnknownModeError};

/// Which native matcher reproduces a tool's `match_rule` (decided by the Python side).
const KIND_TOOL: u8 = 0;
const KIND_BASH: u8 = 1;
const KIND_FILE: u8 = 2;
const KIND_GLOB: u8 = 3;
const KIND_GREP: u8 = 4;
const KIND_DEFAULT: u8 = 5;

/// The attributes read from `plain_types` instances.
const PLAIN_NAMES: [&str; 5] = ["rule_content", "mode", "deny_rules", "ask_rules", "allow_rules"];

/// Compiled rule lists of permission contexts, keyed by tool name and checked against the live
/// rule dictionaries on every use (list and rule identities, each rule's `rule_content`), so rules
/// added in place by `add_rule`, replaced lists and replaced contexts are all seen at once.
///
/// `modes` are the five `PermissionMode` members (DEFAULT, ACCEPT_EDITS, EXPLORE, BYPASS,
/// DONT_ASK); `plain_types` are classes (`PermissionRule`, `PermissionContext`) whose attributes
/// may be read from the instance dict, being sure they do not override `__getattribute__`. One
/// cache serves one engine; a check that finds the cache in use (another thread, or re-entered
/// from Python) compiles what it needs without it instead of waiting.
#[pyclass(module = "planmode._core", name = "RuleCache", frozen)]
pub struct RuleCache {
    modes: Py<PyTuple>,
    plain: PlainTypes,
    lists: Mutex<Lists>,
    compiled: AtomicUsize,
}

/// The cached deny, ask and allow lists, by tool name.
type Lists = [HashMap<String, CachedList>; 3];

#[pymethods]
impl RuleCache {
    #[new]
    #[pyo3(signature = (modes, plain_types=Vec::new()))]
    fn new(modes: Bound<'_, PyTuple>, plain_types: Vec<Bound<'_, PyType>>) -> PyResult<Self> {
        if modes.len() != Mode::ALL.len() {
            return Err(InvalidInputError::new_err(format!(
                "RuleCache needs the {} PermissionMode members, got {} objects",
                Mode::ALL.len(),
                modes.len()
            )));
        }
        let plain = PlainTypes::new(&plain_types, &PLAIN_NAMES)?;
        Ok(RuleCache {
            modes: modes.unbind(),
            plain,
            lists: Mutex::default(),
            compiled: AtomicUsize::new(0),
        })
    }

    /// How many rules have been compiled so far (unchanged lists are never compiled again).
    #[getter]
    fn compiled_rules(&self) -> usize {
        self.compiled.load(Ordering::Relaxed)
    }

    /// Starts checking one invocation of the tool named `tool_name` (whose `match_rule` is
    /// reproduced by matcher `kind`: 0 none, 1 Bash, 2 Read/Write/Edit, 3 Glob, 4 Grep, 5 ToolBase's
    /// default) against `context` (an AgentScope `PermissionContext`; its allow rules are read
    /// only if the check gets that far, as AgentScope does). `read_only` is the invocation's
    /// read-only verdict when known up front (ToolBase's `check_read_only` is `is_read_only`).
    ///
    /// Raises UnknownModeError (a ValueError) when `context.mode` is not a PermissionMode.
    #[pyo3(signature = (context, tool_name, kind, tool_input, read_only=None))]
    fn begin(
        slf: &Bound<'_, Self>,
        context: &Bound<'_, PyAny>,
        tool_name: &Bound<'_, PyString>,
        kind: u8,
        tool_input: &Bound<'_, PyAny>,
        read_only: Option<bool>,
    ) -> PyResult<PermissionCheck> {
        let py = slf.py();
        let this = slf.get();
        let mode = this.mode_of(&this.plain.getattr(context, intern!(py, "mode"))?)?;
        let deny = this.load(context, RuleList::Deny, tool_name)?;
        let ask = this.load(context, RuleList::Ask, tool_name)?;
        let source = AllowSource {
            cache: slf.clone().unbind(),
            context: context.clone().unbind(),
            name: tool_name.clone().unbind(),
        };
        let tool = tool_name.to_str()?.to_owned();
        PermissionCheck::start(
            mode,
            tool,
            [deny, ask],
            source,
            subject(kind, tool_input)?,
            read_only,
        )
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let types = PyTuple::new(py, self.plain.types(py))?;
        Ok(format!(
            "RuleCache({}, plain_types={})",
            self.modes.bind(py).repr()?,
            types.repr()?
        ))
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let args = (self.modes.clone_ref(py), self.plain.types(py));
        (py.get_type::<RuleCache>(), args).into_pyobject(py)
    }
}

/// Where a check reads its allow rules from once it needs them.
pub struct AllowSource {
    cache: Py<RuleCache>,
    context: Py<PyAny>,
    name: Py<PyString>,
}

impl AllowSource {
    /// The allow rules for the tool, compiled (or from the cache).
    pub fn load(&self, py: Python<'_>) -> PyResult<Arc<Snapshot>> {
        self.cache
            .get()
            .load(self.context.bind(py), RuleList::Allow, self.name.bind(py))
    }
}

impl RuleCache {
    /// The mode `value` is, compared like AgentScope's dispatch (`==` against each member).
    fn mode_of(&self, value: &Bound<'_, PyAny>) -> PyResult<Mode> {
        let modes = self.modes.bind(value.py());
        if let Some(index) = modes.iter().position(|m| m.is(value)) {
            return Ok(Mode::ALL[index]);
        }
        for (index, member) in modes.iter().enumerate() {
            if value.eq(member)? {
                return Ok(Mode::ALL[index]);
            }
        }
        let shown = value.call_method1(intern!(value.py(), "__format__"), ("",))?;
        Err(UnknownModeError::new_err(format!(
            "Unknown permission mode: {}",
            shown.str()?
        )))
    }

    /// `context.<list>_rules.get(name, [])`, compiled or from the cache.
    fn load(
        &self,
        context: &Bound<'_, PyAny>,
        list: RuleList,
        name: &Bound<'_, PyString>,
    ) -> PyResult<Arc<Snapshot>> {
        let py = context.py();
        let field = match list {
            RuleList::Deny => intern!(py, "deny_rules"),
            RuleList::Ask => intern!(py, "ask_rules"),
            RuleList::Allow => intern!(py, "allow_rules"),
        };
        let rules = self.plain.getattr(context, field)?;
        let mut uncached = Lists::default();
        let mut guard = match self.lists.try_lock() {
            Ok(guard) => Some(guard),
            Err(TryLockError::Poisoned(poisoned)) => Some(poisoned.into_inner()),
            Err(TryLockError::WouldBlock) => None,
        };
        let lists = guard.as_deref_mut().unwrap_or(&mut uncached);
        let (snapshot, compiled) = load(&rules, name, &mut lists[list.index()], &self.plain)?;
        self.compiled.fetch_add(compiled, Ordering::Relaxed);
        Ok(snapshot)
    }
}

/// `tool_input[key]` when it is absent (`Ok(None)`), None or a str; `Err(())` for anything else.
fn text_field(input: &Bound<'_, PyDict>, key: &str) -> PyResult<Result<Option<String>, ()>> {
    let Some(value) = input.get_item(key)? else {
        return Ok(Ok(None));
    };
    if value.is_none() {
        return Ok(Ok(None));
    }
    match value.cast_exact::<PyString>().ok().and_then(|s| s.to_str().ok()) {
        Some(text) => Ok(Ok(Some(text.to_owned()))),
        None => Ok(Err(())),
    }
}

/// The invocation facts the native matcher of `kind` reads; `Subject::Tool` whenever the input is
/// not plain enough to be sure of the tool's own reading.
fn subject(kind: u8, tool_input: &Bound<'_, PyAny>) -> PyResult<Subject> {
    if kind == KIND_DEFAULT {
        return Ok(Subject::NoContent);
    }
    let Ok(input) = tool_input.cast_exact::<PyDict>() else {
        return Ok(Subject::Tool);
    };
    let chars = |s: Option<String>| s.map(|s| s.chars().collect::<Vec<char>>());
    Ok(match kind {
        KIND_BASH => match text_field(input, "command")? {
            Ok(command) => Subject::Command(command.unwrap_or_default()),
            Err(()) => Subject::Tool,
        },
        KIND_FILE => match text_field(input, "file_path")? {
            Ok(path) => Subject::FilePath(chars(path)),
            Err(()) => Subject::Tool,
        },
        KIND_GLOB => match (text_field(input, "path")?, text_field(input, "pattern")?) {
            (Ok(path), Ok(pattern)) => Subject::Search {
                path: chars(path),
                pattern: chars(pattern),
            },
            _ => Subject::Tool,
        },
        KIND_GREP => match text_field(input, "path")? {
            Ok(Some(path)) if !path.is_empty() => Subject::FilePath(chars(Some(path))),
            _ => Subject::Tool,
        },
        KIND_DEFAULT => Subject::NoContent,
        KIND_TOOL => Subject::Tool,
        other => {
            return Err(InvalidInputError::new_err(format!(
                "unknown matcher kind {other} (expected 0-4)"
            )));
        }
    })
}
