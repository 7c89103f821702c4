"""Ops only complex tensors have: their parts (`tj.real`, `tj.imag`), `tj.conj` and
`tj.reciprocal`.

    %re = tj.real %z : tensor<4xcomplex<f32>> to tensor<4xf32>
    %im = tj.imag %z : tensor<4xcomplex<f32>> to tensor<4xf32>
    %c = tj.conj %z : tensor<4xcomplex<f32>>
    %r = tj.reciprocal %z : tensor<4xcomplex<f32>>

Everything else NumPy computes from the parts is composed of these and real ops while
tracing (`np.abs(z)` is `hypot(real(z), imag(z))`, `np.angle(z)` is
`arctan2(imag(z), real(z))`), so only complex arithmetic itself (`+ - * / **`, `exp`,
`log`, `sqrt`) needs complex scalar code.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.interfaces import HasFolderInterface
from xdsl.ir import SSAValue
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, result_def, traits_def
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from tracejit.ir.dtypes import component_type, is_complex
from tracejit.ir.elementwise_base import COMPLEXES, ElementwiseUnaryOp
from tracejit.ir.folding import fold_with_numpy


class ComplexPartOp(IRDLOperation, HasFolderInterface):
    """Base of `%r = tj.<part> %z : tensor<...xcomplex<fN>> to tensor<...xfN>`."""

    input = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($input) `to` type($result)"

    NUMPY: ClassVar[Callable[..., Any]]

    def __init__(self, input: SSAValue):
        source = SSAValue.get(input).type
        assert isinstance(source, TensorType)
        part = TensorType(component_type(source.get_element_type()), source.get_shape())
        super().__init__(operands=[input], result_types=[part])

    def verify_(self) -> None:
        source, target = self.input.type, self.result.type
        assert isinstance(source, TensorType) and isinstance(target, TensorType)
        element = source.get_element_type()
        if not is_complex(element):
            raise VerifyException(f"{self.name} expects a complex tensor, got {source}")
        expected = TensorType(component_type(element), source.get_shape())
        if target != expected:
            raise VerifyException(f"{self.name} result must be {expected}, got {target}")

    def evaluate(self, z: np.ndarray) -> np.ndarray:
        return self.NUMPY(z)

    def fold(self):
        return fold_with_numpy(self, self.evaluate)


@irdl_op_definition
class RealOp(ComplexPartOp):
    """The real part of each element.

    %re = tj.real %z : tensor<4xcomplex<f64>> to tensor<4xf64>
    """

    name = "tj.real"
    NUMPY: ClassVar = staticmethod(np.real)


@irdl_op_definition
class ImagOp(ComplexPartOp):
    """The imaginary part of each element.

    %im = tj.imag %z : tensor<4xcomplex<f64>> to tensor<4xf64>
    """

    name = "tj.imag"
    NUMPY: ClassVar = staticmethod(np.imag)


@irdl_op_definition
class ConjOp(ElementwiseUnaryOp):
    """The complex conjugate: the imaginary part negated (NaN and -0.0 included).

    %c = tj.conj %z : tensor<4xcomplex<f64>>
    """

    name = "tj.conj"
    NUMPY: ClassVar = staticmethod(np.conjugate)
    DOMAIN: ClassVar = COMPLEXES


@irdl_op_definition
class ReciprocalOp(ElementwiseUnaryOp):
    """1 / z as NumPy's complex reciprocal loop computes it (scaled by the larger part, like
    Smith's division, but with its own rounding and NaN at 0, where 1 / 0j is inf + NaN j).

    %r = tj.reciprocal %z : tensor<4xcomplex<f64>>
    """

    name = "tj.reciprocal"
    NUMPY: ClassVar = staticmethod(np.reciprocal)
    DOMAIN: ClassVar = COMPLEXES
