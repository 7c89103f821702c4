"""`np.linalg.solve`, `inv`, `cholesky`, `det` and `slogdet` as `tj.linalg`, which calls
LAPACK from the compiled code (ir/linalg.py, passes/bufferize/lapack.py).

NumPy's rules: operands are stacks `[..., n, n]` (`b` of solve is `[..., n, k]`, or `[n]`
only when it is exactly 1-D) whose batch dims broadcast; integer and bool arrays compute in
float64, float32/float64/complex64/complex128 in their own type, float16 is refused as NumPy
refuses it. A singular matrix (solve, inv) or one that is not positive definite (cholesky)
raises `np.linalg.LinAlgError` when the compiled function runs, naming the user's line;
`det` and `slogdet` of a singular matrix give 0 and (0, -inf), as NumPy's.

LAPACK comes from SciPy (`scipy.linalg.cython_lapack`), the optional extra `linalg`; without
SciPy these functions are refused at trace time with what to do instead. Dims unknown at
trace time are checked when the kernel runs (square, b's rows); solve then needs a and b to
have the same batch dims (no broadcasting).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

import numpy as np
from numpy.linalg._linalg import SlogdetResult  # the namedtuple np.linalg.slogdet returns
from xdsl.ir import SSAValue

from tracejit.frontend.numpy_api.construction import array_of
from tracejit.frontend.numpy_api.registry import implements, numpy_name, unsupported
from tracejit.frontend.staging import primitives
from tracejit.frontend.staging.source_location import at_user_line
from tracejit.frontend.staging.tensor import Tensor
from tracejit.frontend.staging.tracing import emit
from tracejit.ir.lapack_contract import MISSING_TEXT
from tracejit.ir.linalg import LinalgOp
from tracejit.ir.runtime_contract import check_message
from tracejit.runtime import lapack

_LAPACK_DTYPES = tuple(np.dtype(t) for t in ("float32", "float64", "complex64", "complex128"))


def _operand_dtype(fn: Callable, operands: list[object]) -> np.dtype:
    """NumPy linalg's computation type (its `_commonType`): each operand as float64 if
    it holds integers or bools, then their common type; float16 refused. (A float32
    matrix and an int8 right-hand side solve in float64, not in result_type's float32.)"""
    dtypes = []
    for x in operands:
        dtype = _dtype_of(x)
        if dtype.kind in "biu":
            dtype = np.dtype(np.float64)
        elif dtype not in _LAPACK_DTYPES:
            raise TypeError(at_user_line(f"array type {dtype} is unsupported in linalg"))
        dtypes.append(dtype)
    return np.result_type(*dtypes)


def _dtype_of(x: object) -> np.dtype:
    return x.dtype if isinstance(x, Tensor) else np.asarray(x).dtype


def _stack(fn: Callable, x: object, dtype: np.dtype, square: bool = True) -> Tensor:
    """`x` as a tensor of `dtype`, checked to be a stack of (square) matrices."""
    if not lapack.available():
        raise TypeError(at_user_line(f"{numpy_name(fn)} {MISSING_TEXT}"))
    t = array_of(x, dtype)
    if t.ndim < 2:
        raise np.linalg.LinAlgError(
            at_user_line(
                f"{t.ndim}-dimensional array given. Array must be at least two-dimensional"
            )
        )
    if not square:
        return t
    rows, columns = t.shape[-2:]
    if None in (rows, columns):  # known when the kernel runs: checked there
        _check_equal_at_run_time(t, [t.ndim - 2], t, [t.ndim - 1], _NOT_SQUARE)
    elif rows != columns:
        raise np.linalg.LinAlgError(at_user_line(_NOT_SQUARE))
    return t


_NOT_SQUARE = "Last 2 dimensions of the array must be square"


def _check_equal_at_run_time(
    x: Tensor, x_axes: list[int], y: Tensor, y_axes: list[int], text: str, error="LinAlgError"
) -> None:
    """Stage `error(text)` at the user's line unless dim x_axes[i] of `x` equals dim
    y_axes[i] of `y` for every i, when the kernel runs."""
    from tracejit.frontend.staging.slice_bounds import assert_same_sizes
    from tracejit.ir.shape_ops import DimOp

    message = check_message(error, at_user_line(text))
    for i, j in zip(x_axes, y_axes, strict=True):
        if None in (x.shape[i], y.shape[j]) or x.shape[i] != y.shape[j]:
            sizes: list[SSAValue] = [emit(DimOp(x.value, i)).result, emit(DimOp(y.value, j)).result]
            assert_same_sizes(sizes, message)


def _known_shape(t: Tensor) -> tuple[int, ...]:
    return tuple(d for d in t.shape if d is not None)


def _linalg(kind: str, inputs: list[Tensor]) -> list[Tensor]:
    """The op's results, with the dims of the operand whose shape they have (the stack's
    batch dims for slogdet's; `ok` is 0-d)."""
    op = emit(LinalgOp(kind, [t.value for t in inputs]))
    shaped_like = inputs[-1].dims if kind != "slogdet" else inputs[0].dims[:-2]
    first, second = op.outputs
    second_dims = shaped_like if kind == "slogdet" else ()
    return [Tensor(first, dims=tuple(shaped_like)), Tensor(second, dims=tuple(second_dims))]


def _raise_unless(ok: Tensor, text: str) -> None:
    """Stage the check NumPy makes: LinAlgError(text) at the user's line unless `ok`."""
    primitives.assert_true(ok, check_message("LinAlgError", at_user_line(text)))


def _broadcast(x: Tensor, shape: tuple[int, ...]) -> Tensor:
    return x if x.shape == shape else primitives.broadcast_to(x, shape)


@implements(np.linalg.solve)
def solve(a: object, b: object) -> Tensor:
    dtype = _operand_dtype(np.linalg.solve, [a, b])
    matrices = _stack(np.linalg.solve, a, dtype)
    rhs = array_of(b, dtype)
    vector = rhs.ndim == 1
    if vector:  # a column; only when exactly 1-D (NumPy 2)
        rhs = primitives.reshape(rhs, (*rhs.dims, 1))
    if rhs.ndim < 2:
        raise ValueError(at_user_line(f"solve: b must be at least 1-D, got {rhs.ndim}-D"))
    if None in matrices.shape + rhs.shape:
        x = _solve_at_run_time_sizes(matrices, rhs, vector)
    else:
        x = _solve_static(matrices, rhs, vector)
    return primitives.reshape(x, x.dims[:-1]) if vector else x


def _core_mismatch(vector: bool, size: object, n: object) -> str:
    signature = "(m,m),(m)->(m)" if vector else "(m,m),(m,n)->(m,n)"
    return (
        f"solve: Input operand 1 has a mismatch in its core dimension 0, with gufunc "
        f"signature {signature} (size {size} is different from {n})"
    )


def _solve_static(matrices: Tensor, rhs: Tensor, vector: bool) -> Tensor:
    a_shape, b_shape = _known_shape(matrices), _known_shape(rhs)
    n = a_shape[-1]
    if b_shape[-2] != n:
        raise ValueError(at_user_line(_core_mismatch(vector, b_shape[-2], n)))
    try:
        batch = np.broadcast_shapes(a_shape[:-2], b_shape[:-2])
    except ValueError:
        raise ValueError(
            at_user_line(
                f"solve: the batch dims of shapes {a_shape} and {b_shape} cannot be "
                "broadcast together"
            )
        ) from None
    matrices = _broadcast(matrices, (*batch, n, n))
    rhs = _broadcast(rhs, (*batch, n, b_shape[-1]))
    x, ok = _linalg("solve", [matrices, rhs])
    _raise_unless(ok, "Singular matrix")
    return x


def _solve_at_run_time_sizes(matrices: Tensor, rhs: Tensor, vector: bool) -> Tensor:
    """Dims known only when the kernel runs: b's rows are checked against a's there; the
    batch dims must be the same (broadcasting them is not supported yet)."""
    if tuple(matrices.dims[:-2]) != tuple(rhs.dims[:-2]):
        raise unsupported(
            np.linalg.solve,
            " on batch dims unknown at trace time that would need broadcasting",
        )
    a_rows, b_rows = matrices.shape[-1], rhs.shape[-2]
    if None not in (a_rows, b_rows) and a_rows != b_rows:
        raise ValueError(at_user_line(_core_mismatch(vector, b_rows, a_rows)))
    signature = "(m,m),(m)->(m)" if vector else "(m,m),(m,n)->(m,n)"
    core = (
        f"solve: Input operand 1 has a mismatch in its core dimension 0, with gufunc "
        f"signature {signature} (b's rows are not a's columns)"
    )
    last, rows = [matrices.ndim - 1], [rhs.ndim - 2]
    _check_equal_at_run_time(matrices, last, rhs, rows, core, error="ValueError")
    x, ok = _linalg("solve", [matrices, rhs])
    _raise_unless(ok, "Singular matrix")
    return x


@implements(np.linalg.inv)
def inv(a: object) -> Tensor:
    matrices = _stack(np.linalg.inv, a, _operand_dtype(np.linalg.inv, [a]))
    x, ok = _linalg("inv", [matrices])
    _raise_unless(ok, "Singular matrix")
    return x


@implements(np.linalg.cholesky)
def cholesky(a: object, /, *, upper: bool = False) -> Tensor:
    """NumPy's: the lower factor from a's lower triangle, or (`upper`) the upper factor
    from its upper triangle -- the conjugate transpose of the lower factor of a^H, whose
    lower triangle that is."""
    matrices = _stack(np.linalg.cholesky, a, _operand_dtype(np.linalg.cholesky, [a]))
    if upper:
        matrices = conjugate_transpose(matrices)
    factor, ok = _linalg("cholesky", [matrices])
    _raise_unless(ok, "Matrix is not positive definite")
    return conjugate_transpose(factor) if upper else factor


def conjugate_transpose(t: Tensor) -> Tensor:
    """The conjugate transpose of each matrix of a stack (the transpose for real ones)."""
    swapped = primitives.transpose(t, [*range(t.ndim - 2), t.ndim - 1, t.ndim - 2])
    return cast(Tensor, np.conj(swapped)) if t.dtype.kind == "c" else swapped


@implements(np.linalg.slogdet)
def slogdet(a: object) -> SlogdetResult:
    matrices = _stack(np.linalg.slogdet, a, _operand_dtype(np.linalg.slogdet, [a]))
    sign, logabsdet = _linalg("slogdet", [matrices])
    return SlogdetResult(sign, logabsdet)


@implements(np.linalg.det)
def det(a: object) -> Tensor:
    """sign * exp(logabsdet), as NumPy's det computes it (so 0 for a singular matrix)."""
    matrices = _stack(np.linalg.det, a, _operand_dtype(np.linalg.det, [a]))
    sign, logabsdet = _linalg("slogdet", [matrices])
    return cast(Tensor, np.multiply(sign, np.exp(logabsdet)))
