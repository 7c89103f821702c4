"""`tj.poison`: the result of an op that failed while tracing, its error still pending.

    %p = tj.poison "IndexError: index 1 is out of bounds for axis 0 with size 1 (f.py:4)"
           : tensor<1xf32>

NumPy raises some errors from the data (an index out of range, an integer raised to a
negative power); TensorFlow raises them only when the op runs, and not at all when the
op's result is unused (non-strict execution). When such an error shows up while tracing,
the frontend stages this op in place of the failing op's result and keeps the exception;
the trace ends by raising it if the value is used, or by removing the op (and what only it
feeds) if not: see frontend/staging/non_strict.py. So traced IR never contains a `tj.poison`; the
op exists in the dialect so that the trace in between is ordinary, verifiable IR.

It is `Pure` and has no operands: like any pure op whose result is unused, DCE removes it.
Its value is not defined (it has no lowering); `message` ("ErrorType: text", as in
`tj.assert`) is the error the frontend raises when the value is used.
"""

from __future__ import annotations

from xdsl.dialects.builtin import StringAttr, TensorType
from xdsl.irdl import IRDLOperation, irdl_op_definition, prop_def, result_def, traits_def
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException


@irdl_op_definition
class PoisonOp(IRDLOperation):
    """A tensor whose computation failed with `message` (see the module doc)."""

    name = "tj.poison"
    message = prop_def(StringAttr)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = "$message attr-dict `:` type($result)"

    def __init__(self, message: str, result_type: TensorType):
        super().__init__(result_types=[result_type], properties={"message": StringAttr(message)})

    def verify_(self) -> None:
        error_type, _, text = self.message.data.partition(": ")
        if not error_type.isidentifier() or not text:
            raise VerifyException("tj.poison message must look like 'ErrorType: text'")
