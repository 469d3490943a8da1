"""The package imports, exposes its version and its exception hierarchy."""

import planmode
from planmode import exceptions


def test_version_matches_core() -> None:
    assert planmode.__version__ == planmode._core.__version__
    assert planmode.__version__.count(".") == 2


def test_exceptions_subclass_the_builtins_users_catch() -> None:
    assert issubclass(exceptions.InvalidInputError, ValueError)
    assert issubclass(exceptions.StateLoadError, ValueError)
    assert issubclass(exceptions.CycleError, ValueError)
    assert issubclass(exceptions.TaskNotFoundError, KeyError)
    assert issubclass(exceptions.UnknownModeError, ValueError)
    for name in exceptions.__all__:
        assert issubclass(getattr(exceptions, name), exceptions.PlanModeError)
    assert str(exceptions.TaskNotFoundError("task 7 not found")) == "task 7 not found"
