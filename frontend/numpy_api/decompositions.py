"""`np.linalg.eigh`, `eigvalsh`, `svd`, `qr` and `lstsq` as `tj.linalg`, which calls LAPACK
from the compiled code (?syevd/?heevd, ?gesdd, ?geqrf + ?orgqr/?ungqr, ?gelsd: ir/linalg.py,
passes/bufferize/lapack_decompositions.py).

NumPy's rules, as in lapack.py: stacks `[..., m, n]` (square for eigh/eigvalsh), integers
and bools computed in float64, float16 refused; the results are NumPy's namedtuples.
`eigh`/`eigvalsh` read the lower triangle (`UPLO='L'`) or the upper one (`'U'`: the
conjugate transpose's lower triangle). A decomposition that does not converge raises
`LinAlgError` at the user's line. float32 and complex64 are computed in their own
precision (NumPy computes them in double and rounds); `lstsq` is computed in double as
NumPy's, so its default `rcond` (eps * max(m, n) of float64) and its rank are NumPy's.
Dims unknown at trace time are supported everywhere but in the core dims of lstsq (whose
residuals, rank threshold and empty cases depend on m and n) and of `svd(hermitian=True)`:
LAPACK takes its sizes at run time and the workspace queries size the work arrays there; a
result dim min(m, n) of dims unknown at trace time is known only to the kernel.

`svd(..., hermitian=True)` is computed from `eigh`, as NumPy's (the magnitudes of the
eigenvalues, descending; the eigenvectors in that order).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.linalg._linalg import EighResult, QRResult, SVDResult  # NumPy's result types

from tracejit.frontend.numpy_api.construction import array_of
from tracejit.frontend.numpy_api.lapack import (
    _operand_dtype,
    _raise_unless,
    _stack,
    conjugate_transpose,
)
from tracejit.frontend.numpy_api.registry import implements, numpy_name, unsupported
from tracejit.frontend.staging import primitives
from tracejit.frontend.staging.dims import UNKNOWN
from tracejit.frontend.staging.source_location import at_user_line
from tracejit.frontend.staging.tensor import Tensor, dispatched
from tracejit.frontend.staging.tracing import emit
from tracejit.ir.linalg import LinalgOp


def stage(kind: str, inputs: list[Tensor], dims: list[tuple] | None = None) -> list[Tensor]:
    """The results of `tj.linalg kind` on `inputs` (with `dims`, one tuple per result,
    where a result's dims unknown at trace time come from the inputs')."""
    op = emit(LinalgOp(kind, [t.value for t in inputs]))
    if dims is None:
        return [Tensor(r) for r in op.outputs]
    return [Tensor(r, dims=d) for r, d in zip(op.outputs, dims, strict=True)]


def _as_arrays(*tensors: Tensor) -> list[Any]:
    """NumPy's result namedtuples hold Tensors while tracing (their stubs say ndarray)."""
    return list(tensors)


def _matrices(fn: Any, a: object, square: bool = False) -> Tensor:
    return _stack(fn, a, _operand_dtype(fn, [a]), square=square)


def _known_core(fn: Any, t: Tensor) -> tuple[int, int]:
    """The static (m, n) of a stack; refused when the trace does not know them."""
    m, n = t.shape[-2:]
    if m is None or n is None:
        raise TypeError(at_user_line(needs_static_core(fn, t)))
    return m, n


def needs_static_core(fn: Any, t: Tensor) -> str:
    """The refusal of a function whose matrices' dims must be known at trace time."""
    return (
        f"{numpy_name(fn)} needs the last two dims of its matrices at trace time, and this "
        f"trace has shape {tuple(t.shape)} (None: known only at run time): give them in the "
        "input_signature (tj.TensorSpec([..., m, n])), or call the function without an "
        "input_signature (each new shape is then traced for itself)"
    )


def _core(t: Tensor) -> tuple[Any, Any, Any]:
    """The dims (m, n, min(m, n)) of a stack's matrices: ints when the trace knows them,
    else where their sizes come from (frontend/staging/dims.py); min(m, n) of a dim
    unknown at trace time is known only to the kernel (which then returns the results)."""
    m, n = t.dims[-2:]
    if isinstance(m, int) and isinstance(n, int):
        return m, n, min(m, n)
    if m == n:
        return m, n, m
    return m, n, 0 if 0 in (m, n) else UNKNOWN


