"""`tj` ops with side effects: they are never merged, removed or reordered.

    tj.assert %ok, "IndexError: index out of range for axis 0 with size 3 (f.py:4)" : tensor<i1>

The message starts with the Python exception class the caller sees when the
condition is false at run time (`IndexError`, `InvalidArgumentError`, ...).
"""

from __future__ import annotations

from xdsl.dialects.builtin import StringAttr, TensorType, i1
from xdsl.ir import SSAValue
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, prop_def, traits_def
from xdsl.traits import MemoryWriteEffect
from xdsl.utils.exceptions import VerifyException


@irdl_op_definition
class AssertOp(IRDLOperation):
    """Fail the call with `message` unless the 0-d bool `condition` is true."""

    name = "tj.assert"
    condition = operand_def(TensorType)
    message = prop_def(StringAttr)
    traits = traits_def(MemoryWriteEffect())
    assembly_format = "$condition `,` $message attr-dict `:` type($condition)"

    def __init__(self, condition: SSAValue, message: str):
        super().__init__(operands=[condition], properties={"message": StringAttr(message)})

    def verify_(self) -> None:
        ttype = self.condition.type
        assert isinstance(ttype, TensorType)
        if ttype.get_shape() != () or ttype.get_element_type() != i1:
            raise VerifyException(f"tj.assert expects a tensor<i1> condition, got {ttype}")
        error_type, _, text = self.message.data.partition(": ")
        if not error_type.isidentifier() or not text:
            raise VerifyException("tj.assert message must look like 'ErrorType: text'")
