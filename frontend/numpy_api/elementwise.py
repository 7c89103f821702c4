"""Element-wise NumPy ufuncs staged as `tj` element-wise ops.

Each ufunc resolves its loop dtypes the way NumPy does, casts and broadcasts the
operands, and emits one op. Adding a ufunc is one table entry here (plus its lowering).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tracejit.frontend import primitives
from tracejit.frontend.numpy_api.promotion import as_tensor, broadcast_all, loop_dtypes
from tracejit.frontend.numpy_api.registry import implements, unsupported
from tracejit.frontend.tensor import Tensor
from tracejit.ir import elementwise as ew

UNARY_UFUNCS: dict[np.ufunc, type[ew.ElementwiseUnaryOp]] = {
    np.negative: ew.NegOp,
    np.absolute: ew.AbsOp,
    np.exp: ew.ExpOp,
    np.log: ew.LogOp,
    np.tanh: ew.TanhOp,
    np.sqrt: ew.SqrtOp,
}

BINARY_UFUNCS: dict[np.ufunc, type[ew.ElementwiseBinaryOp]] = {
    np.add: ew.AddOp,
    np.subtract: ew.SubOp,
    np.multiply: ew.MulOp,
    np.true_divide: ew.DivOp,
    np.power: ew.PowOp,
    np.maximum: ew.MaximumOp,
    np.minimum: ew.MinimumOp,
}


def _stage_unary(ufunc: np.ufunc, x: Any) -> Tensor:
    in_dtype, _ = loop_dtypes(ufunc, [x])
    if in_dtype == np.bool_:
        raise unsupported(ufunc, " on bool tensors")
    return primitives.unary(UNARY_UFUNCS[ufunc], as_tensor(x, in_dtype))


def _stage_binary(ufunc: np.ufunc, x: Any, y: Any) -> Tensor:
    lhs_dtype, rhs_dtype, _ = loop_dtypes(ufunc, [x, y])
    if lhs_dtype == np.bool_:
        raise unsupported(ufunc, " on bool tensors")
    lhs, rhs = broadcast_all([as_tensor(x, lhs_dtype), as_tensor(y, rhs_dtype)])
    return primitives.binary(BINARY_UFUNCS[ufunc], lhs, rhs)


def _register_unary(ufunc: np.ufunc) -> None:
    implements(ufunc)(lambda x: _stage_unary(ufunc, x))


def _register_binary(ufunc: np.ufunc) -> None:
    implements(ufunc)(lambda x, y: _stage_binary(ufunc, x, y))


for _ufunc in UNARY_UFUNCS:
    _register_unary(_ufunc)
for _ufunc in BINARY_UFUNCS:
    _register_binary(_ufunc)
