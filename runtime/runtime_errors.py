"""Turning a kernel's non-zero status into the Python exception its message names.

Compiled kernels return 0 or the 1-based index of the failed check's message (see
`passes/lower_asserts.py`); messages look like "IndexError: index 3 is out of bounds".
A failed bounds check of a `TRACEJIT_CHECK_BOUNDS=1` build is such a check too
("OutOfBoundsError: <op> at <location>"): in a traced function it is a compiler bug.
Negative statuses come from the code generator itself (`KERNEL_ERRORS`): OUT_OF_MEMORY when
a kernel's own heap allocation fails, LAPACK_MISSING when it calls LAPACK in a process
without SciPy. (-1..-3 are the array-object entry point's "take the
slow path" answers, `codegen/pyobject_entry.py`, never seen here.)
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence

import numpy as np

from tracejit.ir.lapack_contract import MISSING_TEXT
from tracejit.ir.runtime_contract import (
    BOUNDS_ERROR,
    LAPACK_MISSING,
    OUT_OF_MEMORY,
    split_message,
)
from tracejit.runtime.errors import FailedPreconditionError, InvalidArgumentError

ERROR_TYPES: dict[str, type[Exception]] = {
    "IndexError": IndexError,
    "ValueError": ValueError,
    "AssertionError": AssertionError,
    "InvalidArgumentError": InvalidArgumentError,
    "FailedPreconditionError": FailedPreconditionError,
    "LinAlgError": np.linalg.LinAlgError,  # a singular or not positive definite matrix
}


KERNEL_ERRORS: dict[int, tuple[type[Exception], str]] = {
    OUT_OF_MEMORY: (MemoryError, "a compiled kernel could not allocate a temporary buffer"),
    LAPACK_MISSING: (ImportError, f"this compiled function {MISSING_TEXT}"),
}


def raise_for_status(status: int, messages: Sequence[str]) -> None:
    if status in KERNEL_ERRORS:
        error_type, text = KERNEL_ERRORS[status]
        raise error_type(text)
    if not 0 < status <= len(messages):
        raise RuntimeError(f"compiled kernel returned an unknown status {status}")
    name, text = split_message(messages[status - 1])
    if name == BOUNDS_ERROR:
        raise IndexError(
            f"internal out-of-bounds access by {text} in a compiled kernel (a tracejit bug: "
            "please report it with the function; found by TRACEJIT_CHECK_BOUNDS=1)"
        )
    if name == "KeyboardInterrupt":  # Ctrl-C stopped a staged loop (codegen/interrupts.py)
        _raise_interrupt(text)
    raise _error_type(name)(text)


def _error_type(name: str) -> type[Exception]:
    """The exception a check names: ours, or a builtin one (a `raise KeyError(...)` in a
    staged branch), else InvalidArgumentError."""
    known = ERROR_TYPES.get(name) or getattr(builtins, name, None)
    if isinstance(known, type) and issubclass(known, Exception):
        return known
    return InvalidArgumentError


def _raise_interrupt(text: str) -> None:
    """Raise the KeyboardInterrupt of the Ctrl-C that stopped the kernel: Python's own, by
    running its pending signal handler now (else it would raise a second one later), or
    ours if it was handled already (or a handler of the user's swallowed it)."""
    import ctypes

    from tracejit.codegen import interrupts

    interrupts.clear()
    ctypes.pythonapi.PyErr_CheckSignals()  # raises the pending KeyboardInterrupt, if any
    raise KeyboardInterrupt(text)
