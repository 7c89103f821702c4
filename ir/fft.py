"""`tj.fft`: the discrete Fourier transform of every line of a complex tensor along one axis.

    %y = tj.fft "forward" %x, axis = 1, norm = "backward"
             : tensor<4x8xcomplex<f64>> to tensor<4x8xcomplex<f64>>
    %z = tj.fft "inverse" %y, axis = 0, norm = "ortho"
             : tensor<?x8xcomplex<f32>> to tensor<?x8xcomplex<f32>>
    %s = tj.fft "real_forward" %r, axis = 0, norm = "backward"
             : tensor<8xf64> to tensor<5xcomplex<f64>>
    %t = tj.fft "real_inverse" %s, axis = 0, norm = "backward"
             : tensor<5xcomplex<f64>> to tensor<9xf64>

With `n` the length of `axis`, element `k` of a line is

    forward:  sum_j x[j] * exp(-2 pi i j k / n) * scale
    inverse:  sum_j x[j] * exp(+2 pi i j k / n) * scale

where `norm` picks `scale` as NumPy's `np.fft` does: "backward" scales the inverse by
1/n, "forward" scales the forward transform by 1/n, "ortho" scales both by 1/sqrt(n).
So `tj.fft "forward"` is `np.fft.fft(x, axis=axis, norm=norm)` and `tj.fft "inverse"` is
`np.fft.ifft`: complex64 or complex128 elements (tracing casts real inputs first, as NumPy
does), the result of the input's type. The real transforms take and give half spectra:
`"real_forward"` is `np.fft.rfft` (float32/float64 in, the n // 2 + 1 terms k = 0 .. n // 2
out, complex), `"real_inverse"` is `np.fft.irfft` with `n` the result's length (n // 2 + 1
complex terms in, n floats out; the imaginary parts of the zero and, for an even n, the
Nyquist terms are ignored). `n` must be known at trace time and positive: the transform's
loops are planned for it (`bufferize` expands the op, passes/bufferize/fft.py); the other
dims may be `?`.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    I64,
    ComplexType,
    Float32Type,
    Float64Type,
    IntegerAttr,
    StringAttr,
    TensorType,
    f32,
    f64,
    i64,
)
from xdsl.interfaces import HasFolderInterface
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from tracejit.ir.dtypes import numpy_dtype
from tracejit.ir.folding import fold_with_numpy


def fft_scale(direction: str, norm: str, n: int, real: type | np.dtype = np.float64) -> float:
    """The factor a transform of length `n` multiplies its sums by (module docstring),
    computed as NumPy computes it: in the `real` dtype of the transform's input."""
    scaled = {"backward": "inverse", "forward": "forward"}.get(norm)
    if norm == "ortho":
        return float(np.reciprocal(np.sqrt(n, dtype=real)))
    return float(np.reciprocal(n, dtype=real)) if scaled == direction else 1.0


