"""Loop kernels L1-L8: loops whose bodies slice with the loop counter (`A[i, :j]`, `x[:i + 1]`,
`data[lo:hi]`), written as NumPy users write them, each ONCE: NumPy runs the source in the
Python interpreter, `tj.function` traces it (the slices have a run-time length, so each loop
stays a loop: frontend/staging/dims.py's `SliceLength`) and `numba.njit` compiles it as is.

JAX cannot slice with a traced bound, so `jax_sources` holds its versions written as JAX users
write them: `lax.fori_loop` over the same iterations with each run-time-sized slice replaced by
a whole row or column under a mask (more arithmetic than the slice, none of it wasted on
copies), and CSR's row loop replaced by `jax.ops.segment_sum`. `loop_bench.py` measures them.
No kernel changes its arguments (the timing calls it again and again on the same inputs).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np


# --- dense factorisations and solves ------------------------------------------------------
def cholesky(A):
    """In-place Cholesky (Cholesky-Banachiewicz, row by row); returns the lower factor."""
    A = A.copy()
    n = A.shape[0]
    for i in range(n):
        for j in range(i):
            A[i, j] -= np.dot(A[i, :j], A[j, :j])
            A[i, j] /= A[j, j]
        A[i, i] -= np.dot(A[i, :i], A[i, :i])
        A[i, i] = np.sqrt(A[i, i])
    return np.tril(A)


def lu(A):
    """Doolittle LU without pivoting, in place: L below the diagonal (unit diagonal implied),
    U on and above it."""
    A = A.copy()
    n = A.shape[0]
    for i in range(n):
        for j in range(i):
            A[i, j] -= A[i, :j] @ A[:j, j]
            A[i, j] /= A[j, j]
        for j in range(i, n):
            A[i, j] -= A[i, :i] @ A[:i, j]
    return A


def forward_substitution(L, b):
    """Solve L x = b for lower-triangular L, one row at a time."""
    x = np.zeros_like(b)
    for i in range(L.shape[0]):
        x[i] = (b[i] - L[i, :i] @ x[:i]) / L[i, i]
    return x


def gram_schmidt(A):
    """Modified Gram-Schmidt QR: each new column is projected out of the columns after it."""
    A = A.copy()
    m = A.shape[1]
    Q = np.zeros_like(A)
    R = np.zeros((m, m))
    for k in range(m):
        R[k, k] = np.sqrt(np.dot(A[:, k], A[:, k]))
        Q[:, k] = A[:, k] / R[k, k]
        for j in range(k + 1, m):
            R[k, j] = np.dot(Q[:, k], A[:, j])
            A[:, j] -= Q[:, k] * R[k, j]
    return Q, R


def durbin(r):
    """Durbin's (Levinson's) recursion: the Yule-Walker system of autocorrelations r."""
    n = r.shape[0]
    y = np.empty_like(r)
    y[0] = -r[0]
    beta, alpha = 1.0, -r[0]
    for k in range(1, n):
        beta = (1 - alpha * alpha) * beta
        alpha = -(r[k] + np.dot(np.flip(r[:k]), y[:k])) / beta
        y[:k] += alpha * np.flip(y[:k])
        y[k] = alpha
    return y


# --- graphs, sparse matrices and running statistics ----------------------------------------
def floyd_warshall(D):
    """All-pairs shortest paths: the NumPy idiom relaxes every pair through k at once."""
    for k in range(D.shape[0]):
        D = np.minimum(D, D[:, k : k + 1] + D[k : k + 1, :])
    return D


def csr_matvec(data, indices, indptr, x):
    """y = A @ x for A in CSR form, one row's slice of the stored entries at a time."""
    n = indptr.shape[0] - 1
    y = np.zeros(n)
    for i in range(n):
        y[i] = np.sum(data[indptr[i] : indptr[i + 1]] * x[indices[indptr[i] : indptr[i + 1]]])
    return y


def prefix_means(x):
    """The mean of every prefix x[:i + 1]."""
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        out[i] = np.mean(x[: i + 1])
    return out