def _hermitian_operand(fn: Any, a: object, uplo: str) -> Tensor:
    """The stack eigh's LAPACK call reads: its lower triangle is the one `uplo` names."""
    if uplo not in ("L", "U"):
        raise ValueError(at_user_line("UPLO argument must be 'L' or 'U'"))
    t = _matrices(fn, a, square=True)
    return t if uplo == "L" else conjugate_transpose(t)


@implements(np.linalg.eigh)
def eigh(a: object, UPLO: str = "L") -> EighResult:  # noqa: N803 (NumPy's name)
    t = _hermitian_operand(np.linalg.eigh, a, UPLO)
    w, v, ok = stage("eigh", [t], [tuple(t.dims[:-1]), tuple(t.dims), ()])
    _raise_unless(ok, "Eigenvalues did not converge")
    return EighResult(*_as_arrays(w, v))


@implements(np.linalg.eigvalsh)
def eigvalsh(a: object, UPLO: str = "L") -> Tensor:  # noqa: N803 (NumPy's name)
    t = _hermitian_operand(np.linalg.eigvalsh, a, UPLO)
    w, ok = stage("eigvalsh", [t], [tuple(t.dims[:-1]), ()])
    _raise_unless(ok, "Eigenvalues did not converge")
    return w


@implements(np.linalg.svd)
def svd(
    a: object, full_matrices: bool = True, compute_uv: bool = True, hermitian: bool = False
) -> SVDResult | Tensor:
    if hermitian:
        return _hermitian_svd(a, compute_uv)
    t = _matrices(np.linalg.svd, a)
    m, n, k = _core(t)
    batch = tuple(t.dims[:-2])
    if not compute_uv:
        s, ok = stage("svdvals", [t], [(*batch, k), ()])
        _raise_unless(ok, "SVD did not converge")
        return s
    kind = "svd_complete" if full_matrices else "svd"
    u_columns, vh_rows = (m, n) if full_matrices else (k, k)
    dims = [(*batch, m, u_columns), (*batch, k), (*batch, vh_rows, n), ()]
    u, s, vh, ok = stage(kind, [t], dims)
    _raise_unless(ok, "SVD did not converge")
    return SVDResult(*_as_arrays(u, s, vh))


@implements(np.linalg.svdvals)
def svdvals(x: object, /) -> Tensor:
    return values_of(np.linalg.svdvals, x)


def _hermitian_svd(a: object, compute_uv: bool) -> SVDResult | Tensor:
    """NumPy's: from eigh, the magnitudes of the eigenvalues in descending order, the
    eigenvectors in that order, and their signs moved into vh. NumPy reorders with
    take_along_axis; here the reordering is a product with the permutation matrix (exact:
    each element is multiplied by 1 and added to zeros)."""
    if not compute_uv:
        magnitudes = dispatched(np.abs(eigvalsh(a)))
        return dispatched(np.flip(np.sort(magnitudes, axis=-1), axis=-1))
    w, u = eigh(a)
    signs, magnitudes = dispatched(np.sign(w)), dispatched(np.abs(w))
    order = dispatched(np.flip(np.argsort(magnitudes, axis=-1), axis=-1))
    n = _known_core(np.linalg.svd, u)[1]
    # permutation[..., i, j] = 1 where order[..., j] == i: x @ permutation = x[..., order]
    chosen = dispatched(np.expand_dims(order, -2) == np.arange(n)[:, None])
    permutation = dispatched(chosen.astype(u.dtype))
    real_permutation = dispatched(chosen.astype(w.dtype))

    def reordered(v: Tensor) -> Tensor:
        return dispatched(np.matmul(np.expand_dims(v, -2), real_permutation)[..., 0, :])

    u = dispatched(np.matmul(u, permutation))
    signed = dispatched(u * np.expand_dims(reordered(signs), -2).astype(u.dtype))
    vh = conjugate_transpose(signed)
    return SVDResult(*_as_arrays(u, reordered(magnitudes), vh))


_QR_KINDS = {"reduced": "qr", "complete": "qr_complete", "r": "qr_r"}


