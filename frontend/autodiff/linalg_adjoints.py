"""Adjoints of `tj.linalg` (ir/linalg.py) for real matrices: one rule per kind, given the
cotangent of each result (None where none flows), staging LAPACK-backed `tj.linalg` ops
and matrix products like the forward pass. With g the cotangent of the result and
A^-T = (A^-1)^T:

    solve   x = A^-1 b :   gb = A^-T g,            gA = -gb x^T
    inv     X = A^-1   :   gA = -X^T g X^T
    slogdet (s, l)     :   gA = g_l A^-T           (the sign is piecewise constant)
    cholesky A = L L^T :   M = L^-T phi(L^T g) L^-1, phi = the lower triangle, diagonal halved
    eigh    A = V diag(w) V^T, distinct w:
                           M = V (diag(g_w) + F o (V^T g_V)) V^T,  F_ij = 1 / (w_j - w_i)
    svd (values only)  :   M = U diag(g_s) V^T

(Giles, "An extended collection of matrix derivative results", 2008; Murray, "Differentiation
of the Cholesky decomposition", 2016.) cholesky and eigh read only A's lower triangle, so
their gradient is the one of that function: M's symmetric part, counted twice below the
diagonal (an element there stands for itself and its mirror) and zero above it --
what finite differences of NumPy's functions measure. (TensorFlow and JAX return the
symmetric part, which acts the same on symmetric perturbations.)

The singular vectors, QR and lstsq have no adjoint: a cotangent reaching them is an error.
Complex matrices get no gradient (as every complex value in tracejit).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from tracejit.frontend.autodiff.adjoints import add, broadcast_like, div, mul, neg, sub
from tracejit.frontend.staging import primitives as P
from tracejit.frontend.staging.tensor import Tensor
from tracejit.frontend.staging.tracing import emit
from tracejit.ir.linalg import LinalgOp

MultiRule = Callable[[LinalgOp, list[Tensor | None]], Sequence[Tensor | None]]


def _linalg(kind: str, inputs: list[Tensor]) -> list[Tensor]:
    op = emit(LinalgOp(kind, [t.value for t in inputs]))
    return [Tensor(r) for r in op.outputs]


def _t(x: Tensor) -> Tensor:
    """The transpose of each matrix of a stack."""
    return P.transpose(x, [*range(x.ndim - 2), x.ndim - 1, x.ndim - 2])


def _mm(x: Tensor, y: Tensor) -> Tensor:
    return P.matmul(x, y)


def _as_row(v: Tensor) -> Tensor:
    """[..., k] -> [..., 1, k], to scale the columns of a matrix."""
    return P.reshape(v, (*v.dims[:-1], 1, v.dims[-1]))


def _order(x: Tensor) -> int:
    n = x.shape[-1]
    if n is None:
        from tracejit.frontend.autodiff.backprop import NotDifferentiableError

        raise NotDifferentiableError(
            "the gradient of np.linalg.cholesky/eigh/eigvalsh needs the matrices' size at "
            "trace time (it is unknown there)"
        )
    return n


def _masked(x: Tensor, mask: np.ndarray) -> Tensor:
    """x times a constant [n, n] matrix, broadcast over x's batch dims."""
    return mul(x, broadcast_like(P.constant(mask.astype(x.dtype)), x))


def _lower_read(m: Tensor) -> Tensor:
    """The gradient for a function of A's lower triangle whose gradient for symmetric
    perturbations is sym(m): m + m^T below the diagonal, m on it, 0 above."""
    n = _order(m)
    strictly_lower = np.tril(np.ones((n, n)), -1)
    return add(_masked(add(m, _t(m)), strictly_lower), _masked(m, np.eye(n)))


def _solve(op: LinalgOp, grads: list[Tensor | None]) -> Sequence[Tensor | None]:
    g = grads[0]
    if g is None:
        return [None, None]
    a, x = Tensor(op.operands[0]), Tensor(op.results[0])
    gb = _linalg("solve", [_t(a), g])[0]
    return [neg(_mm(gb, _t(x))), gb]


def _inv(op: LinalgOp, grads: list[Tensor | None]) -> Sequence[Tensor | None]:
    g = grads[0]
    if g is None:
        return [None]
    inverse_t = _t(Tensor(op.results[0]))
    return [neg(_mm(_mm(inverse_t, g), inverse_t))]