# --- scalar loop nests: element by element, no slices (numba's home ground) -----------------
def nussinov(seq):
    """RNA folding's dynamic program (PolyBench's Nussinov): the best pairing of every
    subsequence, max over the split points k of two smaller ones."""
    n = seq.shape[0]
    table = np.zeros((n, n), dtype=np.int64)
    for i in range(n - 1, -1, -1):
        for j in range(i + 1, n):
            table[i, j] = max(table[i, j], table[i, j - 1])
            if i + 1 < n:
                table[i, j] = max(table[i, j], table[i + 1, j])
                pair = 1 if seq[i] + seq[j] == 3 and i < j - 1 else 0
                table[i, j] = max(table[i, j], table[i + 1, j - 1] + pair)
            for k in range(i + 1, j):
                table[i, j] = max(table[i, j], table[i, k] + table[k + 1, j])
    return table


def seidel_2d(A, steps):
    """Gauss-Seidel sweeps of a 9-point stencil, in place (PolyBench's seidel-2d)."""
    A = A.copy()
    n = A.shape[0]
    for _ in range(steps):
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                A[i, j] = (
                    A[i - 1, j - 1] + A[i - 1, j] + A[i - 1, j + 1]
                    + A[i, j - 1] + A[i, j] + A[i, j + 1]
                    + A[i + 1, j - 1] + A[i + 1, j] + A[i + 1, j + 1]
                ) / 9.0  # fmt: skip
    return A


def deriche_rows(x, a1, a2, b1, b2):
    """A Deriche-style recursive filter along rows: a causal and an anti-causal pass, each
    carrying its last outputs and inputs in scalars."""
    h, w = x.shape
    forward = np.empty_like(x)
    backward = np.empty_like(x)
    for i in range(h):
        y1, y2, x1 = 0.0, 0.0, 0.0
        for j in range(w):
            forward[i, j] = a1 * x[i, j] + a2 * x1 + b1 * y1 + b2 * y2
            x1, y2, y1 = x[i, j], y1, forward[i, j]
    for i in range(h):
        y1, y2, x1, x2 = 0.0, 0.0, 0.0, 0.0
        for j in range(w - 1, -1, -1):
            backward[i, j] = a1 * x1 + a2 * x2 + b1 * y1 + b2 * y2
            x2, x1, y2, y1 = x1, x[i, j], y1, backward[i, j]
    return forward + backward


def thomas_rows(a, b, c, d):
    """Tridiagonal solves along each row (Thomas's algorithm: one ADI half-step)."""
    h, n = d.shape
    x = np.empty_like(d)
    cp = np.empty(n)
    dp = np.empty(n)
    for r in range(h):
        cp[0] = c[r, 0] / b[r, 0]
        dp[0] = d[r, 0] / b[r, 0]
        for i in range(1, n):
            m = b[r, i] - a[r, i] * cp[i - 1]
            cp[i] = c[r, i] / m
            dp[i] = (d[r, i] - a[r, i] * dp[i - 1]) / m
        x[r, n - 1] = dp[n - 1]
        for i in range(n - 2, -1, -1):
            x[r, i] = dp[i] - cp[i] * x[r, i + 1]
    return x


def crc16(data):
    """CRC-16/CCITT of a byte array, bit by bit."""
    crc = 0xFFFF
    for k in range(data.shape[0]):
        crc ^= int(data[k]) << 8
        for _ in range(8):
            if crc & 0x8000:  # noqa: SIM108 - the statement form users write (a staged if)
                crc = ((crc << 1) ^ 0x1021) & 0xFFFF
            else:
                crc = (crc << 1) & 0xFFFF
    return crc


