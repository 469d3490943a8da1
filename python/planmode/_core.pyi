"""Type stubs for the compiled module ``planmode._core`` (checked by mypy.stubtest in CI)."""

__all__ = [
    "__version__",
    # ---- tasks ----
    # ---- shell ----
    # ---- permission ----
    # ---- plan ----
]

__version__: str

# ---- task graph (tasks) ----


# ---- shell classifier (shell) ----


# ---- permission engine (permission) ----


# ---- plan-mode manager (plan) ----
