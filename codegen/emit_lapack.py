"""LAPACK calls: `func.call @tracejit_lapack_<routine>(...)` -> an indirect call through the
module's table of routine addresses (ir/lapack_contract.py states the convention).

    %info = func.call @tracejit_lapack_dpotrf(%uplo, %n, %a, %lda)
            : (i8, i32, memref<?xf64>, i32) -> i32

becomes

    %table = load ptr, ptr @tracejit_lapack_table      ; filled in by the loader
    (return LAPACK_MISSING if %table is null)
    %fn = load ptr, (gep %table, <index of dpotrf in ROUTINES>)
    store i8 %uplo, ptr %uplo.slot ; store i32 %n, ptr %n.slot ; ...
    call void %fn(ptr %uplo.slot, ptr %n.slot, ptr %a.data, ptr %lda.slot, ptr %info.slot)
    %info = load i32, ptr %info.slot

Every argument is passed by pointer (Fortran's convention): scalars through stack slots of
the function's entry block, memrefs as their data pointers. The routine's trailing `info`
is the call's result.

A BLAS routine (`is_blas`) has no `info`; a memref argument is followed by the position of
its first element, passed as that element's address; and a null table skips the call and
makes the result BLAS_MISSING, for the caller to run its own kernel:

    %fn = ... (as above, when %table is not null)
    call void %fn(ptr %trans.slot, ..., ptr (gep %a.data, %a0), ptr %lda.slot, ...)
    %missing = phi i32 [0, call], [BLAS_MISSING, null table]
"""

from __future__ import annotations

from llvmlite import ir
from xdsl.dialects import func
from xdsl.dialects.builtin import MemRefType

from tracejit.codegen.context import FunctionEmitter
from tracejit.codegen.emit_memref import _return_status_if as return_status_if
from tracejit.codegen.llvm_types import I32, PTR, call_address, storage_type
from tracejit.ir.lapack_contract import (
    BLAS_MISSING,
    LAPACK_PREFIX,
    ROUTINES,
    TABLE_GLOBAL,
    is_blas,
    routine_of,
)
from tracejit.ir.runtime_contract import LAPACK_MISSING


def is_lapack_call(name: str) -> bool:
    return name.startswith(LAPACK_PREFIX)


def emit_lapack_call(fx: FunctionEmitter, op: func.CallOp) -> ir.Value:
    routine = routine_of(op.callee.root_reference.data)
    table_slot = fx.state.loader_filled(TABLE_GLOBAL)
    table = fx.b.load(table_slot, typ=PTR)
    null = fx.b.icmp_unsigned("==", table, ir.Constant(PTR, None))
    if is_blas(routine):
        return _emit_blas_call(fx, op, routine, table, null)
    return_status_if(fx, null, LAPACK_MISSING)
    entry = fx.b.gep(table, [ir.Constant(I32, ROUTINES.index(routine))], source_etype=PTR)
    routine_address = fx.b.load(entry, typ=PTR)
    pointers = [_by_reference(fx, value) for value in op.arguments]
    info = fx.entry_alloca(I32, 4)
    pointers.append(info)
    signature = ir.FunctionType(ir.VoidType(), [PTR] * len(pointers))
    call_address(fx.b, routine_address, signature, pointers)
    return fx.b.load(info, typ=I32)


def _emit_blas_call(
    fx: FunctionEmitter, op: func.CallOp, routine: str, table: ir.Value, null: ir.Value
) -> ir.Value:
    """The call when the table is not null; BLAS_MISSING when it is (module docstring)."""
    before = fx.b.block
    with fx.b.if_then(fx.b.not_(null), likely=True):
        entry = fx.b.gep(table, [ir.Constant(I32, ROUTINES.index(routine))], source_etype=PTR)
        routine_address = fx.b.load(entry, typ=PTR)
        pointers = _blas_pointers(fx, list(op.arguments))
        signature = ir.FunctionType(ir.VoidType(), [PTR] * len(pointers))
        call_address(fx.b, routine_address, signature, pointers)
        called = fx.b.block
    missing = fx.b.phi(I32)
    missing.add_incoming(ir.Constant(I32, 0), called)
    missing.add_incoming(ir.Constant(I32, BLAS_MISSING), before)
    return missing


def _blas_pointers(fx: FunctionEmitter, arguments: list) -> list[ir.Value]:
    """Each argument by reference; a memref as the address of the element at the position
    that follows it."""
    pointers = []
    for position, value in enumerate(arguments):
        if position and isinstance(arguments[position - 1].type, MemRefType):
            continue  # the position of the memref before it: used there
        if not isinstance(value.type, MemRefType):
            pointers.append(_by_reference(fx, value))
            continue
        element = storage_type(value.type.get_element_type())
        start = fx.get(arguments[position + 1])
        pointers.append(fx.b.gep(fx.memref(value).ptr, [start], source_etype=element))
    return pointers


def _by_reference(fx: FunctionEmitter, value) -> ir.Value:
    if isinstance(value.type, MemRefType):
        return fx.memref(value).ptr
    scalar = fx.get(value)
    slot = fx.entry_alloca(scalar.type, 8)
    fx.b.store(scalar, slot)
    return slot