# --- JAX's versions -----------------------------------------------------------------------
def jax_sources(jax: Any) -> dict[str, Callable[..., Any]]:
    """The kernels in JAX's idiom (`jax` is the imported module, float64 enabled)."""
    jnp, lax = jax.numpy, jax.lax

    def jax_cholesky(A):
        cols = jnp.arange(A.shape[0])

        def row(i, A):
            def entry(j, A):
                dot = jnp.dot(jnp.where(cols < j, A[i], 0.0), A[j])
                return A.at[i, j].set((A[i, j] - dot) / A[j, j])

            A = lax.fori_loop(0, i, entry, A)
            head = jnp.where(cols < i, A[i], 0.0)
            return A.at[i, i].set(jnp.sqrt(A[i, i] - jnp.dot(head, head)))

        return jnp.tril(lax.fori_loop(0, A.shape[0], row, A))

    def jax_lu(A):
        n = A.shape[0]
        cols = jnp.arange(n)

        def row(i, A):
            def lower(j, A):
                dot = jnp.dot(jnp.where(cols < j, A[i], 0.0), A[:, j])
                return A.at[i, j].set((A[i, j] - dot) / A[j, j])

            def upper(j, A):
                return A.at[i, j].add(-jnp.dot(jnp.where(cols < i, A[i], 0.0), A[:, j]))

            return lax.fori_loop(i, n, upper, lax.fori_loop(0, i, lower, A))

        return lax.fori_loop(0, n, row, A)

    def jax_forward_substitution(L, b):
        def row(i, x):  # x[i:] is still zero: the whole row's dot is the slice's
            return x.at[i].set((b[i] - jnp.dot(L[i], x)) / L[i, i])

        return lax.fori_loop(0, L.shape[0], row, jnp.zeros_like(b))

    def jax_gram_schmidt(A):
        m = A.shape[1]

        def column(k, state):
            A, Q, R = state
            norm = jnp.sqrt(jnp.dot(A[:, k], A[:, k]))
            q = A[:, k] / norm

            def project(j, state):
                A, R = state
                rkj = jnp.dot(q, A[:, j])
                return A.at[:, j].add(-q * rkj), R.at[k, j].set(rkj)

            A, R = lax.fori_loop(k + 1, m, project, (A, R.at[k, k].set(norm)))
            return A, Q.at[:, k].set(q), R

        start = (A, jnp.zeros_like(A), jnp.zeros((m, m), A.dtype))
        _, Q, R = lax.fori_loop(0, m, column, start)
        return Q, R

    def jax_durbin(r):
        n = r.shape[0]
        cols = jnp.arange(n)

        def step(k, state):
            y, beta, alpha = state
            beta = (1 - alpha * alpha) * beta
            head = cols < k
            flipped = jnp.clip(k - 1 - cols, 0, n - 1)  # flip(v[:k])[t] = v[k - 1 - t]
            alpha = -(r[k] + jnp.dot(jnp.where(head, r[flipped], 0.0), y)) / beta
            y = jnp.where(head, y + alpha * y[flipped], y)
            return y.at[k].set(alpha), beta, alpha

        start = (jnp.zeros_like(r).at[0].set(-r[0]), jnp.ones((), r.dtype), -r[0])
        return lax.fori_loop(1, n, step, start)[0]

    def jax_floyd_warshall(D):
        def relax(k, D):
            return jnp.minimum(D, D[:, k, None] + D[None, k, :])

        return lax.fori_loop(0, D.shape[0], relax, D)

    def jax_csr_matvec(data, indices, indptr, x):
        n = indptr.shape[0] - 1
        rows = jnp.repeat(jnp.arange(n), jnp.diff(indptr), total_repeat_length=data.shape[0])
        return jax.ops.segment_sum(data * x[indices], rows, num_segments=n)

    def jax_prefix_means(x):
        cols = jnp.arange(x.shape[0])

        def entry(i, out):
            return out.at[i].set(jnp.sum(jnp.where(cols <= i, x, 0.0)) / (i + 1))

        return lax.fori_loop(0, x.shape[0], entry, jnp.zeros_like(x))

    return {
        "L1": jax_cholesky,
        "L2": jax_lu,
        "L3": jax_forward_substitution,
        "L4": jax_gram_schmidt,
        "L5": jax_durbin,
        "L6": jax_floyd_warshall,
        "L7": jax_csr_matvec,
        "L8": jax_prefix_means,
    }


# --- inputs -------------------------------------------------------------------------------
def _spd(rng: np.random.Generator, n: int) -> np.ndarray:
    """Symmetric, positive definite and diagonally dominant: no pivoting needed."""
    a = rng.random((n, n))
    return a @ a.T + n * np.eye(n)


def _matrix(rng: np.random.Generator, n: int) -> tuple[Any, ...]:
    return (_spd(rng, n),)


def _triangular_system(rng: np.random.Generator, n: int) -> tuple[Any, ...]:
    return np.tril(_spd(rng, n)), rng.standard_normal(n)


def _autocorrelations(rng: np.random.Generator, n: int) -> tuple[Any, ...]:
    return (rng.uniform(-0.4, 0.4, n) / n,)


