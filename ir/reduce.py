"""`tj.reduce`: combine a tensor's elements over some axes.

    %s = tj.reduce sum %x, axes = [0] : tensor<4x3xf32> to tensor<3xf32>

The reduced axes are removed from the result (NumPy's `keepdims=True` is a reshape
after it). The element type is kept: tracing casts first where NumPy widens
(`np.sum` of int32 is int64).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import numpy as np
from xdsl.dialects.builtin import DenseArrayBase, StringAttr, TensorType, i64
from xdsl.interfaces import HasFolderInterface
from xdsl.ir import SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from tracejit.ir.dtypes import is_bool
from tracejit.ir.folding import fold_with_numpy


@irdl_op_definition
class ReduceOp(IRDLOperation, HasFolderInterface):
    """Reduce `input` over `axes` with the combiner `kind` (sum, prod, max, min)."""

    name = "tj.reduce"
    KINDS: ClassVar[dict[str, object]] = {
        "sum": np.sum,
        "prod": np.prod,
        "max": np.max,
        "min": np.min,
    }
    kind = prop_def(StringAttr)
    input = operand_def(TensorType)
    axes = prop_def(DenseArrayBase.constr(i64))
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = (
        "$kind $input `,` `axes` `=` $axes attr-dict `:` type($input) `to` type($result)"
    )

    def __init__(self, kind: str, input: SSAValue, axes: Sequence[int], result_type: TensorType):
        super().__init__(
            operands=[input],
            result_types=[result_type],
            properties={
                "kind": StringAttr(kind),
                "axes": DenseArrayBase.from_list(i64, sorted(axes)),
            },
        )

    def get_axes(self) -> tuple[int, ...]:
        return tuple(self.axes.get_values())

    def verify_(self) -> None:
        source, target = self.input.type, self.result.type
        assert isinstance(source, TensorType) and isinstance(target, TensorType)
        if self.kind.data not in self.KINDS:
            raise VerifyException(f"unknown reduction kind '{self.kind.data}'")
        axes = self.get_axes()
        if list(axes) != sorted(set(axes)) or any(not 0 <= a < source.get_num_dims() for a in axes):
            raise VerifyException(f"tj.reduce axes {list(axes)} must be increasing and in range")
        kept = [s for i, s in enumerate(source.get_shape()) if i not in axes]
        if list(target.get_shape()) != kept:
            raise VerifyException(f"tj.reduce result shape must be {kept}")
        if source.get_element_type() != target.get_element_type():
            raise VerifyException("tj.reduce must keep the element type")
        if is_bool(source.get_element_type()):
            raise VerifyException("tj.reduce is not defined on bool tensors")

    def evaluate(self, x: np.ndarray) -> np.ndarray:
        reduce = self.KINDS[self.kind.data]
        return reduce(
            x, axis=self.get_axes(), dtype=None if self.kind.data in ("max", "min") else x.dtype
        )  # type: ignore[operator]

    def fold(self):
        return fold_with_numpy(self, self.evaluate)
