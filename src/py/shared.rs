//! A value that the Python threads sharing one pyclass instance take turns with: a caller waits
//! for its turn with the GIL released (so the thread holding the value can finish, even if it
//! needs the GIL), and a thread that re-enters a call it is already in gets `PlanModeError`
//! instead of a deadlock. Pyclasses built on it are `frozen`, so pyo3 never raises
//! `RuntimeError: Already borrowed` and no caller ever sees a half-made change.

use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

use pyo3::prelude::*;
use pyo3::sync::MutexExt;

use super::errors::Reentered;

/// A value behind a lock that knows which thread holds it.
#[derive(Debug)]
pub struct Shared<T> {
    value: Mutex<T>,
    /// The mark of the thread holding the lock (0 when free).
    holder: AtomicUsize,
    /// The class name, for the re-entry error.
    what: &'static str,
}

/// One caller's turn with the value; the next caller goes when it is dropped.
pub struct Turn<'a, T> {
    guard: MutexGuard<'a, T>,
    holder: &'a AtomicUsize,
}

/// A number unique to the current thread while it lives (the address of a thread-local).
fn thread_mark() -> usize {
    thread_local! {
        static MARK: u8 = const { 0 };
    }
    MARK.with(|m| std::ptr::from_ref(m) as usize)
}

impl<T> Shared<T> {
    /// Wraps `value`; `what` names the class in errors.
    pub fn new(value: T, what: &'static str) -> Self {
        Self {
            value: Mutex::new(value),
            holder: AtomicUsize::new(0),
            what,
        }
    }

    /// Waits for this thread's turn (the GIL released while waiting); refuses re-entry.
    pub fn lock(&self, py: Python<'_>) -> PyResult<Turn<'_, T>> {
        let me = thread_mark();
        if self.holder.load(Ordering::Acquire) == me {
            return Err(Reentered(self.what).into());
        }
        // No call panics by design; should one, the value is still whole (each change is made
        // atomically by the core), so a poisoned lock is simply taken over.
        let guard = self
            .value
            .lock_py_attached(py)
            .unwrap_or_else(PoisonError::into_inner);
        self.holder.store(me, Ordering::Release);
        Ok(Turn {
            guard,
            holder: &self.holder,
        })
    }
}

impl<T> Deref for Turn<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.guard
    }
}

impl<T> DerefMut for Turn<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.guard
    }
}

impl<T> Drop for Turn<'_, T> {
    fn drop(&mut self) {
        // Cleared before the guard (a field) unlocks.
        self.holder.store(0, Ordering::Release);
    }
}
