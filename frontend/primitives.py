"""Staging primitives: each emits one `tj` op and wraps its result in a Tensor.

NumPy functions (`frontend/numpy_api/`) are built by composing these; nothing else
creates `tj` ops during tracing. Result types are computed here, so the ops' verifiers
double-check the frontend.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import TensorType

from tracejit.frontend.tensor import Tensor
from tracejit.frontend.tracing import emit
from tracejit.ir.constant import ConstantOp
from tracejit.ir.dtypes import tensor_type
from tracejit.ir.elementwise import CastOp, ElementwiseBinaryOp, ElementwiseUnaryOp
from tracejit.ir.matmul import MatmulOp
from tracejit.ir.reduce import ReduceOp
from tracejit.ir.shape_ops import BroadcastInDimOp


def constant(value: object, dtype: np.dtype | None = None) -> Tensor:
    """A `tj.constant` holding `np.asarray(value, dtype)`."""
    array = np.asarray(value, dtype=dtype)
    return Tensor(emit(ConstantOp.from_array(array)).result)


def cast(x: Tensor, dtype: np.dtype) -> Tensor:
    """`x.astype(dtype)`; no op when the dtype already matches."""
    dtype = np.dtype(dtype)
    if x.dtype == dtype:
        return x
    return Tensor(emit(CastOp(x.value, tensor_type(x.shape, dtype))).result)


def broadcast_to(x: Tensor, shape: Sequence[int]) -> Tensor:
    """Broadcast `x` to `shape` with NumPy's rules (trailing dims aligned)."""
    shape = tuple(shape)
    if x.shape == shape:
        return x
    offset = len(shape) - x.ndim
    dims = list(range(offset, len(shape)))
    op = BroadcastInDimOp(x.value, dims, tensor_type(shape, x.dtype))
    return Tensor(emit(op).result)


def unary(op_type: type[ElementwiseUnaryOp], x: Tensor) -> Tensor:
    return Tensor(emit(op_type(x.value)).result)


def binary(op_type: type[ElementwiseBinaryOp], x: Tensor, y: Tensor) -> Tensor:
    return Tensor(emit(op_type(x.value, y.value)).result)


def reduce(kind: str, x: Tensor, axes: Sequence[int]) -> Tensor:
    """Reduce `x` over the (normalised, non-negative) `axes`, dropping them."""
    axes = sorted(set(axes))
    shape = [s for i, s in enumerate(x.shape) if i not in axes]
    return Tensor(emit(ReduceOp(kind, x.value, axes, tensor_type(shape, x.dtype))).result)


def matmul(x: Tensor, y: Tensor) -> Tensor:
    """2-D `x @ y` of one dtype."""
    shape = (x.shape[0], y.shape[1])
    return Tensor(emit(MatmulOp(x.value, y.value, tensor_type(shape, x.dtype))).result)


def result_type(x: Tensor) -> TensorType:
    assert isinstance(x.value.type, TensorType)
    return x.value.type


def assert_true(condition: Tensor, message: str) -> None:
    """Stage a run-time check: the call raises per `message` ("ErrorType: text") unless
    the 0-d bool `condition` is true when the kernel runs."""
    from tracejit.ir.effects import AssertOp

    emit(AssertOp(condition.value, message))