def _graph(rng: np.random.Generator, n: int) -> tuple[Any, ...]:
    """Edge weights in [1, 10), 70% of the edges missing (inf), zero on the diagonal."""
    D = 1.0 + 9.0 * rng.random((n, n))
    D[rng.random((n, n)) < 0.7] = np.inf
    np.fill_diagonal(D, 0.0)
    return (D,)


def _csr(rng: np.random.Generator, n: int) -> tuple[Any, ...]:
    """An n x n CSR matrix with about n/20 entries per row (0 to n/10, some rows empty)."""
    per_row = rng.integers(0, min(n, 2 * -(-n // 20)) + 1, n)
    indptr = np.concatenate([[0], np.cumsum(per_row)]).astype(np.int64)
    rows = [np.sort(rng.choice(n, k, replace=False)) for k in per_row]
    indices = np.concatenate([np.zeros(0, np.int64), *rows]).astype(np.int64)
    return rng.standard_normal(indices.shape[0]), indices, indptr, rng.standard_normal(n)


def _series(rng: np.random.Generator, n: int) -> tuple[Any, ...]:
    return (rng.standard_normal(n),)


def _sequence(rng: np.random.Generator, n: int) -> tuple[Any, ...]:
    return (rng.integers(0, 4, n).astype(np.int64),)


def _grid(rng: np.random.Generator, n: int) -> tuple[Any, ...]:
    return rng.random((n, n)), 4


def _image(rng: np.random.Generator, n: int) -> tuple[Any, ...]:
    return rng.random((n, n)), 0.2, 0.1, 0.5, -0.1


def _tridiagonal_rows(rng: np.random.Generator, n: int) -> tuple[Any, ...]:
    """Sub-, main and super-diagonals (diagonally dominant) and right-hand sides, per row."""
    return rng.random((n, n)), 4.0 + rng.random((n, n)), rng.random((n, n)), rng.random((n, n))


def _bytes(rng: np.random.Generator, n: int) -> tuple[Any, ...]:
    return (rng.integers(0, 256, 100 * n).astype(np.uint8),)


# --- the table of kernels -----------------------------------------------------------------
NO_JAX = "no JAX version (element-by-element nest)"


@dataclass(frozen=True)
class LoopKernel:
    key: str
    title: str
    function: Callable[..., Any]
    inputs: Callable[[np.random.Generator, int], tuple[Any, ...]]  # inputs(rng, N)
    order: int  # the work grows as N**order (to skip sizes that would take too long)
    rtol: float = 1e-9
    atol: float = 1e-12
    jax_note: str = "fori_loop, masked rows"


LOOP_KERNELS: dict[str, LoopKernel] = {
    k.key: k
    for k in [
        LoopKernel("L1", "Cholesky, in place", cholesky, _matrix, 3),
        LoopKernel("L2", "LU (Doolittle), in place", lu, _matrix, 3),
        LoopKernel("L3", "forward substitution", forward_substitution, _triangular_system, 2),
        LoopKernel("L4", "modified Gram-Schmidt", gram_schmidt, _matrix, 3, rtol=1e-7, atol=1e-10),
        LoopKernel("L5", "Durbin (Levinson)", durbin, _autocorrelations, 2, rtol=1e-7),
        LoopKernel(
            "L6",
            "Floyd-Warshall, np.minimum",
            floyd_warshall,
            _graph,
            3,
            jax_note="fori_loop, dynamic index",
        ),
        LoopKernel(
            "L7", "CSR matvec, row slices", csr_matvec, _csr, 2, jax_note="segment_sum, no loop"
        ),
        LoopKernel("L8", "prefix means", prefix_means, _series, 2),
        LoopKernel("L9", "Nussinov DP, scalar nest", nussinov, _sequence, 3, jax_note=NO_JAX),
        LoopKernel("L10", "Gauss-Seidel 2-D sweeps", seidel_2d, _grid, 2, jax_note=NO_JAX),
        LoopKernel("L11", "Deriche-style row filter", deriche_rows, _image, 2, jax_note=NO_JAX),
        LoopKernel(
            "L12",
            "Thomas tridiagonal rows",
            thomas_rows,
            _tridiagonal_rows,
            2,
            rtol=1e-7,
            jax_note=NO_JAX,
        ),  # fmt: skip
        LoopKernel("L13", "CRC-16, 100 N bytes", crc16, _bytes, 1, jax_note=NO_JAX),
    ]
}
