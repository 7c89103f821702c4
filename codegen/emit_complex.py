"""Emitters for the `complex` dialect ops that loop bodies hold: `complex.re`, `complex.im`
and `complex.create`.

A `complex<fN>` value is the LLVM literal struct `{fN, fN}` (llvm_types.py); the parts are
`extractvalue`s and `insertvalue`s, which LLVM's optimiser takes apart again (SROA and
instcombine), so complex arithmetic ends as plain float instructions on the two parts.
Complex arithmetic itself never reaches codegen: `bufferize` writes it as float ops
(passes/support/complex_semantics.py).
"""

from __future__ import annotations

from llvmlite import ir
from xdsl.dialects import complex
from xdsl.ir import Operation

from tracejit.codegen.context import Emitter, FunctionEmitter
from tracejit.codegen.llvm_types import scalar_type


def _re(fx: FunctionEmitter, op: complex.ReOp) -> ir.Value:
    return fx.b.extract_value(fx.get(op.complex), 0)


def _im(fx: FunctionEmitter, op: complex.ImOp) -> ir.Value:
    return fx.b.extract_value(fx.get(op.complex), 1)


def _create(fx: FunctionEmitter, op: complex.CreateOp) -> ir.Value:
    pair = ir.Constant(scalar_type(op.complex.type), ir.Undefined)
    pair = fx.b.insert_value(pair, fx.get(op.real), 0)
    return fx.b.insert_value(pair, fx.get(op.imaginary), 1)


COMPLEX_EMITTERS: dict[type[Operation], Emitter] = {
    complex.ReOp: _re,
    complex.ImOp: _im,
    complex.CreateOp: _create,
}
