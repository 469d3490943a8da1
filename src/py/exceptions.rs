//! The Python exception classes raised from Rust; they are defined in `planmode/exceptions.py`
//! so that each can also subclass the builtin a Python user would catch.

pyo3::import_exception!(planmode.exceptions, PlanModeError);
pyo3::import_exception!(planmode.exceptions, InvalidInputError);
pyo3::import_exception!(planmode.exceptions, StateLoadError);
pyo3::import_exception!(planmode.exceptions, TaskNotFoundError);
pyo3::import_exception!(planmode.exceptions, CycleError);
pyo3::import_exception!(planmode.exceptions, PlanStateError);
pyo3::import_exception!(planmode.exceptions, PathEscapeError);
pyo3::import_exception!(planmode.exceptions, UnknownModeError);
pyo3::import_exception!(planmode.exceptions, SandboxUnavailableError);
