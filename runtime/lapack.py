"""The addresses of SciPy's LAPACK and BLAS routines, for compiled code that calls them.

`scipy.linalg.cython_lapack.__pyx_capi__` (and `cython_blas`'s, for BLAS_ROUTINES) holds
one PyCapsule per routine with the address of its C wrapper (numba calls LAPACK the same
way). A loaded module that calls LAPACK has the global TABLE_GLOBAL
(ir/lapack_contract.py); `bind` points it at one process-wide array of the routines'
addresses, in ROUTINES order, built on first need. Without SciPy the global stays null: a
LAPACK call returns LAPACK_MISSING (ImportError at the call), a BLAS call BLAS_MISSING
(the kernel then runs its own matmul).
"""

from __future__ import annotations

import ctypes
import functools
import importlib.util
from typing import Any

from tracejit.ir.lapack_contract import ROUTINES, TABLE_GLOBAL, is_blas


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
    from scipy.linalg import cython_blas, cython_lapack

    lapack, blas = cython_lapack.__pyx_capi__, cython_blas.__pyx_capi__
    get_name = ctypes.pythonapi.PyCapsule_GetName
    get_name.restype, get_name.argtypes = ctypes.c_char_p, [ctypes.py_object]
    get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
    get_pointer.restype = ctypes.c_void_p
    get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    capsules = [(blas if is_blas(r) else lapack)[r] for r in ROUTINES]
    addresses = [get_pointer(c, get_name(c)) for c in capsules]
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
