"""Mapping of xDSL builtin types to llvmlite IR types and NumPy dtypes.

`index` is lowered to i64. In memory, an i1 element occupies one byte (like NumPy's bool), so
memref element storage uses i8 for i1 while SSA values stay i1. `complex<fN>` is the literal
struct `{fN, fN}` (real part first), both as a value and in memory: NumPy's layout.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from xdsl.dialects.builtin import (
    ComplexType,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
    MemRefType,
    NoneAttr,
)
from xdsl.ir import Attribute

from tracejit.codegen.errors import CodegenError

I1 = ir.IntType(1)
I8 = ir.IntType(8)
I32 = ir.IntType(32)
I64 = ir.IntType(64)
PTR = ir.PointerType()
VOID = ir.VoidType()

_FLOATS: dict[type[Attribute], ir.Type] = {
    Float16Type: ir.HalfType(),
    Float32Type: ir.FloatType(),
    Float64Type: ir.DoubleType(),
}

_FLOAT_DTYPES: dict[type[Attribute], np.dtype] = {
    Float16Type: np.dtype(np.float16),
    Float32Type: np.dtype(np.float32),
    Float64Type: np.dtype(np.float64),
}

_COMPLEX_DTYPES: dict[type[Attribute], np.dtype] = {  # by the type of the parts
    Float32Type: np.dtype(np.complex64),
    Float64Type: np.dtype(np.complex128),
}

_INT_DTYPES: dict[int, np.dtype] = {
    1: np.dtype(np.bool_),
    8: np.dtype(np.int8),
    16: np.dtype(np.int16),
    32: np.dtype(np.int32),
    64: np.dtype(np.int64),
}


def opaque(value: ir.Value) -> ir.Value:
    """Give a global/alloca the opaque `ptr` type: llvmlite prints typed pointers
    (`[4 x i8]*`) by default, which LLVM 22 no longer parses."""
    value.type = PTR
    return value


def scalar_type(attr: Attribute) -> ir.Type:
    """The LLVM type of an SSA value of scalar type `attr`."""
    if isinstance(attr, IndexType):
        return I64
    if isinstance(attr, IntegerType):
        return ir.IntType(attr.width.data)
    if type(attr) in _FLOATS:
        return _FLOATS[type(attr)]
    if isinstance(attr, ComplexType) and type(attr.element_type) in _FLOATS:
        part = _FLOATS[type(attr.element_type)]
        return ir.LiteralStructType([part, part])
    raise CodegenError(f"unsupported scalar type {attr}")


def storage_type(attr: Attribute) -> ir.Type:
    """The LLVM type of a memref element of type `attr` as stored in memory."""
    llvm_type = scalar_type(attr)
    return I8 if llvm_type == I1 else llvm_type


def byte_size(attr: Attribute) -> int:
    """Bytes one memref element of type `attr` occupies."""
    return numpy_dtype(attr).itemsize


def alignment(attr: Attribute) -> int:
    """The alignment NumPy guarantees for an element of type `attr` (a complex element is
    aligned like its parts, not like its size)."""
    return numpy_dtype(attr).alignment


def numpy_dtype(attr: Attribute) -> np.dtype:
    """The NumPy dtype of a memref element or scalar argument of type `attr`."""
    if isinstance(attr, IndexType):
        return np.dtype(np.int64)
    if isinstance(attr, IntegerType) and attr.width.data in _INT_DTYPES:
        return _INT_DTYPES[attr.width.data]
    if type(attr) in _FLOAT_DTYPES:
        return _FLOAT_DTYPES[type(attr)]
    if isinstance(attr, ComplexType) and type(attr.element_type) in _COMPLEX_DTYPES:
        return _COMPLEX_DTYPES[type(attr.element_type)]
    raise CodegenError(f"type {attr} has no NumPy dtype")


def checked_memref(attr: Attribute) -> MemRefType:
    """`attr` as a MemRefType with the identity layout, else CodegenError."""
    if not isinstance(attr, MemRefType):
        raise CodegenError(f"expected a memref type, got {attr}")
    if not isinstance(attr.layout, NoneAttr):
        raise CodegenError(f"memref layout {attr.layout} is not supported (identity only)")
    return attr


def call_address(
    b: ir.IRBuilder, address: ir.Value, function_type: ir.FunctionType, args: list[ir.Value]
) -> ir.Value:
    """Call the function at `address` (a `ptr` value) as a `function_type`: LLVM calls
    through any `ptr` given the call's type (`call i32 %task(ptr, i64, i64)`)."""
    return b.call(_FunctionAt(address, function_type), args)


class _FunctionAt:
    """A function's address as a callee: llvmlite's `call` asks its callee for
    `function_type` and `get_reference`, which only functions answer."""

    def __init__(self, address: ir.Value, function_type: ir.FunctionType) -> None:
        self.address, self.function_type, self.type = address, function_type, address.type

    def get_reference(self) -> str:
        return self.address.get_reference()

# the thread pool's task: i32 task(ptr ctx, i64 lo, i64 hi) (runtime/thread_pool.py)
TASK_TYPE = ir.FunctionType(I32, [PTR, I64, I64])
