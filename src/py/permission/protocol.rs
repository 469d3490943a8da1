//! The words of the check protocol between the Rust core and the Python driver
//! (`planmode.agentscope._permission_engine`): each is a Rust enum that converts from or to one
//! Python string, spelled once here, exported as a `typing` alias of the same name
//! (`planmode._core.MatcherKind`...) and mirrored in `planmode/_core.pyi` (checked by a test).

use std::convert::Infallible;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use pyo3::{Borrowed, intern};

use crate::core::permission::Subject;
use crate::core::permission::ToolVerdict;
use crate::core::permission::engine::Behavior;
use crate::py::errors::InvalidInput;

/// Defines an enum whose variants convert from / to fixed Python strings.
macro_rules! words {
    ($(#[$doc:meta])* $name:ident, $what:literal { $($(#[$vdoc:meta])* $variant:ident = $text:literal),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum $name {
            $($(#[$vdoc])* $variant),+
        }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The alias of every value's string: `Union[Literal["a"], Literal["b"], ...]`, the
            /// runtime form of the stub's `Literal["a", "b", ...]`.
            fn literal<'py>(py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
                crate::py::convert::literal_alias(py, Self::ALL.iter().map(|v| v.text()))
            }

            /// The Python string for the value.
            pub fn text(self) -> &'static str {
                match self {
                    $($name::$variant => $text),+
                }
            }

            /// The value a Python string names, or an error listing the valid ones.
            fn parse(text: &str) -> PyResult<$name> {
                Self::ALL.iter().copied().find(|v| v.text() == text).ok_or_else(|| {
                    let valid: Vec<String> = Self::ALL.iter().map(|v| format!("{:?}", v.text())).collect();
                    PyErr::from(InvalidInput(format!(
                        concat!("unknown ", $what, " {:?} (expected one of {})"),
                        text,
                        valid.join(", ")
                    )))
                })
            }
        }

        impl<'a, 'py> FromPyObject<'a, 'py> for $name {
            type Error = PyErr;

            fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<$name> {
                match obj.cast::<PyString>() {
                    Ok(text) => $name::parse(&text.to_cow()?),
                    Err(_) => Err(PyErr::from(InvalidInput(format!(
                        concat!($what, " must be a str, got {}"),
                        obj.get_type().name()?
                    )))),
                }
            }
        }

        impl<'py> IntoPyObject<'py> for $name {
            type Target = PyString;
            type Output = Bound<'py, PyString>;
            type Error = Infallible;

            fn into_pyobject(self, py: Python<'py>) -> Result<Bound<'py, PyString>, Infallible> {
                Ok(match self {
                    $($name::$variant => intern!(py, $text).clone()),+
                })
            }
        }
    };
}

words!(
    /// Which native matcher reproduces a tool's `match_rule` exactly (the Python side decides, by
    /// the identity of the tool's method).
    MatcherKind, "matcher kind" {
        /// None: only the tool's own `match_rule` can judge content rules.
        Tool = "tool",
        /// AgentScope's `Bash.match_rule` (on `command`).
        Bash = "bash",
        /// `Read` / `Write` / `Edit` (on `file_path`).
        File = "file",
        /// `Glob` (on `path` or `pattern`).
        Glob = "glob",
        /// `Grep` (on `path`).
        Grep = "grep",
        /// `ToolBase.match_rule`: content rules never match.
        Default = "default",
    }
);

words!(
    /// What a check needs next from the driver.
    CheckStep, "check step" {
        /// The tool's `match_rule` verdicts on `pending_contents`, in order, up to the first match.
        MatchRules = "match_rules",
        /// The tool's `check_read_only`.
        CheckReadOnly = "check_read_only",
        /// The tool's `check_permissions`.
        CheckPermissions = "check_permissions",
        /// Decided: read `decision`.
        Done = "done",
        /// Decided, and the decision carries the tool's `generate_suggestions`.
        DoneSuggest = "done_suggest",
    }
);

words!(
    /// How the driver classifies the decision a tool's `check_permissions` returned.
    Verdict, "tool verdict" {
        /// ALLOW or DENY: returned as is.
        Final = "final",
        /// ASK with `bypass_immune`.
        SafetyAsk = "safety_ask",
        /// Anything else: the evaluation goes on.
        Continue = "continue",
    }
);

words!(
    /// A decision's behavior: the values of AgentScope's `PermissionBehavior`.
    BehaviorText, "behavior" {
        /// `PermissionBehavior.ALLOW`.
        Allow = "allow",
        /// `PermissionBehavior.DENY`.
        Deny = "deny",
        /// `PermissionBehavior.ASK`.
        Ask = "ask",
    }
);

/// Adds the `Literal` aliases (`MatcherKind`, `CheckStep`, `ToolVerdict`, `BehaviorValue`).
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("MatcherKind", MatcherKind::literal(py)?)?;
    m.add("CheckStep", CheckStep::literal(py)?)?;
    m.add("ToolVerdict", Verdict::literal(py)?)?;
    m.add("BehaviorValue", BehaviorText::literal(py)?)?;
    Ok(())
}

impl From<Verdict> for ToolVerdict {
    fn from(verdict: Verdict) -> ToolVerdict {
        match verdict {
            Verdict::Final => ToolVerdict::Final,
            Verdict::SafetyAsk => ToolVerdict::SafetyAsk,
            Verdict::Continue => ToolVerdict::Continue,
        }
    }
}

impl From<Behavior> for BehaviorText {
    fn from(behavior: Behavior) -> BehaviorText {
        match behavior {
            Behavior::Allow => BehaviorText::Allow,
            Behavior::Deny => BehaviorText::Deny,
            Behavior::Ask => BehaviorText::Ask,
        }
    }
}

/// `tool_input[key]` when it is absent (`Ok(None)`), None or a str; `Err(())` for anything else.
fn text_field(input: &Bound<'_, PyDict>, key: &Bound<'_, PyString>) -> PyResult<Result<Option<String>, ()>> {
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

impl MatcherKind {
    /// The invocation facts this matcher reads from `tool_input`; `Subject::Tool` whenever the
    /// input is not plain enough to be sure of the tool's own reading.
    pub fn subject(self, tool_input: &Bound<'_, PyAny>) -> PyResult<Subject> {
        let py = tool_input.py();
        if self == MatcherKind::Default {
            return Ok(Subject::NoContent);
        }
        let Ok(input) = tool_input.cast_exact::<PyDict>() else {
            return Ok(Subject::Tool);
        };
        let chars = |s: Option<String>| s.map(|s| s.chars().collect::<Vec<char>>());
        Ok(match self {
            MatcherKind::Bash => match text_field(input, intern!(py, "command"))? {
                Ok(command) => Subject::Command(command.unwrap_or_default()),
                Err(()) => Subject::Tool,
            },
            MatcherKind::File => match text_field(input, intern!(py, "file_path"))? {
                Ok(path) => Subject::FilePath(chars(path)),
                Err(()) => Subject::Tool,
            },
            MatcherKind::Glob => match (
                text_field(input, intern!(py, "path"))?,
                text_field(input, intern!(py, "pattern"))?,
            ) {
                (Ok(path), Ok(pattern)) => Subject::Search {
                    path: chars(path),
                    pattern: chars(pattern),
                },
                _ => Subject::Tool,
            },
            MatcherKind::Grep => match text_field(input, intern!(py, "path"))? {
                Ok(Some(path)) if !path.is_empty() => Subject::FilePath(chars(Some(path))),
                _ => Subject::Tool,
            },
            MatcherKind::Default => Subject::NoContent,
            MatcherKind::Tool => Subject::Tool,
        })
    }
}