def _slogdet(op: LinalgOp, grads: list[Tensor | None]) -> Sequence[Tensor | None]:
    g = grads[1]
    if g is None:
        return [None]
    a = Tensor(op.operands[0])
    inverse_t = _t(_linalg("inv", [a])[0])
    scale = broadcast_like(P.reshape(g, (*g.dims, 1, 1)), a)
    return [mul(scale, inverse_t)]


def _cholesky(op: LinalgOp, grads: list[Tensor | None]) -> Sequence[Tensor | None]:
    g = grads[0]
    if g is None:
        return [None]
    factor = Tensor(op.results[0])
    n = _order(factor)
    phi = np.tril(np.ones((n, n))) - 0.5 * np.eye(n)
    inverse = _linalg("inv", [factor])[0]
    middle = _masked(_mm(_t(factor), g), phi)
    return [_lower_read(_mm(_mm(_t(inverse), middle), inverse))]


def _eigh(op: LinalgOp, grads: list[Tensor | None]) -> Sequence[Tensor | None]:
    g_values = grads[0]
    g_vectors = grads[1] if op.kind.data == "eigh" else None
    if g_values is None and g_vectors is None:
        return [None]
    a = Tensor(op.operands[0])
    if op.kind.data == "eigh":
        values, vectors = Tensor(op.results[0]), Tensor(op.results[1])
    else:
        values, vectors, _ = _linalg("eigh", [a])
    n = _order(a)
    terms = []
    if g_values is not None:
        terms.append(_masked(broadcast_like(_as_row(g_values), a), np.eye(n)))
    if g_vectors is not None:
        row = broadcast_like(_as_row(values), a)  # [i, j] -> w_j
        identity = broadcast_like(P.constant(np.eye(n, dtype=a.dtype)), a)
        gaps = add(sub(row, _t(row)), identity)  # w_j - w_i, and 1 on the diagonal
        reciprocal = div(broadcast_like(P.constant(np.ones((), a.dtype)), a), gaps)
        coupling = _masked(reciprocal, 1 - np.eye(n))  # 1 / (w_j - w_i) off the diagonal
        terms.append(mul(coupling, _mm(_t(vectors), g_vectors)))
    inner = terms[0] if len(terms) == 1 else add(*terms)
    return [_lower_read(_mm(_mm(vectors, inner), _t(vectors)))]


def _svd(op: LinalgOp, grads: list[Tensor | None]) -> Sequence[Tensor | None]:
    kind = op.kind.data
    if kind != "svdvals" and (grads[0] is not None or grads[2] is not None):
        from tracejit.frontend.autodiff.backprop import NotDifferentiableError, location_of

        raise NotDifferentiableError(
            f"{location_of(op)}no gradient is defined for the singular vectors of "
            "np.linalg.svd (only for its singular values: compute_uv=False, or use s alone)"
        )
    g = grads[0] if kind == "svdvals" else grads[1]
    if g is None:
        return [None]
    u, _, vh, _ = _linalg("svd", [Tensor(op.operands[0])])
    return [_mm(mul(u, broadcast_like(_as_row(g), u)), vh)]


LINALG_ADJOINTS: dict[str, MultiRule] = {
    "solve": _solve,
    "inv": _inv,
    "slogdet": _slogdet,
    "cholesky": _cholesky,
    "eigh": _eigh,
    "eigvalsh": _eigh,
    "svd": _svd,
    "svd_complete": _svd,
    "svdvals": _svd,
}


def linalg_adjoint(op: LinalgOp, grads: list[Tensor | None]) -> Sequence[Tensor | None]:
    """The cotangents of a `tj.linalg`'s operands (None for complex ones, and for the
    rcond of lstsq); NotDifferentiableError for a kind without a rule."""
    if Tensor(op.operands[0]).dtype.kind != "f":
        return [None] * len(op.operands)
    rule = LINALG_ADJOINTS.get(op.kind.data)
    if rule is None:
        from tracejit.frontend.autodiff.backprop import NotDifferentiableError, location_of

        raise NotDifferentiableError(
            f"{location_of(op)}no gradient is defined for np.linalg's "
            f"{op.kind.data} (tj.linalg); stop it with tape.stop_recording()"
        )
    return rule(op, grads)
