"""`tj.constant`: a tensor literal, and the dialect's constant materialisation."""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from xdsl.dialect_interfaces.constant_materialization import ConstantMaterializationInterface
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, TensorType
from xdsl.interfaces import HasFolderInterface
from xdsl.ir import Attribute, Operation
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    ParamAttrConstraint,
    VarConstraint,
    irdl_op_definition,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import ConstantLike, Pure

from tracejit.ir.dense import array_from_dense, dense_from_array, print_dense, splat_from_dense


@irdl_op_definition
class ConstantOp(IRDLOperation, HasFolderInterface):
    """A tensor literal.

    %c = tj.constant dense<[1.0, 2.0]> : tensor<2xf32>
    """

    name = "tj.constant"
    T: ClassVar = VarConstraint("T", TensorType.constr())
    value = prop_def(ParamAttrConstraint(DenseIntOrFPElementsAttr, (T, AnyAttr())))
    result = result_def(T)
    traits = traits_def(Pure(), ConstantLike())

    def __init__(self, value: DenseIntOrFPElementsAttr):
        super().__init__(result_types=[value.get_type()], properties={"value": value})

    @staticmethod
    def from_array(array: np.ndarray) -> ConstantOp:
        return ConstantOp(dense_from_array(np.asarray(array)))

    def to_array(self) -> np.ndarray:
        return array_from_dense(self.value)

    def splat(self) -> np.generic | None:
        """The value of every element when all are bit-identical (-0.0 is not 0.0; a NaN
        splat is one), else None.

        A constant with no elements is a splat of zero: no two of its elements differ, and
        whoever uses the value reads none of it (a `tj.fused` body op over an empty domain,
        which canonicalize and constant-fold leave such constants in; a fill that writes
        nothing; an algebraic rewrite whose result is empty too)."""
        return splat_from_dense(self.value)

    def fold(self):
        return (self.value,)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        print_dense(printer, self.value)
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser) -> ConstantOp:
        value = parser.parse_attribute()
        if not isinstance(value, DenseIntOrFPElementsAttr):
            parser.raise_error("tj.constant expects a dense elements attribute")
        op = cls(value)
        op.attributes |= parser.parse_optional_attr_dict()
        return op


class TjConstantMaterialization(ConstantMaterializationInterface):
    """Lets `canonicalize` turn a folded attribute back into a `tj.constant`."""

    def materialize_constant(self, value: Attribute, type: Attribute) -> Operation | None:
        if isinstance(value, DenseIntOrFPElementsAttr) and value.get_type() == type:
            return ConstantOp(value)
        return None
