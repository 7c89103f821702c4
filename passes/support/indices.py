"""`index` values the lowering passes build: constants, and the dims of buffers."""

from __future__ import annotations

from xdsl.builder import Builder
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, IntegerAttr
from xdsl.ir import SSAValue

from tracejit.ir.shaped import shaped_type


def index_constant(builder: Builder, value: int) -> SSAValue:
    """`arith.constant <value> : index`."""
    return builder.insert(arith.ConstantOp(IntegerAttr(value, IndexType()))).result


def dim_size(builder: Builder, buffer: SSAValue, axis: int) -> SSAValue:
    """Dim `axis` of memref `buffer` as an `index`: a constant when the dim is static, else
    `memref.dim` (after the constant `axis` it reads)."""
    size = shaped_type(buffer).get_shape()[axis]
    if size != DYNAMIC_INDEX:
        return index_constant(builder, size)
    return builder.insert(memref.DimOp(buffer, index_constant(builder, axis))).result


def static_index(value: SSAValue) -> int | None:
    """The value of an integer `arith.constant`, else None."""
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None
