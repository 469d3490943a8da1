//! Bindings for the shell area: `classify_shell(command) -> ShellVerdict`.

use pyo3::prelude::*;
use pyo3::types::{PyString, PyTuple};

use super::errors::InvalidInput;
use crate::core::shell::{self, Dialect, Verdict};

/// Whether a shell command line is provably read-only, and why.
///
/// `read_only` is true only when every part of the command line is on the read-only allow-list;
/// `reason` names the programs checked or the offending part; `offending` is its source text.
#[pyclass(module = "planmode._core", name = "ShellVerdict", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct PyShellVerdict {
    inner: Verdict,
}

#[pymethods]
impl PyShellVerdict {
    #[new]
    #[pyo3(signature = (read_only, reason, offending=None))]
    fn new(read_only: bool, reason: String, offending: Option<String>) -> Self {
        Self {
            inner: Verdict {
                read_only,
                reason,
                offending,
            },
        }
    }

    /// True only when every part of the command line is provably read-only.
    #[getter]
    fn read_only(&self) -> bool {
        self.inner.read_only
    }

    /// The programs that were checked, or what makes the command not read-only.
    #[getter]
    fn reason(&self) -> &str {
        &self.inner.reason
    }

    /// The source text of the offending part, when there is one.
    #[getter]
    fn offending(&self) -> Option<&str> {
        self.inner.offending.as_deref()
    }

    fn __repr__(&self) -> String {
        let offending = self
            .inner
            .offending
            .as_deref()
            .map_or_else(|| "None".to_owned(), py_str_repr);
        format!(
            "ShellVerdict(read_only={}, reason={}, offending={offending})",
            if self.inner.read_only { "True" } else { "False" },
            py_str_repr(&self.inner.reason),
        )
    }

    fn __getnewargs__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let Verdict {
            read_only,
            reason,
            offending,
        } = self.inner.clone();
        (read_only, reason, offending).into_pyobject(py)
    }
}

/// A Python-style string literal (single quotes, escapes) for `__repr__`.
fn py_str_repr(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('\'');
    for c in s.chars() {
        match c {
            '\'' => out.push_str("\\'"),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => out.push_str(&format!("\\x{:02x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// Classifies a shell command line as read-only or not (fail closed).
///
/// `dialect` is the shell that will run it: `"sh"` (the default: some POSIX `/bin/sh`, as
/// AgentScope's Bash tool runs, so only the grammar dash and bash read alike is accepted) or
/// `"bash"`. Never raises for any string: input that cannot be parsed, is too long, too deeply
/// nested, contains NUL or is not valid Unicode gets a not-read-only verdict saying so. A
/// non-string command or an unknown dialect raises `InvalidInputError`.
#[pyfunction]
#[pyo3(signature = (command, *, dialect = "sh"))]
fn classify_shell(py: Python<'_>, command: &Bound<'_, PyAny>, dialect: &str) -> PyResult<PyShellVerdict> {
    let Ok(text) = command.cast::<PyString>() else {
        let type_name = command.get_type().name()?;
        return Err(InvalidInput(format!("command must be a str, not {type_name}")).into());
    };
    let Some(dialect) = Dialect::from_name(dialect) else {
        return Err(InvalidInput(format!("dialect must be 'sh' or 'bash', not {dialect:?}")).into());
    };
    let verdict = match text.to_str() {
        Ok(command) => py.detach(|| shell::classify_as(command, dialect)),
        Err(_) => Verdict {
            read_only: false,
            reason: "command is not valid Unicode (it contains lone surrogates)".to_owned(),
            offending: None,
        },
    };
    Ok(PyShellVerdict { inner: verdict })
}

/// Adds this area's classes and functions to `planmode._core`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyShellVerdict>()?;
    m.add_function(wrap_pyfunction!(classify_shell, m)?)?;
    Ok(())
}
