"""LAPACK calls: `func.call @tracejit_lapack_<routine>(...)` -> an indirect call through the
module's table of routine addresses (ir/lapack_contract.py states the convention).

    %info = func.call @tracejit_lapack_dpotrf(%uplo, %n, %a, %lda)
            : (i8, i32, memref<?xf64>, i32) -> i32

becomes

    %table = load ptr, ptr @tracejit_lapack_routines   ; filled in by the loader
    (return LAPACK_MISSING if %table is null)
    %fn = load ptr, (gep %table, <index of dpotrf in ROUTINES>)
    store i8 %uplo, ptr %uplo.slot ; store i32 %n, ptr %n.slot ; ...
    call void %fn(ptr %uplo.slot, ptr %n.slot, ptr %a.data, ptr %lda.slot, ptr %info.slot)
    %info = load i32, ptr %info.slot

Every argument is passed by pointer (Fortran's convention): scalars through stack slots of
the function's entry block, memrefs as their data pointers. The routine's trailing `info`
is the call's result.

A BLAS routine (`is_blas`) reads the same table through `@tracejit_lapack_table`, which the
loader fills without importing SciPy; it has no `info`; a memref argument is followed by the
position of its first element, passed as that element's address; an integer goes through an
i64 slot (for a 32- or a 64-bit BLAS alike); and a null table or entry skips the call and
makes the result BLAS_MISSING, for the caller to run its own kernel:

    %fn = ... (as above, when %table is not null; the call when %fn is not null)
    store i64 (sext %m), ptr %m.slot ; ...
    call void %fn(ptr %trans.slot, ptr %m.slot, ..., ptr (gep %a.data, %a0), ...)
    %missing = phi i32 [0, call], [BLAS_MISSING, null table or entry]
"""

from __future__ import annotations

from llvmlite import ir
from xdsl.dialects import func
from xdsl.dialects.builtin import MemRefType

from tracejit.codegen.context import FunctionEmitter
from tracejit.codegen.emit_memref import _return_status_if as return_status_if
from tracejit.codegen.llvm_types import I32, I64, PTR, call_address, storage_type
from tracejit.ir.lapack_contract import (
    BLAS_MISSING,
    LAPACK_PREFIX,
    LAPACK_TABLE_GLOBAL,
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
    table_slot = fx.state.loader_filled(TABLE_GLOBAL if is_blas(routine) else LAPACK_TABLE_GLOBAL)
    table = fx.b.load(table_slot, typ=PTR)
    null = fx.b.icmp_unsigned("==", table, ir.Constant(PTR, None))
    if is_blas(routine):
        return _emit_blas_call(fx, op, routine, table, null)
    return_status_if(fx, null, LAPACK_MISSING)
    routine_address = _routine_address(fx, table, routine)
    return_status_if(fx, _is_null(fx, routine_address), LAPACK_MISSING)
    pointers = [_by_reference(fx, value) for value in op.arguments]
    info = fx.entry_alloca(I32, 4)
    pointers.append(info)
    signature = ir.FunctionType(ir.VoidType(), [PTR] * len(pointers))
    call_address(fx.b, routine_address, signature, pointers)
    return fx.b.load(info, typ=I32)


def _emit_blas_call(
    fx: FunctionEmitter, op: func.CallOp, routine: str, table: ir.Value, null: ir.Value
) -> ir.Value:
    """The call when the table and the routine's entry are not null; BLAS_MISSING when
    either is (module docstring)."""
    before = fx.b.block
    with fx.b.if_then(fx.b.not_(null), likely=True):
        routine_address = _routine_address(fx, table, routine)
        looked_up = fx.b.block
        with fx.b.if_then(fx.b.not_(_is_null(fx, routine_address)), likely=True):
            pointers = _blas_pointers(fx, list(op.arguments))
            signature = ir.FunctionType(ir.VoidType(), [PTR] * len(pointers))
            call_address(fx.b, routine_address, signature, pointers)
            called = fx.b.block
        ran = fx.b.phi(I32)
        ran.add_incoming(ir.Constant(I32, 0), called)
        ran.add_incoming(ir.Constant(I32, BLAS_MISSING), looked_up)
        after_lookup = fx.b.block
    missing = fx.b.phi(I32)
    missing.add_incoming(ran, after_lookup)
    missing.add_incoming(ir.Constant(I32, BLAS_MISSING), before)
    return missing


def _routine_address(fx: FunctionEmitter, table: ir.Value, routine: str) -> ir.Value:
    entry = fx.b.gep(table, [ir.Constant(I32, ROUTINES.index(routine))], source_etype=PTR)
    return fx.b.load(entry, typ=PTR)


def _is_null(fx: FunctionEmitter, address: ir.Value) -> ir.Value:
    return fx.b.icmp_unsigned("==", address, ir.Constant(PTR, None))


def _blas_pointers(fx: FunctionEmitter, arguments: list) -> list[ir.Value]:
    """Each argument by reference; a memref as the address of the element at the position
    that follows it."""
    pointers = []
    for position, value in enumerate(arguments):
        if position and isinstance(arguments[position - 1].type, MemRefType):
            continue  # the position of the memref before it: used there
        if not isinstance(value.type, MemRefType):
            pointers.append(_integer_as_i64(fx, value) or _by_reference(fx, value))
            continue
        element = storage_type(value.type.get_element_type())
        start = fx.get(arguments[position + 1])
        pointers.append(fx.b.gep(fx.memref(value).ptr, [start], source_etype=element))
    return pointers


def _integer_as_i64(fx: FunctionEmitter, value) -> ir.Value | None:
    """An i32 argument in an 8-byte slot holding it as an i64 (module docstring); None for
    any other argument."""
    scalar = fx.get(value)
    if scalar.type != I32:
        return None
    slot = fx.entry_alloca(I64, 8)
    fx.b.store(fx.b.sext(scalar, I64), slot)
    return slot


def _by_reference(fx: FunctionEmitter, value) -> ir.Value:
    if isinstance(value.type, MemRefType):
        return fx.memref(value).ptr
    scalar = fx.get(value)
    slot = fx.entry_alloca(scalar.type, 8)
    fx.b.store(scalar, slot)
    return slot
