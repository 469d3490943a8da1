//! What the Task tools' index saw of each `Task`, and the C-level reads that compare the live
//! list with it without taking or dropping references (under the stable ABI each reference
//! count change is a function call, which made the per-task check cost about twice as much).

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString};

use crate::core::tasks::Id;

/// One indexed task: the `Task` object and the id object it had when last read. Holding the id
/// object keeps its address from being reused, so "same address" means "same str".
pub struct Seen {
    /// The `Task` object at this position.
    pub task: Py<PyAny>,
    /// Its `id` attribute when last read.
    pub id: Py<PyAny>,
}

/// How attributes of the index's `Task` class may be read: straight through Python's generic
/// lookup (the class and its bases define no `__getattribute__` of their own) or the usual way.
#[derive(Clone, Copy, Debug)]
pub enum Lookup<'a, 'py> {
    /// Instances of exactly this class are read with `PyObject_GenericGetAttr`.
    Generic(&'a Bound<'py, PyAny>),
    /// Every attribute is read with `getattr`.
    Usual,
}

impl<'a, 'py> Lookup<'a, 'py> {
    /// How to read attributes of instances of `task_type` (checked once per pass: a class's
    /// `__getattribute__` can be replaced at any time).
    pub fn of(task_type: &'a Bound<'py, PyAny>) -> PyResult<Self> {
        let py = task_type.py();
        let name = pyo3::intern!(py, "__getattribute__");
        let generic = task_type
            .getattr(name)?
            .is(py.get_type::<pyo3::types::PyAny>().getattr(name)?);
        Ok(if generic {
            Lookup::Generic(task_type)
        } else {
            Lookup::Usual
        })
    }

    /// `getattr(obj, name)`. For an instance of exactly the generic class this is what
    /// `getattr` does, minus the class's `__getattr__` hook on a miss (a miss then takes the
    /// usual way, hook included), so the two always agree.
    pub fn attr(self, obj: &Bound<'py, PyAny>, name: &Bound<'py, PyString>) -> PyResult<Bound<'py, PyAny>> {
        if let Lookup::Generic(cls) = self
            && obj.get_type().is(cls)
        {
            // SAFETY: both objects are alive and we hold the GIL; the result is a new
            // reference or NULL with an error set.
            let found = unsafe { ffi::PyObject_GenericGetAttr(obj.as_ptr(), name.as_ptr()) };
            if !found.is_null() {
                // SAFETY: `found` is a new, non-NULL reference.
                return Ok(unsafe { Bound::from_owned_ptr(obj.py(), found) });
            }
            drop(PyErr::take(obj.py()));
        }
        obj.getattr(name)
    }
}

/// Whether position `pos` of `list` holds `task` (false past the end).
pub fn holds_at(list: &Bound<'_, PyList>, pos: usize, task: &Py<PyAny>) -> bool {
    let Ok(pos) = ffi::Py_ssize_t::try_from(pos) else {
        return false;
    };
    // SAFETY: `list` is a live list and we hold the GIL. PyList_GetItem returns a borrowed
    // reference (only compared as an address here, never used) or NULL with IndexError set,
    // which is cleared.
    let item = unsafe { ffi::PyList_GetItem(list.as_ptr(), pos) };
    if item.is_null() {
        drop(PyErr::take(list.py()));
        return false;
    }
    item == task.as_ptr()
}

/// Whether `obj` is a str whose text is `text` (false for surrogates, which have no UTF-8).
pub fn is_text(obj: &Bound<'_, PyAny>, text: &str) -> bool {
    // SAFETY: `obj` is alive (borrowed for the call) and we hold the GIL.
    unsafe { str_equals(obj.py(), obj.as_ptr(), text) }
}

/// Whether `obj` is a list of str equal, item by item, to `cached` (no reference is taken).
pub fn same_ids(obj: &Bound<'_, PyAny>, cached: &[Id]) -> bool {
    let Ok(list) = obj.cast::<PyList>() else {
        return false;
    };
    list.len() == cached.len()
        && cached.iter().enumerate().all(|(i, id)| {
            // SAFETY: `i` is below the length just read, and nothing between the two reads
            // runs Python code (str comparison runs none), so the list cannot change; the
            // borrowed item stays alive while the list holds it.
            unsafe {
                let item = ffi::PyList_GetItem(list.as_ptr(), i as ffi::Py_ssize_t);
                !item.is_null() && str_equals(list.py(), item, id)
            }
        })
}

/// # Safety
/// `obj` must point to a live object and the GIL must be held.
unsafe fn str_equals(py: Python<'_>, obj: *mut ffi::PyObject, text: &str) -> bool {
    // SAFETY: per the contract; PyUnicode_AsUTF8AndSize returns the str's cached UTF-8 buffer
    // (alive as long as the str), or NULL with an error set, which is cleared.
    unsafe {
        if ffi::PyUnicode_Check(obj) == 0 {
            return false;
        }
        let mut size: ffi::Py_ssize_t = 0;
        let data = ffi::PyUnicode_AsUTF8AndSize(obj, &mut size);
        if data.is_null() {
            drop(PyErr::take(py));
            return false;
        }
        std::slice::from_raw_parts(data.cast::<u8>(), size as usize) == text.as_bytes()
    }
}
