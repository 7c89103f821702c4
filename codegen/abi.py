"""The calling convention of compiled kernels.

For `func.func @f(%a0, %a1, ...)` the LLVM function `@f` takes, in order:

1. for each argument in argument order: a `ptr` to the first element if the argument is a
   memref (identity layout, contiguous row-major, offset 0), else the scalar value itself
   (`index` is passed as i64, `iN` as iN, `f32`/`f64` as float/double);
2. then one `i64` per dynamic (`?`) dim of the memref arguments, in argument order and, within
   one memref, in dim order.

It returns void (a func with one scalar result returns that scalar; more results are not
supported). Memref element types map to NumPy dtypes (`i1` elements are one byte, 0 or 1, like
`np.bool_`; `index` is int64); signless integers accept signed or unsigned arrays of that width.

Outputs are written into memref arguments (destination-passing style). From
Python, call the ctypes prototype built by `ctypes_prototype` with integer data addresses
(`arr.ctypes.data`), scalars, then the dynamic dims; `KernelSignature.call_args` builds that
list from NumPy arrays.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import DYNAMIC_INDEX, MemRefType
from xdsl.ir import Attribute

from tracejit.codegen.errors import CodegenError

_CTYPES: dict[np.dtype, Any] = {
    np.dtype(np.bool_): ctypes.c_bool,
    np.dtype(np.int8): ctypes.c_int8,
    np.dtype(np.int16): ctypes.c_int16,
    np.dtype(np.int32): ctypes.c_int32,
    np.dtype(np.int64): ctypes.c_int64,
    np.dtype(np.float32): ctypes.c_float,
    np.dtype(np.float64): ctypes.c_double,
}


@dataclass(frozen=True)
class MemRefArg:
    """A memref argument: element dtype and shape (`None` for a dynamic dim)."""

    dtype: np.dtype
    shape: tuple[int | None, ...]

    @property
    def dynamic_dims(self) -> tuple[int, ...]:
        return tuple(i for i, d in enumerate(self.shape) if d is None)


@dataclass(frozen=True)
class ScalarArg:
    """A scalar argument passed by value."""

    dtype: np.dtype


@dataclass(frozen=True)
class KernelSignature:
    """What a compiled function expects, in argument order."""

    name: str
    args: tuple[MemRefArg | ScalarArg, ...]
    result: np.dtype | None = None

    @property
    def dynamic_dims(self) -> tuple[tuple[int, int], ...]:
        """(argument index, dim index) of every trailing `i64` dim parameter, in order."""
        return tuple(
            (i, d)
            for i, arg in enumerate(self.args)
            if isinstance(arg, MemRefArg)
            for d in arg.dynamic_dims
        )

    def call_args(self, values: tuple[Any, ...]) -> list[Any]:
        """The raw ctypes argument list for NumPy arrays / scalars `values` (checked)."""
        if len(values) != len(self.args):
            raise TypeError(f"{self.name} takes {len(self.args)} arguments, got {len(values)}")
        raw: list[Any] = []
        dims: list[int] = []
        for position, (arg, value) in enumerate(zip(self.args, values, strict=True)):
            if isinstance(arg, ScalarArg):
                raw.append(value)
                continue
            _check_array(self.name, position, arg, value)
            raw.append(value.ctypes.data)
            dims.extend(value.shape[d] for d in arg.dynamic_dims)
        return raw + dims


def _compatible(got: np.dtype, want: np.dtype) -> bool:
    """Same dtype, or integers of the same width (signless integers in the IR)."""
    if got == want:
        return True
    return got.itemsize == want.itemsize and got.kind in "iu" and want.kind in "iu"


def _check_array(name: str, position: int, arg: MemRefArg, value: object) -> None:
    if not isinstance(value, np.ndarray):
        raise TypeError(f"{name}: argument {position} must be a NumPy array")
    if not _compatible(value.dtype, arg.dtype):
        raise TypeError(f"{name}: argument {position} has dtype {value.dtype}, "
                        f"expected {arg.dtype}")
    if value.ndim != len(arg.shape) or any(
        want is not None and want != got for want, got in zip(arg.shape, value.shape, strict=True)
    ):
        raise ValueError(f"{name}: argument {position} has shape {value.shape}, "
                         f"expected {arg.shape}")
    if not value.flags.c_contiguous:
        raise ValueError(f"{name}: argument {position} must be C-contiguous")


def memref_arg(attr: MemRefType) -> MemRefArg:
    from tracejit.codegen.llvm_types import numpy_dtype  # llvmlite.ir: only when compiling

    shape = tuple(None if d == DYNAMIC_INDEX else d for d in attr.get_shape())
    return MemRefArg(numpy_dtype(attr.element_type), shape)


def _describe(attr: Attribute) -> MemRefArg | ScalarArg:
    from tracejit.codegen.llvm_types import checked_memref, numpy_dtype

    if isinstance(attr, MemRefType):
        return memref_arg(checked_memref(attr))
    return ScalarArg(numpy_dtype(attr))


def kernel_signature(op: func.FuncOp) -> KernelSignature:
    """Describe the native signature of `op` under this calling convention."""
    outputs = op.function_type.outputs.data
    if len(outputs) > 1 or any(isinstance(t, MemRefType) for t in outputs):
        raise CodegenError(f"func.func @{op.sym_name.data}: only zero or one scalar result "
                           "is supported")
    from tracejit.codegen.llvm_types import numpy_dtype

    args = tuple(_describe(t) for t in op.function_type.inputs.data)
    result = numpy_dtype(outputs[0]) if outputs else None
    return KernelSignature(op.sym_name.data, args, result)


def _ctype(dtype: np.dtype) -> Any:
    if dtype not in _CTYPES:
        raise CodegenError(f"dtype {dtype} cannot be passed by value through ctypes")
    return _CTYPES[dtype]


def ctypes_prototype(signature: KernelSignature) -> Any:
    """The `ctypes.CFUNCTYPE` for `signature`; instantiate it with the function address."""
    argtypes = [
        ctypes.c_void_p if isinstance(arg, MemRefArg) else _ctype(arg.dtype)
        for arg in signature.args
    ]
    argtypes += [ctypes.c_int64] * len(signature.dynamic_dims)
    restype = None if signature.result is None else _ctype(signature.result)
    return ctypes.CFUNCTYPE(restype, *argtypes)
