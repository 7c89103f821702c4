"""Matrix products: `np.matmul` / `@` and `np.dot` (and `ndarray.dot`) as `tj.matmul`.

`np.matmul` is staged for every operand rank NumPy accepts: 1-D (a row on the left, a
column on the right, the dim dropped from the result), 2-D, and N-D stacks whose batch
dims broadcast. `np.dot` agrees with matmul up to 2-D and is a multiplication when an
operand is 0-d; its N-D form (a sum over the last axis of `a` and the second-to-last
of `b`, without batch broadcasting) is not staged yet. NumPy 2's gufuncs `np.vecdot`
(with `axis=`), `np.matvec` and `np.vecmat` are matmuls with a row or a column.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tracejit.frontend.numpy_api.promotion import as_tensor, loop_dtypes
from tracejit.frontend.numpy_api.registry import implements, unsupported
from tracejit.frontend.numpy_api.shapes import normalize_axis
from tracejit.frontend.staging import primitives
from tracejit.frontend.staging.source_location import at_user_line
from tracejit.frontend.staging.tensor import Tensor
from tracejit.ir import elementwise as ew


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


# --- np.vecdot, np.matvec, np.vecmat: NumPy 2's gufuncs as matrix products ---------------
# vecdot and vecmat conjugate their (complex) vector operand first, matvec does not. The
# products are `tj.matmul`s (one row or one column), so float16 adds in float32 and rounds
# once, as NumPy's HALF_dot; float32/float64 sums are in matmul's order, where NumPy calls
# BLAS (agreeing to rounding); integers wrap and bools are "any product true" exactly.


def _gufunc_operands(
    ufunc: np.ufunc, signature: str, x1: object, x2: object, core: tuple[int, int]
) -> tuple[Tensor, Tensor]:
    """The operands in the loop's dtypes, with NumPy's error for too few dimensions."""
    lhs_dtype, rhs_dtype, _ = loop_dtypes(ufunc, [x1, x2])
    operands = as_tensor(x1, lhs_dtype), as_tensor(x2, rhs_dtype)
    for position, (operand, needed) in enumerate(zip(operands, core, strict=True)):
        if operand.ndim < needed:
            raise ValueError(
                at_user_line(
                    f"{ufunc.__name__}: Input operand {position} does not have enough "
                    f"dimensions (has {operand.ndim}, gufunc core with signature {signature} "
                    f"requires {needed})"
                )
            )
    return operands


def _check_gufunc_shapes(
    ufunc: np.ufunc, signature: str, sizes: tuple, batches: tuple[tuple, tuple]
) -> None:
    """NumPy's errors: core dim n of operand 1 differs from operand 0's; batch dims that do
    not broadcast. Dims unknown at trace time (None) are left to the matmul."""
    first, second = sizes
    if first != second and None not in sizes:
        raise ValueError(
            at_user_line(
                f"{ufunc.__name__}: Input operand 1 has a mismatch in its core dimension 0, "
                f"with gufunc signature {signature} (size {second} is different from {first})"
            )
        )
    if None in batches[0] + batches[1]:
        return
    try:
        np.broadcast_shapes(*batches)
    except ValueError:
        raise ValueError(
            at_user_line(
                f"{ufunc.__name__}: operands could not be broadcast together with batch "
                f"shapes {batches[0]} and {batches[1]}"
            )
        ) from None


def _conjugate(x: Tensor) -> Tensor:
    return primitives.unary(ew.ConjOp, x) if x.dtype.kind == "c" else x


def _core_last(x: Tensor, axis: int) -> Tensor:
    axis = normalize_axis(axis, x.ndim)
    return primitives.transpose(x, [d for d in range(x.ndim) if d != axis] + [axis])


@implements(np.vecdot)
def vecdot(x1: object, x2: object, axis: int = -1) -> Tensor:
    """`np.vecdot`: sum(conj(x1) * x2) over the last axis (`axis=`), batch dims broadcast;
    a (..., 1, n) @ (..., n, 1) matmul."""
    signature = "(n),(n)->()"
    x, y = _gufunc_operands(np.vecdot, signature, x1, x2, (1, 1))
    if axis != -1:
        x, y = _core_last(x, axis), _core_last(y, axis)
    _check_gufunc_shapes(
        np.vecdot, signature, (x.shape[-1], y.shape[-1]), (x.shape[:-1], y.shape[:-1])
    )
    x = _conjugate(x)
    row = primitives.reshape(x, (*x.dims[:-1], 1, x.dims[-1]))
    column = primitives.reshape(y, (*y.dims, 1))
    product = primitives.matmul(row, column)
    return primitives.reshape(product, product.dims[:-2])


def matvec(x1: object, x2: object) -> Tensor:
    """`np.matvec` (NumPy >= 2.2): the matrix x1 (..., m, n) times the vector x2 (..., n),
    batch dims broadcast; a (..., m, n) @ (..., n, 1) matmul."""
    signature = "(m,n),(n)->(m)"
    a, v = _gufunc_operands(np.matvec, signature, x1, x2, (2, 1))
    _check_gufunc_shapes(
        np.matvec, signature, (a.shape[-1], v.shape[-1]), (a.shape[:-2], v.shape[:-1])
    )
    product = primitives.matmul(a, primitives.reshape(v, (*v.dims, 1)))
    return primitives.reshape(product, product.dims[:-1])


def vecmat(x1: object, x2: object) -> Tensor:
    """`np.vecmat` (NumPy >= 2.2): the conjugated vector x1 (..., n) times the matrix x2
    (..., n, m), batch dims broadcast; a (..., 1, n) @ (..., n, m) matmul."""
    signature = "(n),(n,m)->(m)"
    v, a = _gufunc_operands(np.vecmat, signature, x1, x2, (1, 2))
    _check_gufunc_shapes(
        np.vecmat, signature, (v.shape[-1], a.shape[-2]), (v.shape[:-1], a.shape[:-2])
    )
    v = _conjugate(v)
    product = primitives.matmul(primitives.reshape(v, (*v.dims[:-1], 1, v.dims[-1])), a)
    return primitives.reshape(product, (*product.dims[:-2], product.dims[-1]))


if hasattr(np, "matvec"):  # NumPy >= 2.2
    implements(np.matvec)(matvec)
    implements(np.vecmat)(vecmat)
