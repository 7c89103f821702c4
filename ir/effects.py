"""`tj` ops with side effects: they are never merged, removed or reordered.

    tj.assert %ok, "IndexError: index out of range for axis 0 with size 3 (f.py:4)" : tensor<i1>

The message starts with the Python exception class the caller sees when the
condition is false at run time (`IndexError`, `InvalidArgumentError`, ...).

    tj.check_interrupt

stops the call with KeyboardInterrupt when Ctrl-C was pressed since the compiled function
was entered (`tj.clear_interrupt` at its entry forgets an earlier one): staged loops check
on every trip (passes/lower_control_flow.py). bufferize turns them into upstream MLIR: calls
of `@tracejit_interrupted() -> i1` (with a `cf.assert`) and `@tracejit_clear_interrupt()`,
which the code generator emits as a load and a store of the process's flag
(codegen/interrupts.py).
"""

from __future__ import annotations

from xdsl.dialects.builtin import StringAttr, TensorType, i1
from xdsl.ir import SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    prop_def,
    traits_def,
)
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


@irdl_op_definition
class ClearInterruptOp(IRDLOperation):
    """Forget a Ctrl-C pressed before the function was entered (Python has raised its
    KeyboardInterrupt for it already): at the entry of a function that polls."""

    name = "tj.clear_interrupt"
    traits = traits_def(MemoryWriteEffect())
    assembly_format = "attr-dict"


@irdl_op_definition
class CheckInterruptOp(IRDLOperation):
    """Stop the call with KeyboardInterrupt if Ctrl-C was pressed (bufferize makes it a
    call of `@tracejit_interrupted` and a `cf.assert`)."""

    name = "tj.check_interrupt"
    traits = traits_def(MemoryWriteEffect())
    assembly_format = "attr-dict"