@irdl_op_definition
class FftOp(IRDLOperation, HasFolderInterface):
    """Fourier-transform every line of `input` along `axis` (see the module docstring)."""

    name = "tj.fft"
    DIRECTIONS: ClassVar[tuple[str, ...]] = ("forward", "inverse", "real_forward", "real_inverse")
    NORMS: ClassVar[tuple[str, ...]] = ("backward", "ortho", "forward")
    direction = prop_def(StringAttr)
    input = operand_def(TensorType)
    axis = prop_def(IntegerAttr[I64])
    norm = prop_def(StringAttr)
    # NumPy computes the scale in the real dtype of the array the user passed: float16 for
    # a float16 array, which it transforms in complex64 (absent: the elements' real type)
    scale_type = opt_prop_def(StringAttr)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = (
        "$direction $input `,` `axis` `=` $axis `,` `norm` `=` $norm attr-dict `:` "
        "type($input) `to` type($result)"
    )

    def __init__(
        self,
        direction: str,
        input: SSAValue,
        axis: int,
        norm: str = "backward",
        result_type: TensorType | None = None,
        scale_type: str | None = None,
    ):
        """`result_type` defaults to the input's (a real transform must give it);
        `scale_type` a NumPy dtype name ("float16") or None."""
        properties: dict[str, Attribute] = {
            "direction": StringAttr(direction),
            "axis": IntegerAttr(axis, i64),
            "norm": StringAttr(norm),
        }
        if scale_type is not None:
            properties["scale_type"] = StringAttr(scale_type)
        super().__init__(
            operands=[input], result_types=[result_type or input.type], properties=properties
        )

    def get_axis(self) -> int:
        return self.axis.value.data

    def length(self) -> int:
        """The transform length `n`: the static size of `axis` (of the result for
        "real_inverse", of the input otherwise)."""
        shaped = self.result.type if self.direction.data == "real_inverse" else self.input.type
        assert isinstance(shaped, TensorType)
        return shaped.get_shape()[self.get_axis()]

    def inverse(self) -> bool:
        return self.direction.data in ("inverse", "real_inverse")

    def real(self) -> bool:
        return self.direction.data.startswith("real_")

    def real_dtype(self) -> np.dtype:
        """The dtype NumPy computes the scale in."""
        if self.scale_type is not None:
            return np.dtype(self.scale_type.data)
        shaped = self.input.type
        assert isinstance(shaped, TensorType)
        element = shaped.get_element_type()
        return numpy_dtype(element.element_type if isinstance(element, ComplexType) else element)

    def scale(self) -> float:
        direction = "inverse" if self.inverse() else "forward"
        return fft_scale(direction, self.norm.data, self.length(), self.real_dtype())

    def verify_(self) -> None:
        source, target = self.input.type, self.result.type
        assert isinstance(source, TensorType) and isinstance(target, TensorType)
        if self.direction.data not in self.DIRECTIONS:
            raise VerifyException(f"unknown tj.fft direction '{self.direction.data}'")
        if self.norm.data not in self.NORMS:
            raise VerifyException(f"unknown tj.fft norm '{self.norm.data}'")
        if not 0 <= self.get_axis() < source.get_num_dims():
            raise VerifyException(f"tj.fft axis {self.get_axis()} out of range")
        n = self.length()
        if n == DYNAMIC_INDEX or n < 1:
            raise VerifyException("tj.fft needs a static length of at least 1 along its axis")
        if target != self._result_type(source, n):
            raise VerifyException(
                f"tj.fft {self.direction.data} of {source} gives {self._result_type(source, n)}"
            )

    def _result_type(self, source: TensorType, n: int) -> TensorType:
        """What the direction makes of `source` (for a length-`n` transform); raises when
        the elements are not what it takes."""
        element = source.get_element_type()
        direction = self.direction.data
        takes_real = direction == "real_forward"
        if takes_real != (not isinstance(element, ComplexType)):
            kind = "real" if takes_real else "complex"
            raise VerifyException(f"tj.fft {direction} needs {kind} elements")
        if not isinstance(element, ComplexType) and element not in (f32, f64):
            raise VerifyException(f"tj.fft {direction} needs float32 or float64 elements")
        shape = list(source.get_shape())
        if direction == "real_forward":
            assert isinstance(element, Float32Type | Float64Type)
            shape[self.get_axis()] = n // 2 + 1
            return TensorType(ComplexType(element), shape)
        if direction == "real_inverse":
            if shape[self.get_axis()] != n // 2 + 1:
                raise VerifyException(f"tj.fft real_inverse of length {n} needs {n // 2 + 1} terms")
            shape[self.get_axis()] = n
            assert isinstance(element, ComplexType)
            return TensorType(element.element_type, shape)
        return source

    def evaluate(self, x: np.ndarray) -> np.ndarray:
        norm = self.norm.data  # one of NORMS (verified)
        if self.scale_type is not None:  # unscaled, then NumPy's float16-computed scale
            norm = "forward" if self.inverse() else "backward"
        axis, direction = self.get_axis(), self.direction.data
        y: np.ndarray
        if direction == "real_forward":
            y = np.fft.rfft(x, axis=axis, norm=norm)  # type: ignore[arg-type]
        elif direction == "real_inverse":
            y = np.fft.irfft(x, n=self.length(), axis=axis, norm=norm)  # type: ignore[arg-type]
        else:
            transform = np.fft.ifft if self.inverse() else np.fft.fft
            y = transform(x, axis=axis, norm=norm)  # type: ignore[arg-type]
        target = self.result.type
        assert isinstance(target, TensorType)
        y = y.astype(numpy_dtype(target.get_element_type()))
        if self.scale_type is not None:
            scale = y.real.dtype.type(self.scale())
            y = y * scale if y.dtype.kind == "f" else (y.real * scale) + 1j * (y.imag * scale)
        return y.astype(numpy_dtype(target.get_element_type()))

    def fold(self):
        return fold_with_numpy(self, self.evaluate)