@implements(np.linalg.qr)
def qr(a: object, mode: str = "reduced") -> QRResult | Tensor:
    if mode not in ("reduced", "complete", "r", "raw"):
        raise ValueError(at_user_line(f"Unrecognized mode '{mode}'"))
    if mode == "raw":
        raise unsupported(np.linalg.qr, "(..., mode='raw') (LAPACK's reflectors);")
    t = _matrices(np.linalg.qr, a)
    m, n, k = _core(t)
    batch = tuple(t.dims[:-2])
    columns = m if mode == "complete" else k
    r_dims = (*batch, columns, n)
    if mode == "r":
        (r,) = stage("qr_r", [t], [r_dims])
        return r
    q, r = stage(_QR_KINDS[mode], [t], [(*batch, m, columns), r_dims])
    return QRResult(*_as_arrays(q, r))


@implements(np.linalg.lstsq)
def lstsq(a: object, b: object, rcond: object = None) -> tuple:
    """NumPy's four results: x, residuals (empty unless the rank is n and m > n), the rank
    and the singular values; computed in double, as NumPy's (module docstring)."""
    result_dtype = _operand_dtype(np.linalg.lstsq, [a, b])
    wide = np.dtype(np.complex128 if result_dtype.kind == "c" else np.float64)
    matrix = _stack(np.linalg.lstsq, a, wide, square=False)
    rhs = array_of(b, wide)
    for name, t in (("a", matrix), ("b", rhs)):
        if t.ndim > 2 or (name == "a" and t.ndim != 2):
            raise np.linalg.LinAlgError(
                at_user_line(f"{t.ndim}-dimensional array given. Array must be two-dimensional")
            )
    vector = rhs.ndim == 1
    if vector:
        rhs = primitives.reshape(rhs, (*rhs.dims, 1))
    m, n = _known_core(np.linalg.lstsq, matrix)
    if rhs.shape[0] != m:
        raise np.linalg.LinAlgError(at_user_line("Incompatible dimensions"))
    k = rhs.shape[1]
    assert k is not None  # b's dims are a's rows (known) and its columns
    if k == 0:  # ?gelsd wants a right-hand side: NumPy adds a zero column, then drops it
        rhs = primitives.constant(np.zeros((m, 1), wide))
    if rcond is None:
        rcond = float(np.finfo(np.float64).eps) * max(m, n)
    threshold = _real_scalar(rcond)
    dims = [(n, max(k, 1)), (max(k, 1),), (), (min(m, n),), ()]
    x, residuals, rank, s, ok = stage("lstsq", [matrix, rhs, threshold], dims)
    _raise_unless(ok, "SVD did not converge in Linear Least Squares")
    if k == 0:
        x, residuals = dispatched(x[:, :0]), dispatched(residuals[:0])
    if vector:
        x = primitives.reshape(x, (n,))
    real = np.finfo(result_dtype).dtype  # the real type of a complex one
    residuals = _kept_residuals(residuals, rank, m, n)
    return (_as(x, result_dtype), _as(residuals, real), rank, _as(s, real))


def _real_scalar(value: object) -> Tensor:
    if isinstance(value, Tensor):
        return primitives.cast(value, np.dtype(np.float64))
    return primitives.constant(np.asarray(value, np.float64))


def _kept_residuals(residuals: Tensor, rank: Tensor, m: int, n: int) -> Tensor:
    """NumPy's residuals: the squared norms when the rank is n and m > n, else empty."""
    if m <= n:
        return dispatched(residuals[:0])
    full = dispatched(rank == np.int32(n))
    count = dispatched(np.where(full, n_columns(residuals), 0))
    return dispatched(residuals[:count])


def n_columns(residuals: Tensor) -> int:
    size = residuals.shape[0]
    assert size is not None  # b's columns, known at trace time
    return size


def _as(t: Tensor, dtype: np.dtype) -> Tensor:
    return t if t.dtype == dtype else primitives.cast(t, dtype)


def values_of(fn: Any, a: object) -> Tensor:
    """The singular values of a stack (for norm, cond, matrix_rank), descending."""
    t = _matrices(fn, a)
    s, ok = stage("svdvals", [t], [(*t.dims[:-2], _core(t)[2]), ()])
    _raise_unless(ok, "SVD did not converge")
    return s
