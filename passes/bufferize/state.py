"""Buffer forms of Variable reads/writes, `tj.print` and `tj.py_call` (used by `bufferize`).

* A Variable handle argument is the Variable's own buffer: `tj.var_write` copies the
  new value into it (in place); `tj.var_read` copies the current value out, so later
  writes do not change a value already read.
* `tj.print` and `tj.py_call` become calls of run-time callbacks: bodiless functions
  named `__tj_callback_<n>`, taking the buffers (inputs, then outputs) and returning an
  i32 status. The caller binds each to a Python function when it compiles the module
  (see `runtime/callbacks.py`); a non-zero status fails the call with the message
  "CallbackError: <n>", and the caller re-raises the callback's own exception.

    tj.print %x {pieces = ["x = ", "\\n"]} : tensor<3xf32>
      ->  %s = func.call @__tj_callback_0(%x) : (memref<3xf32>) -> i32
          %ok = arith.cmpi eq, %s, %c0 : i32
          cf.assert %ok, "CallbackError: __tj_callback_0"
      with  func.func private @__tj_callback_0(memref<3xf32>) -> i32
              attributes {tj.print = ["x = ", "\\n"]}
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith, cf, func
from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, StringAttr, i32
from xdsl.ir import Attribute, Operation, SSAValue

from tracejit.ir.dtypes import element_of, numpy_dtype
from tracejit.ir.invariants import first_op
from tracejit.ir.runtime_contract import (
    ARG_DTYPES_ATTR,
    CALLBACK_ERROR,
    CALLBACK_PREFIX,
    PRINT_ATTR,
    PY_FUNCTION_ATTR,
    check_message,
)
from tracejit.ir.state import PrintOp, PyCallOp, VarReadOp, VarWriteOp
from tracejit.passes.bufferize.builder import FunctionBufferizer, Handler


def lower_var_read(bufferizer: FunctionBufferizer, op: VarReadOp) -> None:
    snapshot = bufferizer.destination(op.result)
    bufferizer.copy_into(bufferizer.values[op.var], snapshot)
    bufferizer.values[op.result] = snapshot


def lower_var_write(bufferizer: FunctionBufferizer, op: VarWriteOp) -> None:
    bufferizer.copy_into(bufferizer.values[op.value], bufferizer.values[op.var])


def lower_print(bufferizer: FunctionBufferizer, op: PrintOp) -> None:
    buffers = [bufferizer.values[v] for v in op.values]
    _call_callback(bufferizer, buffers, op.values, PRINT_ATTR, op.pieces)


def lower_py_call(bufferizer: FunctionBufferizer, op: PyCallOp) -> None:
    outputs = [bufferizer.destination(r) for r in op.outputs]
    inputs = [bufferizer.values[v] for v in op.inputs]
    tensors = [*op.inputs, *op.outputs]
    _call_callback(bufferizer, inputs + outputs, tensors, PY_FUNCTION_ATTR, op.callback)
    for result, buffer in zip(op.outputs, outputs, strict=True):
        bufferizer.values[result] = buffer


def _call_callback(
    bufferizer: FunctionBufferizer,
    buffers: Sequence[SSAValue],
    tensors: Sequence[SSAValue],
    kind: str,
    payload: Attribute,
) -> None:
    """Declare a callback taking `buffers`, call it, and fail the call on a bad status.

    The declaration records the NumPy dtypes of the `tensors` the buffers hold
    (`tj.arg_dtypes`), which signless buffer types lose (ui8 -> i8)."""
    name = _declare_callback(bufferizer, [b.type for b in buffers], kind, payload)
    declaration = bufferizer.module.body.block.first_op
    assert isinstance(declaration, func.FuncOp)
    declaration.attributes[ARG_DTYPES_ATTR] = ArrayAttr(
        [StringAttr(numpy_dtype(element_of(t)).name) for t in tensors]
    )
    builder = bufferizer.builder
    status = builder.insert(func.CallOp(name, list(buffers), [i32])).res[0]
    zero = builder.insert(arith.ConstantOp(IntegerAttr(0, i32))).result
    ok = builder.insert(arith.CmpiOp(status, zero, "eq")).result
    builder.insert(cf.AssertOp(ok, check_message(CALLBACK_ERROR, name)))


def _declare_callback(
    bufferizer: FunctionBufferizer, types: Sequence[Attribute], kind: str, payload: Attribute
) -> str:
    block = bufferizer.module.body.block
    taken = {op.sym_name.data for op in block.ops if isinstance(op, func.FuncOp)}
    index = sum(1 for name in taken if name.startswith(CALLBACK_PREFIX))
    while f"{CALLBACK_PREFIX}{index}" in taken:
        index += 1
    name = f"{CALLBACK_PREFIX}{index}"
    declaration = func.FuncOp.external(name, list(types), [i32])
    declaration.attributes[kind] = payload
    block.insert_op_before(declaration, first_op(block))
    return name


STATE_HANDLERS: dict[type[Operation], Handler] = {
    VarReadOp: lower_var_read,
    VarWriteOp: lower_var_write,
    PrintOp: lower_print,
    PyCallOp: lower_py_call,
}

__all__ = ["CALLBACK_PREFIX", "STATE_HANDLERS"]
