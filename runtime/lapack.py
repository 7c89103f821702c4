"""The addresses of the LAPACK and BLAS routines compiled code calls.

`scipy.linalg.cython_lapack.__pyx_capi__` (and `cython_blas`'s) holds one PyCapsule per
routine with the address of its C wrapper (numba calls LAPACK the same way). BLAS routines
come first from NumPy's own OpenBLAS when its wheel bundles one (always on PyPI's wheels:
64-bit integers, symbols `scipy_dgemm_64_`): every NumPy user has it, without SciPy, and it
is the library NumPy's `@` calls, a newer one than SciPy's (its sgemm ~4% faster on Zen 4).
The compiled call passes integers so that either library reads them (ir/lapack_contract.py).

A loaded module that calls BLAS has the global TABLE_GLOBAL, one that calls LAPACK
LAPACK_TABLE_GLOBAL (ir/lapack_contract.py); `bind` points them at one process-wide array of
the routines' addresses, in ROUTINES order, built on first need, with a null entry for a
routine neither library has. A null entry (or table) makes a LAPACK call return
LAPACK_MISSING (ImportError at the call), a BLAS call BLAS_MISSING (the kernel then runs its
own matmul).

The array's BLAS entries come from NumPy's OpenBLAS when it is built; SciPy's routines are
added when the first module that calls LAPACK is bound (`_add_scipy_routines`). Importing
`scipy.linalg` takes ~0.2 s, which a first call that only multiplies matrices (a LeNet
forward) paid before. Where NumPy's library lacks a BLAS routine, SciPy's are added at once.
"""

from __future__ import annotations

import ctypes
import functools
import importlib.util
import sys
import threading
from pathlib import Path
from typing import Any

from tracejit.ir.lapack_contract import LAPACK_TABLE_GLOBAL, ROUTINES, TABLE_GLOBAL, is_blas


@functools.cache
def available() -> bool:
    """Whether SciPy's LAPACK can be called (SciPy is installed)."""
    return importlib.util.find_spec("scipy") is not None


def blas_available() -> bool:
    """Whether compiled code can call a BLAS (NumPy's own, or SciPy's)."""
    return _numpy_blas() is not None or available()


@functools.cache
def _table() -> ctypes.Array | None:
    """The routines' addresses in ROUTINES order (kept for the process's life; 0 for a
    routine no library here has), or None when none has any: NumPy's BLAS now, SciPy's
    routines when a module first calls LAPACK (or now, for a BLAS routine NumPy's lacks)."""
    global _scipy_pending
    table = addresses(scipy=False, numpy_blas=True)
    if not available():
        return table
    blas = [i for i, routine in enumerate(ROUTINES) if is_blas(routine)]
    if table is None or not all(table[i] for i in blas):
        return addresses(scipy=True, numpy_blas=True)
    _scipy_pending = table
    return table


_scipy_pending: ctypes.Array | None = None
"""The process's table while SciPy's routines are not in it yet."""
_scipy_lock = threading.Lock()


def _add_scipy_routines(table: ctypes.Array) -> None:
    """Fill `table`'s null entries from SciPy, the first time a module calls LAPACK."""
    global _scipy_pending
    with _scipy_lock:
        if table is not _scipy_pending:
            return  # done, or not the table `_table` left pending (a test's own)
        scipy = addresses(scipy=True, numpy_blas=False)
        if scipy is not None:
            for i, address in enumerate(scipy):
                if not table[i]:
                    table[i] = address
        _scipy_pending = None


def addresses(scipy: bool, numpy_blas: bool) -> ctypes.Array | None:
    """The table `_table` makes from the libraries named (tests leave one out)."""
    scipy_routines = _scipy_routines() if scipy else {}
    numpy_routine = _numpy_blas() if numpy_blas else None
    table = []
    for routine in ROUTINES:
        ours = numpy_routine(routine) if numpy_routine and is_blas(routine) else None
        if is_blas(routine) and sys.byteorder != "little":  # a 32-bit BLAS would read the
            scipy_routines.pop(routine, None)  # i64 slots' high halves (lapack_contract.py)
        table.append(ours or scipy_routines.get(routine, 0))
    if not any(table):
        return None
    return (ctypes.c_void_p * len(ROUTINES))(*table)


def _scipy_routines() -> dict[str, int]:
    from scipy.linalg import cython_blas, cython_lapack

    lapack, blas = cython_lapack.__pyx_capi__, cython_blas.__pyx_capi__
    get_name = ctypes.pythonapi.PyCapsule_GetName
    get_name.restype, get_name.argtypes = ctypes.c_char_p, [ctypes.py_object]
    get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
    get_pointer.restype = ctypes.c_void_p
    get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    capsules = {r: (blas if is_blas(r) else lapack)[r] for r in ROUTINES}
    return {r: get_pointer(c, get_name(c)) for r, c in capsules.items()}


# Where NumPy's wheels put the OpenBLAS they bundle (Linux and Windows, macOS), relative to
# the `numpy` package directory, and its symbols' names.
_NUMPY_BLAS_GLOBS = ("../numpy.libs/*openblas64_*", ".dylibs/*openblas64_*")
_NUMPY_BLAS_SYMBOL = "scipy_{}_64_"


@functools.cache
def numpy_blas_library() -> ctypes.CDLL | None:
    """NumPy's own OpenBLAS, or None when NumPy bundles none (built on another BLAS)."""
    import numpy as np

    package = Path(np.__file__).parent
    for pattern in _NUMPY_BLAS_GLOBS:
        for path in sorted(package.glob(pattern)):
            try:
                library = ctypes.CDLL(str(path))
            except OSError:
                continue
            if hasattr(library, _NUMPY_BLAS_SYMBOL.format("dgemm")):
                return library
    return None


def _numpy_blas() -> Any:
    """A function from a BLAS routine's name to its address in NumPy's own OpenBLAS (0 if
    it lacks it), or None when NumPy bundles none."""
    library = numpy_blas_library()
    if library is None:
        return None
    return lambda routine: _address(library, routine)


def _address(library: ctypes.CDLL, routine: str) -> int:
    symbol = getattr(library, _NUMPY_BLAS_SYMBOL.format(routine), None)
    return 0 if symbol is None else ctypes.cast(symbol, ctypes.c_void_p).value or 0


def routine_address(name: str) -> int | None:
    """The address of one routine (tests), or None when no library has it."""
    table = _table()
    return (table[ROUTINES.index(name)] or None) if table is not None else None


def bind(engine: Any) -> None:
    """Fill in a loaded module's tables, if it calls LAPACK or BLAS and a library has any."""
    slots = {name: engine.get_global_value_address(name)
             for name in (TABLE_GLOBAL, LAPACK_TABLE_GLOBAL)}  # fmt: skip
    if not any(slots.values()):
        return
    table = _table()
    if table is None:
        return
    if slots[LAPACK_TABLE_GLOBAL]:
        _add_scipy_routines(table)
    for slot in slots.values():
        if slot:
            ctypes.c_void_p.from_address(slot).value = ctypes.addressof(table)
