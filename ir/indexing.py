"""`tj.gather`: pick slices of a tensor along one axis with an integer index tensor.

    %g = tj.gather %x[%idx], axis = 1, "IndexError: index out of bounds for axis 1 with size 5"
           : (tensor<4x5xf32>, tensor<2x3xi64>) -> tensor<4x2x3xf32>

is `np.take(x, idx, axis=1)`: the result shape is `x.shape[:axis] + idx.shape +
x.shape[axis+1:]`. Negative indices count from the end, as in NumPy. The indices may
only be known at run time, so the kernel checks them: an index outside `[-n, n)` fails
the call with `message` ("ErrorType: text", like `tj.assert`), unless the op is marked
`in_bounds`: its indices are known to lie in `[0, n)` (`x[mask]` gathers the positions of
the mask's true elements, whose shape was checked against `x`'s first), and are read
unchecked. The op is still `Pure`:
like any pure op, a gather whose result is unused is removed, and its check with it
(non-strict execution, as in TensorFlow).
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import I64, IntegerAttr, StringAttr, TensorType, UnitAttr, i64
from xdsl.interfaces import HasFolderInterface
from xdsl.ir import SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from tracejit.ir.dtypes import is_integer
from tracejit.ir.folding import fold_with_numpy


def gather_shape(source: tuple[int, ...], indices: tuple[int, ...], axis: int) -> tuple[int, ...]:
    return (*source[:axis], *indices, *source[axis + 1 :])


def out_of_range(indices: np.ndarray, size: int) -> bool:
    """True when some index is outside NumPy's valid range `[-size, size)`."""
    if indices.dtype.kind == "u":
        return bool((indices >= size).any())
    return bool(((indices < -size) | (indices >= size)).any())


@irdl_op_definition
class GatherOp(IRDLOperation, HasFolderInterface):
    """`np.take(input, indices, axis)` with a run-time bounds check (see the module doc).
    Dims may be unknown at trace time: the input's (`x[-1]` of `tensor<?x3xf32>` gathers
    a 0-d index, checked against the run-time size) and the indices' (`x[mask]` gathers
    the `tensor<?xi64>` of the mask's `tj.nonzero`)."""

    name = "tj.gather"
    input = operand_def(TensorType)
    indices = operand_def(TensorType)
    axis = prop_def(IntegerAttr[I64])
    message = prop_def(StringAttr)
    in_bounds = opt_prop_def(UnitAttr)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = (
        "$input `[` $indices `]` `,` `axis` `=` $axis `,` $message (`in_bounds` $in_bounds^)? "
        "attr-dict `:` `(` type($input) `,` type($indices) `)` `->` type($result)"
    )

    def __init__(
        self,
        input: SSAValue,
        indices: SSAValue,
        axis: int,
        message: str,
        result_type: TensorType,
        in_bounds: bool = False,
    ):
        properties: dict = {"axis": IntegerAttr(axis, i64), "message": StringAttr(message)}
        if in_bounds:
            properties["in_bounds"] = UnitAttr()
        super().__init__(
            operands=[input, indices], result_types=[result_type], properties=properties
        )

    def get_axis(self) -> int:
        return self.axis.value.data

    def verify_(self) -> None:
        source, indices, target = self.input.type, self.indices.type, self.result.type
        assert isinstance(source, TensorType) and isinstance(indices, TensorType)
        assert isinstance(target, TensorType)
        if source.get_element_type() != target.get_element_type():
            raise VerifyException("tj.gather must keep the element type")
        if not is_integer(indices.get_element_type()):
            raise VerifyException(
                f"tj.gather indices must be integers, got {indices.get_element_type()}"
            )
        axis = self.get_axis()
        if not 0 <= axis < source.get_num_dims():
            raise VerifyException(f"tj.gather axis {axis} out of range")
        expected = gather_shape(source.get_shape(), indices.get_shape(), axis)
        if tuple(target.get_shape()) != expected:
            raise VerifyException(f"tj.gather result shape must be {list(expected)}")
        error_type, _, text = self.message.data.partition(": ")
        if not error_type.isidentifier() or not text:
            raise VerifyException("tj.gather message must look like 'ErrorType: text'")

    def evaluate(self, x: np.ndarray, indices: np.ndarray) -> np.ndarray:
        if out_of_range(indices, x.shape[self.get_axis()]):
            raise IndexError(self.message.data.partition(": ")[2])
        return np.take(x, indices.astype(np.int64), axis=self.get_axis())

    def fold(self):
        try:
            return fold_with_numpy(self, self.evaluate)
        except IndexError:  # leave the failure to run time, where the check reports it
            return None
