"""Bases of the element-wise `tj` ops: unary and binary ops whose result type equals
their operand type.

Operands of a binary op have one tensor type: tracing makes broadcasting
(`tj.broadcast_in_dim`) and dtype promotion (`tj.cast`) explicit first, so these ops
stay simple to verify, fold and lower. Each op names its NumPy meaning in `NUMPY`
(used for constant folding and as the reference semantics) and the element kinds it
is defined on in `DOMAIN`; the frontend maps NumPy's other loops (bool `+` is `|`,
`np.floor` of an int is the int) onto these before emitting.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.interfaces import HasFolderInterface
from xdsl.ir import SSAValue
from xdsl.irdl import IRDLOperation, VarConstraint, operand_def, result_def, traits_def
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from tracejit.ir.dtypes import BOOL, COMPLEX, FLOAT, SIGNED, UNSIGNED, element_kind, element_of
from tracejit.ir.folding import fold_with_numpy

# The element kinds (ir/dtypes.py) an op is defined on.
FLOATS = frozenset({FLOAT})
INTEGERS = frozenset({SIGNED, UNSIGNED})
NUMBERS = FLOATS | INTEGERS  # the real numbers
BITS = INTEGERS | {BOOL}
ANY = NUMBERS | {BOOL}
COMPLEXES = frozenset({COMPLEX})
INEXACT = FLOATS | COMPLEXES
ARITHMETIC = NUMBERS | COMPLEXES  # + - * ** and negation


def verify_domain(op: IRDLOperation, domain: frozenset[str], value: SSAValue) -> None:
    element = element_of(value)
    kind = element_kind(element)
    if kind in domain:
        return
    if kind == BOOL:
        raise VerifyException(f"{op.name} is not defined on bool tensors")
    if domain == FLOATS:
        raise VerifyException(f"{op.name} expects a float tensor, got {element}")
    if domain == INEXACT:
        raise VerifyException(f"{op.name} expects a float or complex tensor, got {element}")
    allowed = " or ".join(sorted(domain))
    raise VerifyException(f"{op.name} expects a tensor of {allowed} elements, got {element}")


class ElementwiseUnaryOp(IRDLOperation, HasFolderInterface):
    """Base of `%r = tj.<name> %x : tensor<...>`; result type equals operand type."""

    T: ClassVar = VarConstraint("T", TensorType.constr())
    operand = operand_def(T)
    result = result_def(T)
    traits = traits_def(Pure())
    assembly_format = "$operand attr-dict `:` type($result)"

    NUMPY: ClassVar[Callable[..., np.ndarray]]
    DOMAIN: ClassVar[frozenset[str]] = NUMBERS
    # Evaluated on float32 in float64, rounded once: C's expf, log1pf, ... (which NumPy's
    # composed loops such as logaddexp2 call) are correctly rounded nearly always, NumPy's
    # own float32 loops of np.exp, np.log1p, ... may be an ulp off, and a formula that
    # cancels turns that ulp into 1% (the compiled code, expand-math, works in float64 too).
    WIDENED: ClassVar[bool] = False

    def __init__(self, operand: SSAValue):
        super().__init__(operands=[operand], result_types=[SSAValue.get(operand).type])

    def verify_(self) -> None:
        verify_domain(self, self.DOMAIN, self.operand)

    def evaluate(self, x: np.ndarray) -> np.ndarray:
        if self.WIDENED and x.dtype == np.float32:
            return self.NUMPY(x.astype(np.float64)).astype(np.float32)
        return self.NUMPY(x)

    def fold(self):
        return fold_with_numpy(self, self.evaluate)


class ElementwiseBinaryOp(IRDLOperation, HasFolderInterface):
    """Base of `%r = tj.<name> %a, %b : tensor<...>`; all three types are equal."""

    T: ClassVar = VarConstraint("T", TensorType.constr())
    lhs = operand_def(T)
    rhs = operand_def(T)
    result = result_def(T)
    traits = traits_def(Pure())
    assembly_format = "$lhs `,` $rhs attr-dict `:` type($result)"

    NUMPY: ClassVar[Callable[..., np.ndarray]]
    DOMAIN: ClassVar[frozenset[str]] = NUMBERS

    def __init__(self, lhs: SSAValue, rhs: SSAValue):
        super().__init__(operands=[lhs, rhs], result_types=[SSAValue.get(lhs).type])

    def verify_(self) -> None:
        verify_domain(self, self.DOMAIN, self.lhs)

    def evaluate(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return self.NUMPY(x, y)

    def fold(self):
        return fold_with_numpy(self, self.evaluate)
