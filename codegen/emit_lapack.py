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
"""

from __future__ import annotations

from llvmlite import ir
from xdsl.dialects import func
from xdsl.dialects.builtin import MemRefType

from tracejit.codegen.context import FunctionEmitter
from tracejit.codegen.emit_memref import _return_status_if as return_status_if
from tracejit.codegen.llvm_types import I32, PTR, call_address
from tracejit.ir.lapack_contract import LAPACK_PREFIX, ROUTINES, TABLE_GLOBAL
from tracejit.ir.runtime_contract import LAPACK_MISSING


def is_lapack_call(name: str) -> bool:
    return name.startswith(LAPACK_PREFIX)


def emit_lapack_call(fx: FunctionEmitter, op: func.CallOp) -> ir.Value:
    routine = op.callee.root_reference.data.removeprefix(LAPACK_PREFIX)
    table_slot = fx.state.loader_filled(TABLE_GLOBAL)
    table = fx.b.load(table_slot, typ=PTR)
    return_status_if(fx, fx.b.icmp_unsigned("==", table, ir.Constant(PTR, None)), LAPACK_MISSING)
    entry = fx.b.gep(table, [ir.Constant(I32, ROUTINES.index(routine))], source_etype=PTR)
    routine_address = fx.b.load(entry, typ=PTR)
    pointers = [_by_reference(fx, value) for value in op.arguments]
    info = fx.entry_alloca(I32, 4)
    pointers.append(info)
    signature = ir.FunctionType(ir.VoidType(), [PTR] * len(pointers))
    call_address(fx.b, routine_address, signature, pointers)
    return fx.b.load(info, typ=I32)


def _by_reference(fx: FunctionEmitter, value) -> ir.Value:
    if isinstance(value.type, MemRefType):
        return fx.memref(value).ptr
    scalar = fx.get(value)
    slot = fx.entry_alloca(scalar.type, 8)
    fx.b.store(scalar, slot)
    return slot
