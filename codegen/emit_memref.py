"""Emitters for the `memref` dialect (identity layout, contiguous row-major, offset 0).

A memref value is a `MemRef`: data pointer + one i64 per dim. Element addresses are one
`getelementptr inbounds` over the row-major linear index. Heap buffers come from
`aligned_alloc(64, size rounded up to 64, at least 64)`, so a zero-size alloc still returns a
pointer `free` accepts; a NULL result makes a kernel return OUT_OF_MEMORY (-4).
With `check_bounds` (default `TRACEJIT_CHECK_BOUNDS=1`) every load, store and copy is
range-checked first; each check is a check message naming the op and its location
("OutOfBoundsError: memref.load at k.mlir:7:7", ir/runtime_contract.py).
"""

from __future__ import annotations

import math as pymath
from collections.abc import Sequence

import numpy as np
from llvmlite import ir
from xdsl.dialects import memref
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DenseIntOrFPElementsAttr,
    FileLineColLoc,
    IntegerAttr,
    IntegerType,
    MemRefType,
    UnitAttr,
)
from xdsl.ir import Operation, SSAValue

from tracejit.codegen.context import Emitter, FunctionEmitter, MemRef, ModuleState
from tracejit.codegen.errors import CodegenError
from tracejit.codegen.llvm_types import (
    I1,
    I8,
    I32,
    I64,
    PTR,
    VOID,
    alignment,
    byte_size,
    call_address,
    checked_memref,
    opaque,
    scalar_type,
    storage_type,
)
from tracejit.ir import upstream_memref
from tracejit.ir.memory_contract import ALLOC_GLOBAL, FREE_GLOBAL
from tracejit.ir.runtime_contract import BOUNDS_ERROR, OUT_OF_MEMORY, check_message

ALIGNMENT = 64


def memref_with_dims(ptr: ir.Value, mtype: MemRefType, dynamic: Sequence[ir.Value]) -> MemRef:
    """A MemRef whose dynamic dims are taken in order from `dynamic`."""
    supplied = iter(dynamic)
    dims = [next(supplied) if d == DYNAMIC_INDEX else ir.Constant(I64, d)
            for d in mtype.get_shape()]
    return MemRef(ptr, dims, mtype)


def linear_index(fx: FunctionEmitter, ref: MemRef, indices: Sequence[ir.Value]) -> ir.Value:
    """Row-major offset in Horner form: ((i0 * d1 + i1) * d2 + i2) ... (wrapping, no nsw)."""
    offset = indices[0]
    for index, dim in zip(indices[1:], ref.dims[1:], strict=True):
        offset = fx.b.add(fx.b.mul(offset, dim), index)
    return offset


def element_ptr(fx: FunctionEmitter, ref: MemRef, indices: Sequence[SSAValue]) -> ir.Value:
    elem = storage_type(ref.type.element_type)
    if not indices:
        return ref.ptr
    offset = linear_index(fx, ref, [fx.get(i) for i in indices])
    return fx.b.gep(ref.ptr, [offset], inbounds=True, source_etype=elem)


def _return_status_if(fx: FunctionEmitter, failed: ir.Value, status: int) -> None:
    """Return `status` when `failed`, in a kernel with an i32 status result (one without
    a status, e.g. hand-written codegen tests, cannot report it and is left alone)."""
    if fx.fn.function_type.return_type != I32:
        return
    with fx.b.if_then(failed, likely=False):
        fx.b.ret(ir.Constant(I32, status))


def _check_indices(
    fx: FunctionEmitter, op: Operation, ref: MemRef, indices: Sequence[SSAValue]
) -> None:
    if indices and fx.state.check_bounds:
        check_index_values(fx, op, ref, [fx.get(index) for index in indices])


def check_index_values(
    fx: FunctionEmitter, op: Operation, ref: MemRef, indices: Sequence[ir.Value]
) -> None:
    """Make the kernel fail with `op`'s bounds-check message unless every index is inside
    its dim."""
    inside: ir.Value = ir.Constant(I1, 1)
    for index, dim in zip(indices, ref.dims, strict=True):  # 0 <= i < dim, unsigned
        inside = fx.b.and_(inside, fx.b.icmp_unsigned("<", index, dim))
    _return_status_if(fx, fx.b.not_(inside), _bounds_status(fx, op))


