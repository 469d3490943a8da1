//! Fast attribute reads on pydantic models.
//!
//! pydantic's `BaseModel` defines `__getattr__`, which makes CPython route every attribute read
//! through a slow Python-level hook (about 110 ns); reading each rule's `rule_content` on every
//! check depends on doing better. For a class that does not override `__getattribute__` and has no
//! class attribute of the name (so no descriptor can intervene), `obj.name` is exactly
//! `obj.__dict__[name]` whenever that key exists, which costs about 15 ns.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyType};
use pyo3::{PyTypeInfo, ffi};

use crate::py::exceptions::InvalidInputError;

/// Classes whose instances' attributes (of the names given) are read from the instance dict.
pub struct PlainTypes(Vec<Py<PyType>>);

impl PlainTypes {
    /// Accepts `types` after checking that none overrides `__getattribute__` or has a class
    /// attribute named in `names`.
    pub fn new(types: &[Bound<'_, PyType>], names: &[&str]) -> PyResult<PlainTypes> {
        let Some(first) = types.first() else {
            return Ok(PlainTypes(Vec::new()));
        };
        let generic = PyAny::type_object(first.py()).getattr("__getattribute__")?;
        for ty in types {
            if !ty.getattr("__getattribute__")?.is(&generic) {
                return Err(InvalidInputError::new_err(format!(
                    "{} overrides __getattribute__; its attributes cannot be read directly",
                    ty.repr()?
                )));
            }
            if let Some(name) = names.iter().find(|n| ty.hasattr(**n).unwrap_or(true)) {
                return Err(InvalidInputError::new_err(format!(
                    "{} has a class attribute {name:?}; its instances' {name:?} cannot be read directly",
                    ty.repr()?
                )));
            }
        }
        Ok(PlainTypes(types.iter().map(|t| t.clone().unbind()).collect()))
    }

    /// Whether `obj.<name>` is `expected` (same object), reading as [`PlainTypes::getattr`] does.
    pub fn attr_is(
        &self,
        obj: &Bound<'_, PyAny>,
        name: &Bound<'_, PyString>,
        expected: &Py<PyAny>,
    ) -> PyResult<bool> {
        let ty = obj.get_type_ptr();
        if self.0.iter().any(|t| t.as_ptr().cast() == ty) {
            // SAFETY: `obj`, `name` and `expected` are live for the whole block. GenericGetDict
            // returns a new reference (released below) or NULL with an exception set;
            // PyDict_GetItemWithError returns a borrowed reference that is only compared.
            unsafe {
                let dict = ffi::PyObject_GenericGetDict(obj.as_ptr(), std::ptr::null_mut());
                if !dict.is_null() {
                    let found = ffi::PyDict_GetItemWithError(dict, name.as_ptr());
                    ffi::Py_DecRef(dict);
                    if !found.is_null() {
                        return Ok(std::ptr::eq(found, expected.as_ptr()));
                    }
                }
                if !ffi::PyErr_Occurred().is_null() {
                    ffi::PyErr_Clear();
                }
            }
        }
        Ok(self.getattr(obj, name)?.is(expected))
    }

    /// The types, for pickling.
    pub fn types<'py>(&self, py: Python<'py>) -> Vec<Bound<'py, PyType>> {
        self.0.iter().map(|t| t.bind(py).clone()).collect()
    }

    /// `obj.<name>`: from the instance dict for instances of exactly one of the plain types when
    /// the key is there, else a normal attribute read.
    pub fn getattr<'py>(
        &self,
        obj: &Bound<'py, PyAny>,
        name: &Bound<'py, PyString>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let ty = obj.get_type();
        if self.0.iter().any(|t| t.is(&ty)) {
            // SAFETY: `obj` is a live reference held for the duration of the call;
            // PyObject_GenericGetDict returns a new reference, or NULL with an exception set.
            let dict = unsafe {
                Bound::from_owned_ptr_or_err(
                    obj.py(),
                    ffi::PyObject_GenericGetDict(obj.as_ptr(), std::ptr::null_mut()),
                )
            };
            if let Ok(dict) = dict
                && let Ok(dict) = dict.cast_into::<PyDict>()
                && let Some(value) = dict.get_item(name)?
            {
                return Ok(value);
            }
        }
        obj.getattr(name)
    }
}
