"""`tj.reduce`: combine a tensor's elements over some axes.

    %s = tj.reduce "sum" %x, axes = [0] : tensor<4x3xf32> to tensor<3xf32>
    %i = tj.reduce "argmax" %x, axes = [0, 1] : tensor<4x3xf32> to tensor<i64>
    %a = tj.reduce "any" %b, axes = [1] : tensor<4x3xi1> to tensor<4xi1>

The reduced axes are removed from the result (NumPy's `keepdims=True` is a reshape
after it). `sum`, `prod`, `max` and `min` keep the element type (tracing casts first
where NumPy widens: `np.sum` of int32 is int64) and are not defined on bool (nor `max`
and `min` on complex, whose ordering NumPy defines but tracejit does not); `any` and
`all` reduce bool tensors; `argmax` and `argmin` give the i64 position of the first
extreme element (the first NaN, if any) among the reduced axes flattened in row-major
order, so `axes = [0, 1]` of a 2-D tensor is NumPy's `axis=None`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar

import numpy as np
from xdsl.dialects.builtin import DenseArrayBase, StringAttr, TensorType, i1, i64
from xdsl.interfaces import HasFolderInterface
from xdsl.ir import Attribute, SSAValue
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

from tracejit.ir.dtypes import is_bool, is_complex
from tracejit.ir.folding import fold_with_numpy


def _flat_arg(numpy_arg: Callable[..., np.ndarray]) -> Callable[..., np.ndarray]:
    """argmax/argmin over several axes: move them last, flatten them, take the arg."""

    def evaluate(x: np.ndarray, axis: tuple[int, ...]) -> np.ndarray:
        kept = [d for d in range(x.ndim) if d not in axis]
        moved = np.transpose(x, kept + list(axis))
        # the reduced size spelled out: -1 is ambiguous when a kept dim is 0
        reduced = int(np.prod([x.shape[d] for d in axis], dtype=np.int64))
        flat = moved.reshape(*moved.shape[: len(kept)], reduced)
        return numpy_arg(flat, axis=-1).astype(np.int64)

    return evaluate


def _keep_type(numpy_reduce: Callable[..., np.ndarray]) -> Callable[..., np.ndarray]:
    """sum/prod accumulate in the input dtype (tracing already cast where NumPy widens)."""
    return lambda x, axis: numpy_reduce(x, axis=axis, dtype=x.dtype)


@irdl_op_definition
class ReduceOp(IRDLOperation, HasFolderInterface):
    """Reduce `input` over `axes` with the combiner `kind` (see the module docstring)."""

    name = "tj.reduce"
    # kind -> its NumPy meaning, evaluate(x, axis=tuple) (the constant folder and the reference)
    KINDS: ClassVar[dict[str, Callable[..., np.ndarray]]] = {
        "sum": _keep_type(np.sum),
        "prod": _keep_type(np.prod),
        "max": lambda x, axis: np.max(x, axis=axis),
        "min": lambda x, axis: np.min(x, axis=axis),
        # NumPy's stubs type any/all as returning np.bool even for a tuple `axis`
        "any": lambda x, axis: np.any(x, axis=axis),  # type: ignore[dict-item,return-value]  # an array for a tuple axis
        "all": lambda x, axis: np.all(x, axis=axis),  # type: ignore[dict-item,return-value]  # an array for a tuple axis
        "argmax": _flat_arg(np.argmax),
        "argmin": _flat_arg(np.argmin),
    }
    BOOL_KINDS: ClassVar[frozenset[str]] = frozenset({"any", "all"})
    INDEX_KINDS: ClassVar[frozenset[str]] = frozenset({"argmax", "argmin"})
    COMPLEX_KINDS: ClassVar[frozenset[str]] = frozenset({"sum", "prod"})
    # NumPy raises on these over a zero-size axis: there is no identity to start from
    NO_IDENTITY: ClassVar[frozenset[str]] = frozenset({"max", "min", "argmax", "argmin"})
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
        kind = self.kind.data
        if kind not in self.KINDS:
            raise VerifyException(f"unknown reduction kind '{kind}'")
        axes = self.get_axes()
        if list(axes) != sorted(set(axes)) or any(not 0 <= a < source.get_num_dims() for a in axes):
            raise VerifyException(f"tj.reduce axes {list(axes)} must be increasing and in range")
        kept = [s for i, s in enumerate(source.get_shape()) if i not in axes]
        if list(target.get_shape()) != kept:
            raise VerifyException(f"tj.reduce result shape must be {kept}")
        if kind in self.NO_IDENTITY and any(source.get_shape()[a] == 0 for a in axes):
            raise VerifyException(f"tj.reduce {kind} over a zero-size axis has no result")
        self._verify_element_types(source.get_element_type(), target.get_element_type())

    def _verify_element_types(self, source: Attribute, target: Attribute) -> None:
        kind = self.kind.data
        if kind in self.BOOL_KINDS:
            if source != i1 or target != i1:
                raise VerifyException(f"tj.reduce {kind} reduces i1 tensors to i1")
            return
        if is_bool(source):
            raise VerifyException(f"tj.reduce {kind} is not defined on bool tensors")
        if is_complex(source) and kind not in self.COMPLEX_KINDS:
            raise VerifyException(f"tj.reduce {kind} is not defined on complex tensors")
        expected = i64 if kind in self.INDEX_KINDS else source
        if target != expected:
            raise VerifyException(f"tj.reduce {kind} result element type must be {expected}")

    def evaluate(self, x: np.ndarray) -> np.ndarray:
        return self.KINDS[self.kind.data](x, axis=self.get_axes())

    def fold(self):
        return fold_with_numpy(self, self.evaluate)
