"""State and run-time effects: Variables, printing and Python callbacks.

A Variable captured by a traced function is a function argument of type
`!tj.var<tensor<...>>`: a handle to its buffer, which the kernel reads and writes in
place. Reads and writes carry memory effects, so CSE merges two reads only when no
write lies between them, and nothing here is ever removed as dead.

    %v = tj.var_read %handle : !tj.var<tensor<3xf32>> -> tensor<3xf32>
    tj.var_write %new, %handle : tensor<3xf32>, !tj.var<tensor<3xf32>>
    tj.print %x, %y {pieces = ["x = ", ", y = ", "\\n"]} : tensor<3xf32>, tensor<i64>
    %r = tj.py_call %x {callback = "py_function_0"} : (tensor<3xf32>) -> tensor<3xf32>
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import ArrayAttr, StringAttr, TensorType
from xdsl.ir import Attribute, ParametrizedAttribute, SSAValue, TypeAttribute
from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    param_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect
from xdsl.utils.exceptions import VerifyException


@irdl_attr_definition
class VarType(ParametrizedAttribute, TypeAttribute):
    """`!tj.var<tensor<3xf32>>`: the handle of a Variable holding a tensor<3xf32>."""

    name = "tj.var"
    value_type: TensorType = param_def()

    def __init__(self, value_type: TensorType):
        super().__init__(value_type)


@irdl_op_definition
class VarReadOp(IRDLOperation):
    """The Variable's current value."""

    name = "tj.var_read"
    var = operand_def(VarType)
    result = result_def(TensorType)
    traits = traits_def(MemoryReadEffect())
    assembly_format = "$var attr-dict `:` type($var) `->` type($result)"

    def __init__(self, var: SSAValue):
        assert isinstance(var.type, VarType)
        super().__init__(operands=[var], result_types=[var.type.value_type])

    def verify_(self) -> None:
        assert isinstance(self.var.type, VarType)
        if self.result.type != self.var.type.value_type:
            raise VerifyException("tj.var_read result must be the Variable's value type")


@irdl_op_definition
class VarWriteOp(IRDLOperation):
    """Overwrite the Variable's value in place."""

    name = "tj.var_write"
    value = operand_def(TensorType)
    var = operand_def(VarType)
    traits = traits_def(MemoryWriteEffect())
    assembly_format = "$value `,` $var attr-dict `:` type($value) `,` type($var)"

    def __init__(self, value: SSAValue, var: SSAValue):
        super().__init__(operands=[value, var])

    def verify_(self) -> None:
        assert isinstance(self.var.type, VarType)
        if self.value.type != self.var.type.value_type:
            raise VerifyException(
                f"tj.var_write of {self.value.type} into a Variable of {self.var.type.value_type}"
            )


@irdl_op_definition
class PrintOp(IRDLOperation):
    """Print `pieces[0] values[0] pieces[1] ... values[n-1] pieces[n]` at run time, tensors
    formatted as NumPy formats them."""

    name = "tj.print"
    values = var_operand_def(TensorType)
    pieces = prop_def(ArrayAttr[StringAttr])
    traits = traits_def(MemoryWriteEffect())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "($values^)? attr-dict (`:` type($values)^)?"

    def __init__(self, values: Sequence[SSAValue], pieces: Sequence[str]):
        super().__init__(
            operands=[values],
            properties={"pieces": ArrayAttr([StringAttr(p) for p in pieces])},
        )

    def verify_(self) -> None:
        if len(self.pieces.data) != len(self.values) + 1:
            raise VerifyException("tj.print needs one more text piece than values")


@irdl_op_definition
class PyCallOp(IRDLOperation):
    """Call the Python function registered as `callback` on NumPy arrays, at run time."""

    name = "tj.py_call"
    inputs = var_operand_def(TensorType)
    outputs = var_result_def(TensorType)
    callback = prop_def(StringAttr)
    traits = traits_def(MemoryWriteEffect())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$inputs attr-dict `:` functional-type($inputs, $outputs)"

    def __init__(
        self, inputs: Sequence[SSAValue], output_types: Sequence[Attribute], callback: str
    ):
        super().__init__(
            operands=[inputs],
            result_types=[output_types],
            properties={"callback": StringAttr(callback)},
        )


STATE_OPS = (VarReadOp, VarWriteOp, PrintOp, PyCallOp)
STATE_TYPES = (VarType,)
