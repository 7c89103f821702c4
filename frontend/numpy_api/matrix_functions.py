"""`np.linalg.pinv`, `matrix_rank`, `cond`, `matrix_power` and `multi_dot`, composed as
NumPy's own Python code composes them: from the singular values (decompositions.py), `inv`
(lapack.py) and matrix products, so the LAPACK calls stay in the compiled code.

Where NumPy's answer depends on shapes (the chain order of multi_dot, the empty cases,
the binary decomposition of matrix_power's exponent) the trace decides it, as NumPy's code
does, from the shapes known at trace time; exponents must be Python ints.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from tracejit.frontend.numpy_api.construction import array_of
from tracejit.frontend.numpy_api.decompositions import needs_static_core, stage, svd, values_of
from tracejit.frontend.numpy_api.lapack import _operand_dtype, _stack
from tracejit.frontend.numpy_api.registry import implements, unsupported
from tracejit.frontend.staging import primitives
from tracejit.frontend.staging.source_location import at_user_line
from tracejit.frontend.staging.tensor import Tensor, dispatched, staged


def _swap_last(t: Tensor) -> Tensor:
    return primitives.transpose(t, [*range(t.ndim - 2), t.ndim - 1, t.ndim - 2])


def _known(t: Tensor, fn: Any) -> tuple[int, ...]:
    """t's shape, which the caller needs known at trace time."""
    if None in t.shape:
        raise TypeError(at_user_line(needs_static_core(fn, t)))
    return tuple(d for d in t.shape if d is not None)


def _largest_dim(t: Tensor, fn: Any) -> int:
    return max(_known(t, fn)[-2:])


def _known_core(t: Tensor, fn: Any) -> None:
    """Refuse matrices whose dims only the kernel knows where NumPy's answer for an empty
    one differs from what the computation would give (pinv's zeros, matrix_rank's 0,
    cond's LinAlgError): the emptiness must be known at trace time."""
    if None in t.shape[-2:]:
        raise TypeError(at_user_line(needs_static_core(fn, t)))


def _is_empty_2d(t: Tensor) -> bool:
    """NumPy's `_is_empty_2d`: no elements, and none in the last two dims."""
    return 0 in t.shape[-2:]


@implements(np.linalg.pinv)
def pinv(
    a: object,
    rcond: Any = None,
    hermitian: bool = False,
    *,
    rtol: Any = np._NoValue,  # NumPy's marker for "not given"
) -> Tensor:
    t = _stack(np.linalg.pinv, a, _operand_dtype(np.linalg.pinv, [a]), square=False)
    _known_core(t, np.linalg.pinv)
    if rcond is None:
        if rtol is np._NoValue:
            rcond = 1e-15
        elif rtol is None:
            rcond = _largest_dim(t, np.linalg.pinv) * float(np.finfo(t.dtype).eps)
        else:
            rcond = rtol
    elif rtol is not np._NoValue:
        raise ValueError(at_user_line("`rtol` and `rcond` can't be both set."))
    if _is_empty_2d(t):
        *batch, m, n = _known(t, np.linalg.pinv)
        return primitives.constant(np.zeros((*batch, n, m), t.dtype))
    conjugate = dispatched(np.conj(t)) if t.dtype.kind == "c" else t
    u, s, vt = svd(conjugate, full_matrices=False, hermitian=hermitian)
    threshold = rcond if isinstance(rcond, Tensor) else np.asarray(rcond)
    cutoff = dispatched(np.expand_dims(threshold, -1) * np.max(s, axis=-1, keepdims=True))
    large = dispatched(s > cutoff)
    inverted = dispatched(np.where(large, 1 / np.where(large, s, 1), 0).astype(s.dtype))
    scaled = dispatched(np.expand_dims(inverted, -1) * _swap_last(u))
    return dispatched(np.matmul(_swap_last(vt), scaled))


@implements(np.linalg.matrix_rank)
def matrix_rank(
    A: object,  # noqa: N803 (NumPy's name)
    tol: Any = None,
    hermitian: bool = False,
    *,
    rtol: Any = None,
) -> Tensor:
    if rtol is not None and tol is not None:
        raise ValueError(at_user_line("`tol` and `rtol` can't be both set."))
    t = array_of(A)
    if t.ndim < 2:
        return dispatched(np.any(t != 0).astype(np.int64))
    _known_core(t, np.linalg.matrix_rank)
    if hermitian:
        s = svd(t, compute_uv=False, hermitian=True)
    else:
        s = values_of(np.linalg.matrix_rank, t)
    if s.shape[-1] == 0:  # no singular values: rank 0 (NumPy's max(..., initial=0))
        return primitives.constant(np.zeros(s.shape[:-1], np.intp))
    if tol is None:
        if rtol is None:
            rtol = _largest_dim(t, np.linalg.matrix_rank) * float(np.finfo(s.dtype).eps)
        else:
            rtol = np.expand_dims(np.asarray(rtol), -1)
        threshold = dispatched(np.max(s, axis=-1, keepdims=True) * rtol)
    else:
        threshold = staged(np.expand_dims, np.asarray(tol), -1)
    return dispatched(np.count_nonzero(s > threshold, axis=-1))


