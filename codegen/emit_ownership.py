"""Emitters for handing kernel-allocated buffers to the caller.

`memref.extract_aligned_pointer_as_index` is the address of a buffer's first element as
an `index` (i64): `tj.export` (passes/bufferize/tensor_array.py) stores it in the
caller's descriptor, and the caller wraps the memory in a NumPy array that frees it.
"""

from __future__ import annotations

from llvmlite import ir
from xdsl.dialects import memref

from tracejit.codegen.context import Emitter, FunctionEmitter
from tracejit.codegen.llvm_types import I64


def _pointer_as_index(fx: FunctionEmitter, op: memref.ExtractAlignedPointerAsIndexOp) -> ir.Value:
    return fx.b.ptrtoint(fx.memref(op.source).ptr, I64)


OWNERSHIP_EMITTERS: dict[type, Emitter] = {
    memref.ExtractAlignedPointerAsIndexOp: _pointer_as_index,
}