def _bounds_status(fx: FunctionEmitter, op: Operation) -> int:
    """The status of `op`'s bounds check: the index of a new check message naming the op and
    where it is (ir/runtime_contract.py)."""
    location = op.location
    where = (
        f"{location.filename.data}:{location.line.data}:{location.column.data}"
        if isinstance(location, FileLineColLoc)
        else "an unknown location"
    )
    fx.state.messages.append(check_message(BOUNDS_ERROR, f"{op.name} at {where}"))
    return len(fx.state.messages)


def _load(fx: FunctionEmitter, op: memref.LoadOp) -> ir.Value:
    ref = fx.memref(op.memref)
    elem = ref.type.element_type
    _check_indices(fx, op, ref, op.indices)
    value = fx.b.load(element_ptr(fx, ref, op.indices), typ=storage_type(elem),
                      align=alignment(elem))
    return fx.b.trunc(value, I1) if scalar_type(elem) == I1 else value


def _store(fx: FunctionEmitter, op: memref.StoreOp) -> None:
    ref = fx.memref(op.memref)
    elem = ref.type.element_type
    value = fx.get(op.value)
    if value.type == I1:
        value = fx.b.zext(value, I8)
    _check_indices(fx, op, ref, op.indices)
    fx.b.store(value, element_ptr(fx, ref, op.indices), align=alignment(elem))


def _num_elements(fx: FunctionEmitter, ref: MemRef) -> ir.Value:
    count: ir.Value = ir.Constant(I64, 1)
    for dim in ref.dims:
        count = fx.b.mul(count, dim)
    return count


def _byte_count(fx: FunctionEmitter, ref: MemRef) -> ir.Value:
    return fx.b.mul(_num_elements(fx, ref), ir.Constant(I64, byte_size(ref.type.element_type)))


def _alignment(op: Operation) -> int:
    attr = op.properties.get("alignment")
    return max(ALIGNMENT, attr.value.data) if isinstance(attr, IntegerAttr) else ALIGNMENT


def _alloc(fx: FunctionEmitter, op: memref.AllocOp) -> MemRef:
    mtype = checked_memref(op.memref.type)
    align = _alignment(op)
    shape_only = memref_with_dims(ir.Constant(PTR, None), mtype,
                                  [fx.get(v) for v in op.dynamic_sizes])
    size = _byte_count(fx, shape_only)
    # aligned_alloc wants a non-zero multiple of the alignment.
    size = fx.b.select(fx.b.icmp_unsigned("==", size, ir.Constant(I64, 0)),
                       ir.Constant(I64, 1), size)
    size = fx.b.and_(fx.b.add(size, ir.Constant(I64, align - 1)), ir.Constant(I64, -align))
    alignment = ir.Constant(I64, align)
    ptr = _through_block_cache(fx, ALLOC_GLOBAL, [size, alignment], PTR)
    _return_if_null(fx, ptr)
    return MemRef(ptr, shape_only.dims, mtype)


def _through_block_cache(fx: FunctionEmitter, name: str, args: list[ir.Value],
                         result: ir.Type) -> ir.Value:  # fmt: skip
    """Call the block cache's function the loader put in the global `name`, or, while it is
    null, the C heap's (`aligned_alloc(align, size)` / `free(block)`)."""
    b = fx.b
    function = b.load_atomic(fx.state.loader_filled(name), "monotonic", 8, typ=PTR)
    cached, plain = fx.fn.append_basic_block("cached"), fx.fn.append_basic_block("heap")
    done = fx.fn.append_basic_block("allocated")
    b.cbranch(b.icmp_unsigned("!=", function, ir.Constant(PTR, None)), cached, plain)
    b.position_at_end(cached)
    function_type = ir.FunctionType(result, [a.type for a in args])
    through_cache = call_address(b, function, function_type, args)
    b.branch(done)
    b.position_at_end(plain)
    if result == PTR:
        heap = fx.state.declare("aligned_alloc", PTR, [I64, I64], ("nounwind",))
        direct = b.call(heap, [args[1], args[0]])
    else:
        direct = b.call(fx.state.declare("free", VOID, [PTR], ("nounwind",)), [args[0]])
    b.branch(done)
    b.position_at_end(done)
    if result != PTR:
        return direct
    merged = b.phi(PTR)
    merged.add_incoming(through_cache, cached)
    merged.add_incoming(direct, plain)
    return merged