@implements(np.linalg.cond)
def cond(x: object, p: Any = None) -> Tensor:
    t = _stack(np.linalg.cond, x, _operand_dtype(np.linalg.cond, [x]), square=False)
    _known_core(t, np.linalg.cond)
    if _is_empty_2d(t):
        raise np.linalg.LinAlgError(at_user_line("cond is not defined on empty arrays"))
    if p is None or p in (2, -2):
        s = values_of(np.linalg.cond, t)
        largest, smallest = s[..., 0], s[..., -1]
        r = dispatched(smallest / largest if p == -2 else largest / smallest)
    else:
        t = _stack(np.linalg.cond, t, t.dtype)  # square, as NumPy's inv needs
        (inverse, _ok) = stage("inv", [t], [tuple(t.dims), ()])  # NaN/inf where singular
        r = dispatched(
            np.linalg.norm(t, p, axis=(-2, -1)) * np.linalg.norm(inverse, p, axis=(-2, -1))
        )
    # NaN (0/0, a failed inverse) means inf, unless x itself had NaNs
    nan = dispatched(np.isnan(r) & ~np.any(np.isnan(t), axis=(-2, -1)))
    return dispatched(np.where(nan, np.asarray(np.inf, r.dtype), r))


def _square(t: Tensor) -> None:
    """NumPy's `_assert_stacked_square`."""
    if t.ndim < 2:
        raise np.linalg.LinAlgError(
            at_user_line(
                f"{t.ndim}-dimensional array given. Array must be at least two-dimensional"
            )
        )
    rows, columns = t.shape[-2:]
    if rows != columns or rows is None:
        raise np.linalg.LinAlgError(at_user_line("Last 2 dimensions of the array must be square"))


@implements(np.linalg.matrix_power)
def matrix_power(a: object, n: Any) -> Tensor:
    t = array_of(a)
    _square(t)
    try:
        n = operator.index(n)
    except TypeError:
        raise TypeError(at_user_line("exponent must be an integer (a Python int)")) from None
    if n == 0:
        identity = np.eye(_known(t, np.linalg.matrix_power)[-1], dtype=t.dtype)
        return primitives.broadcast_to(primitives.constant(identity), tuple(t.dims))
    if n < 0:
        t = dispatched(np.linalg.inv(t))
        n = -n
    # NumPy's binary decomposition (and its short cuts for 1, 2 and 3)
    if n <= 3:
        result = t
        for _ in range(n - 1):
            result = dispatched(np.matmul(result, t))
        return result
    power: Tensor | None = None
    found: Tensor | None = None
    while n > 0:
        power = t if power is None else dispatched(np.matmul(power, power))
        n, bit = divmod(n, 2)
        if bit:
            found = power if found is None else dispatched(np.matmul(found, power))
    assert found is not None
    return found


@implements(np.linalg.multi_dot)
def multi_dot(arrays: Any, *, out: Any = None) -> Tensor:
    if out is not None:
        raise unsupported(np.linalg.multi_dot, "(..., out=...)")
    count = len(arrays)
    if count < 2:
        raise ValueError(at_user_line("Expecting at least two arrays."))
    if count == 2:
        return dispatched(np.dot(arrays[0], arrays[1]))
    matrices = [array_of(x) for x in arrays]
    first, last = matrices[0].ndim, matrices[-1].ndim
    if first == 1:
        matrices[0] = primitives.reshape(matrices[0], (1, *matrices[0].dims))
    if last == 1:
        matrices[-1] = primitives.reshape(matrices[-1], (*matrices[-1].dims, 1))
    for m in matrices:
        if m.ndim != 2:
            raise np.linalg.LinAlgError(
                at_user_line(f"{m.ndim}-dimensional array given. Array must be two-dimensional")
            )
    result = _chain(matrices, _chain_order(matrices), 0, count - 1)
    if first == 1 and last == 1:
        return dispatched(result[0, 0])
    if first == 1 or last == 1:
        return dispatched(result.reshape(-1))
    return result


def _chain_order(matrices: list[Tensor]) -> list[list[int]]:
    """NumPy's `_multi_dot_matrix_chain_order` (Cormen's dynamic program): split[i][j] is
    where the product of matrices i..j is split; left to right when a dim is unknown."""
    count = len(matrices)
    sizes = [m.shape[0] for m in matrices] + [matrices[-1].shape[1]]
    split = [[j - 1 for j in range(count)] for _ in range(count)]
    if None in sizes:
        return split
    p = [int(d) for d in sizes if d is not None]
    cost = [[0.0] * count for _ in range(count)]
    for length in range(1, count):
        for i in range(count - length):
            j = i + length
            cost[i][j] = np.inf
            for k in range(i, j):
                q = cost[i][k] + cost[k + 1][j] + p[i] * p[k + 1] * p[j + 1]
                if q < cost[i][j]:
                    cost[i][j], split[i][j] = q, k
    return split


def _chain(matrices: list[Tensor], split: list[list[int]], i: int, j: int) -> Tensor:
    if i == j:
        return matrices[i]
    k = split[i][j]
    left, right = _chain(matrices, split, i, k), _chain(matrices, split, k + 1, j)
    return dispatched(np.dot(left, right))
