"""Emitters for the `vector` loads and stores `stream-stores` writes (passes/stream_stores.py).

`vector.load %tile[%i] : memref<16xf32>, vector<16xf32>` is one `load <16 x float>`, and
`vector.store` one `store`, at the element the indices name (1-D vectors of the memref's
element type, read along its last dim).

`vector.store nontemporal = true` writes the vector with a `!nontemporal` store when its
address is 64-byte aligned (x86's non-temporal stores fault on a misaligned address, and
LLVM emits one only for an alignment it knows), else with an ordinary store: one test per
line, which LLVM hoists out of the loop when the lines' alignment cannot change.
Non-temporal stores are weakly ordered: a function holding one fences them before it
returns (`fences_at_return`, `fence_streamed_lines`), so that the thread that joins a
parallel chunk, or called the kernel, sees every line before it reads: `sfence` on x86, the
instruction made for this (LLVM's `fence seq_cst` there is a locked add). A serial line loop
followed, in the same kernel, by a parallel loop reading its output needs no fence of its
own: handing the loop to the pool is a locked instruction, which also drains the
write-combining buffers on x86.
"""

from __future__ import annotations

import platform
from collections.abc import Sequence

from llvmlite import ir
from xdsl.dialects import func, vector
from xdsl.dialects.builtin import VectorType
from xdsl.ir import Operation, SSAValue

from tracejit.codegen.context import Emitter, FunctionEmitter, MemRef
from tracejit.codegen.emit_memref import check_index_values, element_ptr
from tracejit.codegen.errors import CodegenError
from tracejit.codegen.llvm_types import I32, I64, VOID, alignment, storage_type
from tracejit.ir import upstream_vector
from tracejit.ir.memory_contract import CACHE_LINE_BYTES
from tracejit.ir.upstream_vector import is_nontemporal

LINE_ALIGNMENT = CACHE_LINE_BYTES
"""The alignment a non-temporal line store needs (a whole AVX-512 register)."""


def fences_at_return(op: func.FuncOp) -> bool:
    """Whether `op` holds a non-temporal store, so must fence before it returns."""
    return any(isinstance(o, vector.StoreOp) and is_nontemporal(o) for o in op.walk())


def fence_streamed_lines(fx: FunctionEmitter) -> None:
    """Make this thread's non-temporal stores visible to the others (before a return)."""
    if platform.machine().lower() in ("x86_64", "amd64"):
        fx.b.call(fx.state.declare("llvm.x86.sse.sfence", VOID, [], ("nounwind",)), [])
    else:
        fx.b.fence("seq_cst")


def _vector_type(vtype: object, ref: MemRef) -> ir.VectorType:
    if not isinstance(vtype, VectorType) or len(vtype.get_shape()) != 1:
        raise CodegenError(f"vector load/store: only 1-D vectors are supported, not {vtype}")
    return ir.VectorType(storage_type(ref.type.element_type), vtype.get_shape()[0])


def _line_ptr(
    fx: FunctionEmitter, op: Operation, ref: MemRef, indices: Sequence[SSAValue], lanes: int
) -> ir.Value:
    """The address of the line's first element; with bounds checks, its first and last
    element are checked."""
    values = [fx.get(i) for i in indices]
    if fx.state.check_bounds and values:
        last = fx.b.add(values[-1], ir.Constant(I64, lanes - 1))
        check_index_values(fx, op, ref, values)
        check_index_values(fx, op, ref, [*values[:-1], last])
    return element_ptr(fx, ref, indices)


def _load(fx: FunctionEmitter, op: vector.LoadOp) -> ir.Value:
    ref = fx.memref(op.base)
    vtype = _vector_type(op.result.type, ref)
    ptr = _line_ptr(fx, op, ref, op.indices, vtype.count)
    return fx.b.load(ptr, typ=vtype, align=alignment(ref.type.element_type))


def _store(fx: FunctionEmitter, op: vector.StoreOp) -> None:
    ref = fx.memref(op.base)
    value = fx.get(op.vector)
    vtype = _vector_type(op.vector.type, ref)
    ptr = _line_ptr(fx, op, ref, op.indices, vtype.count)
    align = alignment(ref.type.element_type)
    if not is_nontemporal(op):
        fx.b.store(value, ptr, align=align)
        return
    offset = fx.b.and_(fx.b.ptrtoint(ptr, I64), ir.Constant(I64, LINE_ALIGNMENT - 1))
    aligned = fx.b.icmp_unsigned("==", offset, ir.Constant(I64, 0))
    with fx.b.if_else(aligned, likely=True) as (streamed, ordinary):
        with streamed:
            line = fx.b.store(value, ptr, align=LINE_ALIGNMENT)
            line.set_metadata("nontemporal", fx.state.module.add_metadata([ir.Constant(I32, 1)]))
        with ordinary:
            fx.b.store(value, ptr, align=align)


VECTOR_EMITTERS: dict[type[Operation], Emitter] = {
    vector.LoadOp: _load,
    vector.StoreOp: _store,
    upstream_vector.LoadOp: _load,  # the same ops, printed in upstream MLIR's syntax
    upstream_vector.StoreOp: _store,
}
