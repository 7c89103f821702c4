"""The addresses of SciPy's LAPACK routines, for compiled code that calls LAPACK.

`scipy.linalg.cython_lapack.__pyx_capi__` holds one PyCapsule per routine with the address
of its C wrapper (numba calls LAPACK the same way). A loaded module that calls LAPACK has
the global TABLE_GLOBAL (ir/lapack_contract.py); `bind` points it at one process-wide array
of the routines' addresses, in ROUTINES order, built on first need. Without SciPy the
global stays null and a LAPACK call returns LAPACK_MISSING (ImportError at the call).
"""

from __future__ import annotations

import ctypes
import functools
import importlib.util
from typing import Any

from tracejit.ir.lapack_contract import ROUTINES, TABLE_GLOBAL


@functools.cache
def available() -> bool:
    """Whether SciPy's LAPACK can be called (SciPy is installed)."""
    return importlib.util.find_spec("scipy") is not None


@functools.cache
def _table() -> ctypes.Array | None:
    """The routines' addresses in ROUTINES order (kept for the process's life), or None
    without SciPy."""
    if not available():
        return None
    from scipy.linalg import cython_lapack

    capsules = cython_lapack.__pyx_capi__
    get_name = ctypes.pythonapi.PyCapsule_GetName
    get_name.restype, get_name.argtypes = ctypes.c_char_p, [ctypes.py_object]
    get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
    get_pointer.restype = ctypes.c_void_p
    get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    addresses = [get_pointer(capsules[r], get_name(capsules[r])) for r in ROUTINES]
    return (ctypes.c_void_p * len(ROUTINES))(*addresses)


def routine_address(name: str) -> int | None:
    """The address of one routine (tests), or None without SciPy."""
    table = _table()
    return None if table is None else table[ROUTINES.index(name)]


def bind(engine: Any) -> None:
    """Fill in a loaded module's LAPACK table, if it calls LAPACK and SciPy is installed."""
    slot = engine.get_global_value_address(TABLE_GLOBAL)
    if not slot:
        return
    table = _table()
    if table is not None:
        ctypes.c_void_p.from_address(slot).value = ctypes.addressof(table)
