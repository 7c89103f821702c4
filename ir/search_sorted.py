"""`tj.search_sorted`: NumPy's `np.searchsorted(a, v, side)`, a binary search of each
element of `v` in the sorted 1-d `a`.

    %i = tj.search_sorted "left" %a, %v : tensor<?xf64>, tensor<5x2xf64> -> tensor<5x2xi64>

Element `i` of the result is the number of elements of `a` that sort before `v[i]`
("left": `a[j] < v[i]`) or not after it ("right": `a[j] <= v[i]`), in NumPy's sort order
(NaN after every number). `a` and `v` have one element type (tracing casts both to their
common dtype first, as NumPy does); the result is int64 in `v`'s shape. `a` must be sorted:
as in NumPy, an unsorted `a` gives some position, never a read outside `a`.
`np.digitize`, `np.histogram` with explicit edges and `np.interp` are built on it.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from xdsl.dialects.builtin import StringAttr, TensorType, i64
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

from tracejit.ir.dtypes import is_complex
from tracejit.ir.folding import fold_with_numpy


@irdl_op_definition
class SearchSortedOp(IRDLOperation, HasFolderInterface):
    """Where each element of `values` would go in the sorted `sorted` (module docstring)."""

    name = "tj.search_sorted"
    SIDES: ClassVar = ("left", "right")
    side = prop_def(StringAttr)
    sorted = operand_def(TensorType)
    values = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = (
        "$side $sorted `,` $values attr-dict `:` type($sorted) `,` type($values) `->` type($result)"
    )

    def __init__(self, side: str, sorted: SSAValue, values: SSAValue):
        shape = values.type
        assert isinstance(shape, TensorType)
        super().__init__(
            operands=[sorted, values],
            result_types=[TensorType(i64, shape.get_shape())],
            properties={"side": StringAttr(side)},
        )

    def verify_(self) -> None:
        a, v, result = self.sorted.type, self.values.type, self.result.type
        assert isinstance(a, TensorType) and isinstance(v, TensorType)
        assert isinstance(result, TensorType)
        if self.side.data not in self.SIDES:
            raise VerifyException(
                f"tj.search_sorted side must be left or right, not '{self.side.data}'"
            )
        if a.get_num_dims() != 1:
            raise VerifyException("tj.search_sorted searches a 1-d tensor")
        if a.get_element_type() != v.get_element_type():
            raise VerifyException("tj.search_sorted needs one element type for both operands")
        if is_complex(a.get_element_type()):
            raise VerifyException("tj.search_sorted does not order complex numbers")
        if result != TensorType(i64, v.get_shape()):
            raise VerifyException("tj.search_sorted gives int64 positions in the values' shape")

    def evaluate(self, a: np.ndarray, v: np.ndarray) -> np.ndarray:
        if self.side.data == "left":
            return np.asarray(np.searchsorted(a, v, side="left")).astype(np.int64)
        return np.asarray(np.searchsorted(a, v, side="right")).astype(np.int64)

    def fold(self):
        return fold_with_numpy(self, self.evaluate)
