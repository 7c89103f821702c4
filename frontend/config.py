"""Global switches (`tj.config`)."""

from __future__ import annotations

_run_functions_eagerly = False


def run_functions_eagerly(run_eagerly: bool) -> None:
    """Run every `tj.function` as plain Python on NumPy arrays (for debugging and as the
    reference the tests compare compiled results against)."""
    global _run_functions_eagerly
    _run_functions_eagerly = bool(run_eagerly)


def functions_run_eagerly() -> bool:
    return _run_functions_eagerly
