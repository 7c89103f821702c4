"""`tj.fft`: the discrete Fourier transform of every line of a complex tensor along one axis.

    %y = tj.fft "forward" %x, axis = 1, norm = "backward" : tensor<4x8xcomplex<f64>>
    %z = tj.fft "inverse" %y, axis = 0, norm = "ortho" : tensor<?x8xcomplex<f32>>

With `n` the length of `axis`, element `k` of a line is

    forward:  sum_j x[j] * exp(-2 pi i j k / n) * scale
    inverse:  sum_j x[j] * exp(+2 pi i j k / n) * scale

where `norm` picks `scale` as NumPy's `np.fft` does: "backward" scales the inverse by
1/n, "forward" scales the forward transform by 1/n, "ortho" scales both by 1/sqrt(n).
So `tj.fft "forward"` is `np.fft.fft(x, axis=axis, norm=norm)` and `tj.fft "inverse"` is
`np.fft.ifft`. The element type is complex64 or complex128 (tracing casts real inputs
first, as NumPy does) and the result has the input's type. `n` must be known at trace
time and positive: the transform's loops are planned for it (`bufferize` expands the op,
passes/bufferize/fft.py); the other dims may be `?`.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    I64,
    ComplexType,
    IntegerAttr,
    StringAttr,
    TensorType,
    i64,
)
from xdsl.interfaces import HasFolderInterface
from xdsl.ir import SSAValue
from xdsl.irdl import (
    IRDLOperation,
    VarConstraint,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from tracejit.ir.folding import fold_with_numpy


def fft_scale(direction: str, norm: str, n: int) -> float:
    """The factor a transform of length `n` multiplies its sums by (module docstring)."""
    scaled = {"backward": "inverse", "forward": "forward"}.get(norm)
    if norm == "ortho":
        return 1.0 / float(np.sqrt(n))
    return 1.0 / n if scaled == direction else 1.0


@irdl_op_definition
class FftOp(IRDLOperation, HasFolderInterface):
    """Fourier-transform every line of `input` along `axis` (see the module docstring)."""

    name = "tj.fft"
    DIRECTIONS: ClassVar[tuple[str, ...]] = ("forward", "inverse")
    NORMS: ClassVar[tuple[str, ...]] = ("backward", "ortho", "forward")
    T: ClassVar = VarConstraint("T", TensorType.constr())  # the result has the input's type
    direction = prop_def(StringAttr)
    input = operand_def(T)
    axis = prop_def(IntegerAttr[I64])
    norm = prop_def(StringAttr)
    result = result_def(T)
    traits = traits_def(Pure())
    assembly_format = (
        "$direction $input `,` `axis` `=` $axis `,` `norm` `=` $norm attr-dict `:` type($result)"
    )

    def __init__(self, direction: str, input: SSAValue, axis: int, norm: str = "backward"):
        super().__init__(
            operands=[input],
            result_types=[input.type],
            properties={
                "direction": StringAttr(direction),
                "axis": IntegerAttr(axis, i64),
                "norm": StringAttr(norm),
            },
        )

    def get_axis(self) -> int:
        return self.axis.value.data

    def length(self) -> int:
        """The transform length `n` (the static size of `axis`)."""
        source = self.input.type
        assert isinstance(source, TensorType)
        return source.get_shape()[self.get_axis()]

    def inverse(self) -> bool:
        return self.direction.data == "inverse"

    def scale(self) -> float:
        return fft_scale(self.direction.data, self.norm.data, self.length())

    def verify_(self) -> None:
        source = self.input.type
        assert isinstance(source, TensorType)
        if self.direction.data not in self.DIRECTIONS:
            raise VerifyException(f"unknown tj.fft direction '{self.direction.data}'")
        if self.norm.data not in self.NORMS:
            raise VerifyException(f"unknown tj.fft norm '{self.norm.data}'")
        if not 0 <= self.get_axis() < source.get_num_dims():
            raise VerifyException(f"tj.fft axis {self.get_axis()} out of range")
        if not isinstance(source.get_element_type(), ComplexType):
            raise VerifyException("tj.fft needs complex elements")
        if self.length() == DYNAMIC_INDEX or self.length() < 1:
            raise VerifyException("tj.fft needs a static length of at least 1 along its axis")

    def evaluate(self, x: np.ndarray) -> np.ndarray:
        transform = np.fft.ifft if self.inverse() else np.fft.fft
        norm = self.norm.data  # one of NORMS (verified)
        return transform(x, axis=self.get_axis(), norm=norm).astype(x.dtype)  # type: ignore[arg-type]

    def fold(self):
        return fold_with_numpy(self, self.evaluate)
