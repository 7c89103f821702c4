"""`tj.scatter_combine`: NumPy's unbuffered `ufunc.at` (`np.add.at(a, idx, v)`) on a 1-d
tensor, the scatter-add family.

    %r = tj.scatter_combine "tj.add" %v into %a[%idx], "IndexError: index 7 is out of bounds"
           : tensor<3xf32> into tensor<6xf32>, tensor<3xi64>

For k = 0, 1, ... in order: `a[idx[k]] = cast(combiner(cast(a[idx[k]]), v[k]))` (a 0-d
`v` is one update for every index: `np.bincount` adds 1s without an array of them), the
combiner (an element-wise binary `tj` op, named) applied in the updates' element type and
the result cast back to `a`'s (NumPy's `ufunc.at` computes in its loop's dtype and casts
back unsafely: `np.add.at(int_array, i, 1.5)` truncates after every step). A repeated
index combines every one of its updates, unlike `tj.scatter` (`a[idx] = v`, the last
wins). Indices wrap and are checked as `tj.scatter`'s: outside `[-n, n)` the call fails
with `message` before anything is written out of bounds.

A unary combiner gives the unary `ufunc.at` (`np.negative.at(a, idx)`):

    %r = tj.scatter_combine "tj.neg" %t into %a[%idx], "IndexError: ..."
           : tensor<f32> into tensor<6xf32>, tensor<3xi64>

`a[idx[k]] = cast(combiner(cast(a[idx[k]])))` for each k in order, so a repeated index
applies the function again (NumPy's unbuffered loop: `np.negative.at(a, [0, 0])` leaves
a[0] as it was). `updates` is then 0-d and only its element type is used: the dtype the
function computes in. A unary combiner is an element-wise unary `tj` op, or one of
PSEUDO_UNARY, NumPy functions that are no single op: "square" (x * x), "reciprocal" of a
float (1 / x) and "identity" (np.positive: the indices are still checked).

`np.bincount` is a `scatter_combine "tj.add"` of ones (or the weights) into zeros, and
`np.histogram` one of its bin numbers.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from xdsl.dialects.builtin import StringAttr, TensorType
from xdsl.interfaces import HasFolderInterface
from xdsl.ir import SSAValue
from xdsl.irdl import (
    IRDLOperation,
    VarConstraint,
    base,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from tracejit.ir.complex_parts import ConjOp, ReciprocalOp
from tracejit.ir.dtypes import element_kind, element_of, is_integer, numpy_dtype
from tracejit.ir.elementwise_base import (
    ANY,
    ARITHMETIC,
    COMPLEXES,
    FLOATS,
    ElementwiseBinaryOp,
    ElementwiseUnaryOp,
)
from tracejit.ir.elementwise_binary import BINARY_OPS
from tracejit.ir.elementwise_unary import UNARY_OPS
from tracejit.ir.folding import fold_with_numpy
from tracejit.ir.indexing import out_of_range

# combiner name -> the element-wise op it applies
COMBINERS: dict[str, type[ElementwiseBinaryOp]] = {op.name: op for op in BINARY_OPS}
# unary combiner name -> the element-wise op it applies to the old element
UNARY_COMBINERS: dict[str, type[ElementwiseUnaryOp]] = {
    op.name: op for op in (*UNARY_OPS, ConjOp, ReciprocalOp)
}
# unary combiners that are no single op: name -> (NumPy's function, the element kinds)
PSEUDO_UNARY: dict[str, tuple[np.ufunc, frozenset[str]]] = {
    "square": (np.square, ARITHMETIC),  # x * x (tj.mul of the element with itself)
    "reciprocal": (np.reciprocal, FLOATS),  # 1 / x (tj.div)
    "identity": (np.positive, ANY | COMPLEXES),
}


def is_unary(combiner: str) -> bool:
    return combiner in UNARY_COMBINERS or combiner in PSEUDO_UNARY


@irdl_op_definition
class ScatterCombineOp(IRDLOperation, HasFolderInterface):
    """`dest` (1-d) with `dest[indices[k]] = combiner(dest[indices[k]], updates[k])` for
    each k in order (the module docstring says the casts)."""

    name = "tj.scatter_combine"
    combiner = prop_def(StringAttr)
    updates = operand_def(TensorType)
    T: ClassVar = VarConstraint("T", base(TensorType))
    dest = operand_def(T)
    indices = operand_def(TensorType)
    message = prop_def(StringAttr)
    result = result_def(T)
    traits = traits_def(Pure())
    assembly_format = (
        "$combiner $updates `into` $dest `[` $indices `]` `,` $message attr-dict "
        "`:` type($updates) `into` type($dest) `,` type($indices)"
    )

    def __init__(
        self, combiner: str, updates: SSAValue, dest: SSAValue, indices: SSAValue, message: str
    ):
        super().__init__(
            operands=[updates, dest, indices],
            result_types=[dest.type],
            properties={"combiner": StringAttr(combiner), "message": StringAttr(message)},
        )

    def combiner_op(self) -> type[ElementwiseBinaryOp]:
        return COMBINERS[self.combiner.data]

    @property
    def is_unary(self) -> bool:
        return is_unary(self.combiner.data)

    def verify_(self) -> None:
        updates, dest, indices = self.updates.type, self.dest.type, self.indices.type
        assert isinstance(updates, TensorType) and isinstance(dest, TensorType)
        assert isinstance(indices, TensorType)
        name = self.combiner.data
        combiner = COMBINERS.get(name) or UNARY_COMBINERS.get(name)
        domain = PSEUDO_UNARY[name][1] if name in PSEUDO_UNARY else None
        if combiner is None and domain is None:
            raise VerifyException(
                f"tj.scatter_combine combiner '{name}' is not an element-wise tj op (or one "
                f"of {', '.join(PSEUDO_UNARY)})"
            )
        if self.is_unary and updates.get_num_dims() != 0:
            raise VerifyException(
                "tj.scatter_combine with a unary combiner takes a 0-d updates operand (its "
                "element type is the one computed in)"
            )
        if self.result.type != dest or dest.get_num_dims() != 1:
            raise VerifyException("tj.scatter_combine updates a 1-d dest and returns its type")
        if domain is None:
            assert combiner is not None  # one of the two (checked above)
            domain = combiner.DOMAIN
        if element_kind(updates.get_element_type()) not in domain:
            raise VerifyException(f"{name} is not defined on {updates.get_element_type()} updates")
        if not is_integer(indices.get_element_type()) or indices.get_num_dims() != 1:
            raise VerifyException("tj.scatter_combine indices must be a 1-d integer tensor")
        one_each = updates.get_num_dims() == 1 and updates.get_shape() == indices.get_shape()
        if updates.get_num_dims() != 0 and not one_each:
            raise VerifyException("tj.scatter_combine needs one update per index, or a 0-d one")
        error_type, _, text = self.message.data.partition(": ")
        if not error_type.isidentifier() or not text:
            raise VerifyException("tj.scatter_combine message must look like 'ErrorType: text'")

    def evaluate(self, updates: np.ndarray, dest: np.ndarray, indices: np.ndarray) -> np.ndarray:
        if out_of_range(indices, dest.shape[0]):
            raise IndexError(self.message.data.partition(": ")[2])
        combine = self._numpy_combine()
        compute = numpy_dtype(element_of(self.updates))
        updated = dest.copy()
        every = np.broadcast_to(updates, indices.shape)
        for k, i in enumerate(indices.astype(np.int64)):
            old = np.asarray(updated[i]).astype(compute)
            updated[i] = np.asarray(combine(old, every[k])).astype(dest.dtype)
        return updated

    def _numpy_combine(self):
        name = self.combiner.data
        if name in PSEUDO_UNARY:
            function = PSEUDO_UNARY[name][0]
            return lambda old, _: function(old)
        if name in UNARY_COMBINERS:
            return lambda old, _: UNARY_COMBINERS[name].NUMPY(old)
        return self.combiner_op().NUMPY

    def fold(self):
        try:
            return fold_with_numpy(self, self.evaluate)
        except IndexError:  # the kernel's check reports it at run time
            return None
