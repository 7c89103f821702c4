"""`tj.sort`: sort a tensor along one axis, giving the sorted values or their positions.

    %s = tj.sort "values" %x, axis = 1 : tensor<4x3xf32> to tensor<4x3xf32>
    %i = tj.sort "indices" %x, axis = 0 : tensor<5xf32> to tensor<5xi64>

`values` is `np.sort(x, axis)`; `indices` is `np.argsort(x, axis, kind="stable")`: the i64
positions along `axis` that put the elements in ascending order, equal elements keeping
their order (a stable sort). NaN sorts after every number (+inf included), as in NumPy;
signed integers compare signed, unsigned ones unsigned, bools as False < True.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

import numpy as np
from xdsl.dialects.builtin import I64, IntegerAttr, StringAttr, TensorType, i64
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

from tracejit.ir.folding import fold_with_numpy


def _argsort(x: np.ndarray, axis: int) -> np.ndarray:
    return np.argsort(x, axis=axis, kind="stable").astype(np.int64)


@irdl_op_definition
class SortOp(IRDLOperation, HasFolderInterface):
    """Sort `input` along `axis`; `kind` says what the result holds (module docstring)."""

    name = "tj.sort"
    # kind -> its NumPy meaning, evaluate(x, axis) (the constant folder and the reference)
    KINDS: ClassVar[dict[str, Callable[[np.ndarray, int], np.ndarray]]] = {
        "values": lambda x, axis: np.sort(x, axis=axis, kind="stable"),
        "indices": _argsort,
    }
    kind = prop_def(StringAttr)
    input = operand_def(TensorType)
    axis = prop_def(IntegerAttr[I64])
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = (
        "$kind $input `,` `axis` `=` $axis attr-dict `:` type($input) `to` type($result)"
    )

    def __init__(self, kind: str, input: SSAValue, axis: int):
        source = input.type
        assert isinstance(source, TensorType)
        result = source if kind == "values" else TensorType(i64, source.get_shape())
        super().__init__(
            operands=[input],
            result_types=[result],
            properties={"kind": StringAttr(kind), "axis": IntegerAttr(axis, i64)},
        )

    def get_axis(self) -> int:
        return self.axis.value.data

    def verify_(self) -> None:
        source, target = self.input.type, self.result.type
        assert isinstance(source, TensorType) and isinstance(target, TensorType)
        kind = self.kind.data
        if kind not in self.KINDS:
            raise VerifyException(f"unknown tj.sort kind '{kind}'")
        if not 0 <= self.get_axis() < source.get_num_dims():
            raise VerifyException(f"tj.sort axis {self.get_axis()} out of range")
        element = source.get_element_type() if kind == "values" else i64
        expected = TensorType(element, source.get_shape())
        if target != expected:
            raise VerifyException(f"tj.sort {kind} result type must be {expected}")

    def evaluate(self, x: np.ndarray) -> np.ndarray:
        return self.KINDS[self.kind.data](x, self.get_axis())

    def fold(self):
        return fold_with_numpy(self, self.evaluate)
