"""Outputs whose shape only the kernel knows (a dynamic TensorArray's `stack()`).

Such an output cannot go into a buffer the caller allocates beforehand. The trace
returns `tj.export(t)` instead: a small i64 descriptor `[address, dims...]` of a heap
buffer the kernel allocated and no longer frees. The caller turns the descriptor into
a NumPy array over that memory, without a copy; the array's base object frees the
memory when the array is garbage-collected, so nothing leaks.
"""

from __future__ import annotations

import ctypes

import numpy as np

from tracejit.frontend.staging.dims import Unknown
from tracejit.frontend.staging.tensor import Tensor
from tracejit.frontend.staging.tracing import emit
from tracejit.ir.tensor_array import ExportOp

_libc = ctypes.CDLL(None)
_free = _libc.free
_free.argtypes = [ctypes.c_void_p]
_free.restype = None


def exported_outputs(results: list[Tensor]) -> tuple[list[Tensor], dict[int, np.dtype]]:
    """Replace each result with a dim unknown at trace time by its exported descriptor;
    returns the new results and {position: dtype} of the exported ones."""
    exported: dict[int, np.dtype] = {}
    new = list(results)
    for position, tensor in enumerate(results):
        if any(isinstance(d, Unknown) for d in tensor.dims):
            new[position] = Tensor(emit(ExportOp(tensor.value)).result)
            exported[position] = tensor.dtype
    return new, exported


class _KernelBuffer:
    """Owns one kernel allocation; NumPy arrays over it keep it alive as their base."""

    __slots__ = ("__array_interface__", "_address")

    def __init__(self, address: int, shape: tuple[int, ...], dtype: np.dtype):
        self._address = address
        self.__array_interface__ = {
            "data": (address, False),
            "shape": shape,
            "typestr": dtype.str,
            "version": 3,
        }

    def __del__(self, free=_free) -> None:  # bound now: module globals are None at exit
        free(self._address)


def adopt(descriptor: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """The NumPy array over the buffer `descriptor` = [address, dims...] describes."""
    address, *shape = (int(v) for v in descriptor)
    return np.asarray(_KernelBuffer(address, tuple(shape), dtype))
