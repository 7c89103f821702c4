"""`tj.cumulative`: running sums, products, maxima, minima (and the other scans of
`KINDS`) along one axis.

    %s = tj.cumulative "sum" %x, axis = 1 : tensor<4x3xf32>
    %p = tj.cumulative "prod" %n, axis = 0 : tensor<5xi64>
    %m = tj.cumulative "max" %x, axis = 0 : tensor<4x3xf32>
    %f = tj.cumulative "fmax" %x, axis = 0 : tensor<4x3xf32>

Element `k` along `axis` is `x[0] <kind> x[1] <kind> ... <kind> x[k]`, combined in that
order (no reassociation), as NumPy's `ufunc.accumulate` does: `np.add.accumulate` /
`np.multiply.accumulate`, `max`/`min` `np.maximum.accumulate` / `np.minimum.accumulate`
(NaN-propagating), `fmax`/`fmin` NaN-ignoring, `hypot`, and the bitwise `and`/`or`/`xor`
of integers: so float results are bit-identical to NumPy's. The result has the input's type; tracing
casts first where NumPy widens (`np.cumsum` of int8 is int64, of bool too). float16 is
rounded to float16 after every step, as NumPy's half loops do. Bool tensors are not
accepted (NumPy's `cumsum(dtype=bool)` is composed from an integer scan by tracing).
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from xdsl.dialects.builtin import I64, IntegerAttr, IntegerType, StringAttr, TensorType, i64
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

from tracejit.ir import elementwise as ew
from tracejit.ir.dtypes import is_bool, is_float
from tracejit.ir.elementwise_base import ElementwiseBinaryOp
from tracejit.ir.folding import fold_with_numpy


@irdl_op_definition
class CumulativeOp(IRDLOperation, HasFolderInterface):
    """Scan `input` along `axis` with the combiner `kind` (see the module docstring)."""

    name = "tj.cumulative"
    # kind -> (the NumPy ufunc whose accumulate it is, the element-wise op combining the
    # running value with the next element)
    KINDS: ClassVar[dict[str, tuple[np.ufunc, type[ElementwiseBinaryOp]]]] = {
        "sum": (np.add, ew.AddOp),
        "prod": (np.multiply, ew.MulOp),
        "max": (np.maximum, ew.MaximumOp),
        "min": (np.minimum, ew.MinimumOp),
        "fmax": (np.fmax, ew.FmaxOp),
        "fmin": (np.fmin, ew.FminOp),
        "hypot": (np.hypot, ew.HypotOp),
        "and": (np.bitwise_and, ew.BitwiseAndOp),
        "or": (np.bitwise_or, ew.BitwiseOrOp),
        "xor": (np.bitwise_xor, ew.BitwiseXorOp),
    }
    FLOAT_ONLY: ClassVar[frozenset[str]] = frozenset({"hypot"})
    INTEGER_ONLY: ClassVar[frozenset[str]] = frozenset({"and", "or", "xor"})
    T: ClassVar = VarConstraint("T", TensorType.constr())  # the result has the input's type
    kind = prop_def(StringAttr)
    input = operand_def(T)
    axis = prop_def(IntegerAttr[I64])
    result = result_def(T)
    traits = traits_def(Pure())
    assembly_format = "$kind $input `,` `axis` `=` $axis attr-dict `:` type($result)"

    def __init__(self, kind: str, input: SSAValue, axis: int):
        super().__init__(
            operands=[input],
            result_types=[input.type],
            properties={"kind": StringAttr(kind), "axis": IntegerAttr(axis, i64)},
        )

    def get_axis(self) -> int:
        return self.axis.value.data

    def verify_(self) -> None:
        source, target = self.input.type, self.result.type
        assert isinstance(source, TensorType) and isinstance(target, TensorType)
        kind = self.kind.data
        if kind not in self.KINDS:
            raise VerifyException(f"unknown tj.cumulative kind '{kind}'")
        element = source.get_element_type()
        if kind in self.FLOAT_ONLY and not is_float(element):
            raise VerifyException(f"tj.cumulative {kind} takes floats, not {element}")
        if kind in self.INTEGER_ONLY and not isinstance(element, IntegerType):
            raise VerifyException(f"tj.cumulative {kind} takes integers, not {element}")
        if not 0 <= self.get_axis() < source.get_num_dims():
            raise VerifyException(f"tj.cumulative axis {self.get_axis()} out of range")
        if is_bool(source.get_element_type()):
            raise VerifyException(f"tj.cumulative {kind} is not defined on bool tensors")

    def combiner(self) -> type[ElementwiseBinaryOp]:
        """The element-wise op a step of the scan is."""
        return self.KINDS[self.kind.data][1]

    def evaluate(self, x: np.ndarray) -> np.ndarray:
        ufunc = self.KINDS[self.kind.data][0]
        return ufunc.accumulate(x, axis=self.get_axis(), dtype=x.dtype)

    def fold(self):
        return fold_with_numpy(self, self.evaluate)
