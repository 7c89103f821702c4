"""The tables and scratch buffers of `tj.fft`'s loops (passes/bufferize/fft.py): read-only
globals of floats, the run-time roots of unity built from two of them, float scratch
buffers.
"""

from __future__ import annotations

import numpy as np
from xdsl.builder import Builder
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AnyFloat,
    MemRefType,
    StringAttr,
    UnitAttr,
    f32,
    f64,
)
from xdsl.ir import SSAValue

from tracejit.ir.dense import dense_from_array
from tracejit.ir.invariants import first_op
from tracejit.passes.bufferize.builder import FunctionBufferizer
from tracejit.passes.support import fft_plan as plan
from tracejit.passes.support.fft_stages import Floats, Pair, Split
from tracejit.passes.support.indices import index_constant

# A transform whose twiddle table has at most this many entries has it as a constant
# global; a longer one computes it per call from two tables of ~sqrt(n) entries.
CONSTANT_TWIDDLES = 4096


class Scratch:
    """Float buffers of one element type, allocated as temporaries of the op."""

    def __init__(self, bufferizer: FunctionBufferizer, ftype: AnyFloat):
        self.bufferizer, self.ftype = bufferizer, ftype

    def split(self, size: SSAValue) -> Split:
        return Split(self.floats(size), self.floats(size))

    def floats(self, size: SSAValue) -> SSAValue:
        buffer_type = MemRefType(self.ftype, [DYNAMIC_INDEX])
        return self.bufferizer.temporary(buffer_type, [size])


def global_floats(bufferizer: FunctionBufferizer, name: str, values: np.ndarray) -> SSAValue:
    """A read-only global holding `values` (1-D floats), declared once per module."""
    block = bufferizer.module.body.block
    buffer_type = MemRefType(_float_type(values.dtype), [len(values)])
    if not any(isinstance(g, memref.GlobalOp) and g.sym_name.data == name for g in block.ops):
        glob = memref.GlobalOp.get(
            StringAttr(name),
            buffer_type,
            dense_from_array(values),
            constant=UnitAttr(),
            alignment=64,
        )
        block.insert_op_before(glob, first_op(block))
    return bufferizer.builder.insert(memref.GetGlobalOp(name, buffer_type)).memref


def _float_type(dtype: np.dtype) -> AnyFloat:
    return f64 if dtype == np.float64 else f32


def split_global(bufferizer: FunctionBufferizer, name: str, values: np.ndarray) -> Split:
    return Split(
        global_floats(bufferizer, f"{name}_re", np.ascontiguousarray(values.real)),
        global_floats(bufferizer, f"{name}_im", np.ascontiguousarray(values.imag)),
    )


class Roots:
    """exp(-2 pi i e / n) for a run-time e in [0, n), as the product of two globals."""

    def __init__(self, bufferizer: FunctionBufferizer, n: int):
        coarse, fine, self.shift = plan.root_tables(n)
        self.coarse = split_global(bufferizer, f"__tj_fft_roots_{n}_coarse", coarse)
        self.fine = split_global(bufferizer, f"__tj_fft_roots_{n}_fine", fine)

    def root(self, b: Builder, e: SSAValue, ftype: AnyFloat) -> Pair:
        high = b.insert(arith.ShRUIOp(e, index_constant(b, self.shift))).result
        low = b.insert(arith.AndIOp(e, index_constant(b, (1 << self.shift) - 1))).result
        wide = Floats(b, f64)
        w = wide.cmul(wide.load(self.coarse, high), wide.load(self.fine, low))
        if ftype == f64:
            return w
        return (b.insert(arith.TruncFOp(w[0], ftype)).result,
                b.insert(arith.TruncFOp(w[1], ftype)).result)  # fmt: skip
