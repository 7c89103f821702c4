"""Matrix products: `np.matmul` / `@` and `np.dot` (and `ndarray.dot`) as `tj.matmul`.

`np.matmul` is staged for every operand rank NumPy accepts: 1-D (a row on the left, a
column on the right, the dim dropped from the result), 2-D, and N-D stacks whose batch
dims broadcast. `np.dot` agrees with matmul up to 2-D and is a multiplication when an
operand is 0-d; its N-D form (a sum over the last axis of `a` and the second-to-last
of `b`, without batch broadcasting) is not staged yet.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tracejit.frontend.numpy_api.promotion import as_tensor, loop_dtypes
from tracejit.frontend.numpy_api.registry import implements, unsupported
from tracejit.frontend.staging import primitives
from tracejit.frontend.staging.source_location import at_user_line
from tracejit.frontend.staging.tensor import Tensor


def _shape(x: Any) -> tuple[int | None, ...]:
    return x.shape if isinstance(x, Tensor) else np.shape(x)


def _check_matmul_shapes(lhs: tuple, rhs: tuple) -> None:
    """NumPy's ValueErrors: a 0-d operand, a core-dim mismatch, unbroadcastable batches."""
    for position, shape in enumerate((lhs, rhs)):
        if not shape:
            raise ValueError(
                at_user_line(
                    f"matmul: Input operand {position} does not have enough dimensions "
                    "(has 0, gufunc core with signature (n?,k),(k,m?)->(n?,m?) requires 1)"
                )
            )
    k_lhs, k_rhs = lhs[-1], rhs[0] if len(rhs) == 1 else rhs[-2]
    if k_lhs != k_rhs and None not in (k_lhs, k_rhs):  # None: known at run time only
        raise ValueError(
            at_user_line(
                f"matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc "
                f"signature (n?,k),(k,m?)->(n?,m?) (size {k_rhs} is different from {k_lhs})"
            )
        )
    if None in lhs[:-2] + rhs[:-2]:
        return  # tj.matmul's verifier and bufferize handle unknown batch dims
    try:
        np.broadcast_shapes(lhs[:-2], rhs[:-2])
    except ValueError:
        raise ValueError(
            at_user_line(
                f"matmul: the batch dims of shapes {lhs} and {rhs} cannot be broadcast together"
            )
        ) from None


@implements(np.matmul)
def matmul(x: object, y: object, out=None, **kwargs) -> Tensor:
    if out is not None or kwargs:
        raise unsupported(np.matmul, "(..., out=...)" if out is not None else f"(..., {kwargs})")
    _check_matmul_shapes(_shape(x), _shape(y))
    lhs_dtype, rhs_dtype, _ = loop_dtypes(np.matmul, [x, y])
    return primitives.matmul(as_tensor(x, lhs_dtype), as_tensor(y, rhs_dtype))


@implements(np.dot)
def dot(x: Any, y: Any, out=None) -> Tensor:
    if out is not None:
        raise unsupported(np.dot, "(..., out=...)")
    # np.dot converts Python scalars to arrays first: they are not weak (`dot(int8, 300)`
    # is int64), unlike in ufuncs.
    x, y = (v if isinstance(v, Tensor) else np.asarray(v) for v in (x, y))
    if x.ndim == 0 or y.ndim == 0:
        return np.multiply(x, y)
    if x.ndim > 2 or y.ndim > 2:
        raise unsupported(
            np.dot,
            f" on {x.ndim}-D and {y.ndim}-D operands (N-D dot is not matmul; "
            "use np.matmul / @ or np.einsum)",
        )
    k_x, k_y = x.shape[-1], y.shape[0]
    if k_x != k_y and None not in (k_x, k_y):
        raise ValueError(
            at_user_line(
                f"shapes {tuple(x.shape)} and {tuple(y.shape)} not aligned: "
                f"{k_x} (dim {x.ndim - 1}) != {k_y} (dim 0)"
            )
        )
    return matmul(x, y)
