"""What the array-object entry points (`pyobject_entry.py`) read and are named, and whether
they can be used in this process, importable without llvmlite (a persistent-cache hit loads
machine code and calls it through these names without generating any)."""

from __future__ import annotations

import ctypes

import numpy as np

TYPE_OFFSET = 8
DATA_OFFSET = 16
DIMENSIONS_OFFSET = 32
DESCR_OFFSET = 56
FLAGS_OFFSET = 64
C_CONTIGUOUS_AND_ALIGNED = 0x0001 | 0x0100  # NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED
NDIM_OFFSET = 24
SUFFIX = "__pyentry"
EXPECT_SUFFIX = "__pyexpect"
FASTCALL_SUFFIX = "__pyfast"
# Kernels touching fewer elements than this keep the GIL during the call: releasing and
# re-acquiring it costs more than they run. Larger ones release it for other threads.
SMALL_KERNEL_ELEMENTS = 1 << 16
# The CPython C API functions the fastcall wrapper calls (bound by `jit._initialize`).
PYTHON_API = ("PyLong_FromLongLong", "PyEval_SaveThread", "PyEval_RestoreThread")


def layout_is_supported() -> bool:
    """Whether NumPy's array struct has the data/dims fields where the entry reads them."""
    if ctypes.sizeof(ctypes.c_void_p) != 8:
        return False
    probe = np.arange(6, dtype=np.int64).reshape(2, 3)
    base = id(probe)
    data = ctypes.c_void_p.from_address(base + DATA_OFFSET).value
    dims = ctypes.c_void_p.from_address(base + DIMENSIONS_OFFSET).value
    if data != probe.ctypes.data or not dims:
        return False
    type_pointer = ctypes.c_void_p.from_address(base + TYPE_OFFSET).value
    descr = ctypes.c_void_p.from_address(base + DESCR_OFFSET).value
    if type_pointer != id(np.ndarray) or descr != id(probe.dtype):
        return False
    if list((ctypes.c_int64 * 2).from_address(dims)) != [2, 3]:
        return False
    return _flags(probe) & C_CONTIGUOUS_AND_ALIGNED == C_CONTIGUOUS_AND_ALIGNED and not (
        _flags(probe.T) & 0x0001
    )


def _flags(array: np.ndarray) -> int:
    return ctypes.c_int32.from_address(id(array) + FLAGS_OFFSET).value


def fastcall_supported() -> bool:
    """Whether `__pyfast` wrappers may be called here: CPython with a GIL (the wrapper's
    reference count increment is not atomic) and the array layout the entry reads."""
    import sys
    import sysconfig

    return (
        sys.implementation.name == "cpython"
        and not sysconfig.get_config_var("Py_GIL_DISABLED")
        and layout_is_supported()
    )