def _return_if_null(fx: FunctionEmitter, ptr: ir.Value) -> None:
    """A failed heap allocation returns OUT_OF_MEMORY (the caller raises MemoryError;
    buffers allocated before it leak, as on any error path)."""
    _return_status_if(fx, fx.b.icmp_unsigned("==", ptr, ir.Constant(PTR, None)), OUT_OF_MEMORY)


def _alloca(fx: FunctionEmitter, op: memref.AllocaOp) -> MemRef:
    mtype = checked_memref(op.memref.type)
    elem = storage_type(mtype.element_type)
    dynamic = [fx.get(v) for v in op.dynamic_sizes]
    if not dynamic:
        count = max(1, pymath.prod(mtype.get_shape()))
        slot = fx.entry_alloca(ir.ArrayType(elem, count), _alignment(op))
        return memref_with_dims(slot, mtype, [])
    shape_only = memref_with_dims(ir.Constant(PTR, None), mtype, dynamic)
    slot = opaque(fx.b.alloca(elem, size=_num_elements(fx, shape_only)))
    slot.align = _alignment(op)
    return MemRef(slot, shape_only.dims, mtype)


def _dealloc(fx: FunctionEmitter, op: memref.DeallocOp) -> None:
    """Give the block back to the cache with its size rounded up to 64 bytes (never more
    than its alloc asked for: an alloc rounds up to its alignment, a multiple of 64)."""
    ref = fx.memref(op.memref)
    size = _byte_count(fx, ref)
    size = fx.b.select(fx.b.icmp_unsigned("==", size, ir.Constant(I64, 0)),
                       ir.Constant(I64, 1), size)  # fmt: skip
    size = fx.b.and_(fx.b.add(size, ir.Constant(I64, ALIGNMENT - 1)),
                     ir.Constant(I64, -ALIGNMENT))  # fmt: skip
    _through_block_cache(fx, FREE_GLOBAL, [ref.ptr, size], VOID)


def _dim(fx: FunctionEmitter, op: memref.DimOp) -> ir.Value:
    ref = fx.memref(op.source)
    index = fx.get(op.index)
    if isinstance(index, ir.Constant):
        return ref.dims[index.constant]
    # A run-time dim index: select among the dims (out of range gives dim 0).
    result = ref.dims[0]
    for position, dim in enumerate(ref.dims[1:], start=1):
        hit = fx.b.icmp_signed("==", index, ir.Constant(I64, position))
        result = fx.b.select(hit, dim, result)
    return result


def _copy(fx: FunctionEmitter, op: memref.CopyOp) -> None:
    source, target = fx.memref(op.source), fx.memref(op.destination)
    if fx.state.check_bounds:
        sizes_differ = fx.b.icmp_unsigned("!=", _num_elements(fx, source),
                                          _num_elements(fx, target))
        _return_status_if(fx, sizes_differ, _bounds_status(fx, op))
    memcpy = fx.state.declare("llvm.memcpy.p0.p0.i64", VOID, [PTR, PTR, I64, I1])
    fx.b.call(memcpy, [target.ptr, source.ptr, _byte_count(fx, source), ir.Constant(I1, 0)])


def _cast(fx: FunctionEmitter, op: memref.CastOp) -> MemRef:
    source = fx.memref(op.source)
    target = checked_memref(op.dest.type)
    dims = [ir.Constant(I64, static) if static != DYNAMIC_INDEX else dim
            for static, dim in zip(target.get_shape(), source.dims, strict=True)]
    return MemRef(source.ptr, dims, target)


def _view(fx: FunctionEmitter, op: memref.ViewOp) -> MemRef:
    """A buffer of run-time sizes inside a byte buffer, `byte_shift` bytes in (bufferize's
    scratch for a loop's temporaries of bounded size; of `i0` elements, a shape with no
    data, which only bounds loops and has no loads or stores). With bounds checks, a view
    that would not fit in its byte buffer fails the call."""
    source = fx.memref(op.source)
    shift = fx.get(op.byte_shift)
    target = memref_with_dims(fx.b.gep(source.ptr, [shift], inbounds=True, source_etype=I8),
                              checked_memref(op.result.type), [fx.get(s) for s in op.sizes])
    if fx.state.check_bounds and not _is_shape_only(target.type):
        end = fx.b.add(shift, _byte_count(fx, target))
        _return_status_if(fx, fx.b.icmp_unsigned(">", end, source.dims[0]), _bounds_status(fx, op))
    return target


def _is_shape_only(mtype: MemRefType) -> bool:
    """A memref of zero-bit (`i0`) elements: a shape with no data (bufferize's loop bounds)."""
    element = mtype.element_type
    return isinstance(element, IntegerType) and element.width.data == 0


def _get_global(fx: FunctionEmitter, op: memref.GetGlobalOp) -> MemRef:
    name = op.name_.root_reference.data
    if name not in fx.state.globals:
        raise CodegenError(f"memref.get_global: no memref.global @{name} in the module")
    variable, _ = fx.state.globals[name]
    return memref_with_dims(variable, checked_memref(op.memref.type), [])


def _initializer_bytes(op: memref.GlobalOp, mtype: MemRefType) -> bytes | None:
    value = op.initial_value
    if isinstance(value, UnitAttr):
        return None
    if not isinstance(value, DenseIntOrFPElementsAttr):
        raise CodegenError(f"memref.global @{op.sym_name.data}: unsupported initializer")
    data = value.data.data
    count = pymath.prod(mtype.get_shape())
    size = byte_size(mtype.element_type)
    if len(data) == size and count != 1:  # a splat stored once
        data = data * count
    if isinstance(mtype.element_type, IntegerType) and mtype.element_type.width.data == 1:
        data = (np.frombuffer(data, np.uint8) != 0).astype(np.uint8).tobytes()  # 0xFF -> 1
    if len(data) != count * size:
        raise CodegenError(f"memref.global @{op.sym_name.data}: initializer has {len(data)} "
                           f"bytes, expected {count * size}")
    return data


def declare_global(state: ModuleState, op: memref.GlobalOp) -> None:
    """Top-level `memref.global` -> an LLVM byte-array global, 64-byte aligned."""
    mtype = checked_memref(op.type)
    if any(d == DYNAMIC_INDEX for d in mtype.get_shape()):
        raise CodegenError(f"memref.global @{op.sym_name.data}: dynamic shape")
    data = _initializer_bytes(op, mtype)
    nbytes = pymath.prod(mtype.get_shape()) * byte_size(mtype.element_type)
    array = ir.ArrayType(I8, nbytes)
    variable = opaque(ir.GlobalVariable(state.module, array, op.sym_name.data))
    variable.initializer = (ir.Constant(array, None) if data is None
                            else ir.Constant(array, bytearray(data)))
    variable.global_constant = op.constant is not None
    variable.align = ALIGNMENT
    if op.sym_visibility.data == "private":
        variable.linkage = "internal"
    state.globals[op.sym_name.data] = (variable, mtype)


MEMREF_EMITTERS: dict[type[Operation], Emitter] = {
    memref.LoadOp: _load,
    memref.StoreOp: _store,
    memref.AllocOp: _alloc,
    memref.AllocaOp: _alloca,
    upstream_memref.AllocOp: _alloc,  # the same ops, printed in upstream MLIR's syntax
    upstream_memref.AllocaOp: _alloca,
    memref.DeallocOp: _dealloc,
    memref.DimOp: _dim,
    memref.CopyOp: _copy,
    memref.CastOp: _cast,
    memref.GetGlobalOp: _get_global,
    memref.ViewOp: _view,
}
