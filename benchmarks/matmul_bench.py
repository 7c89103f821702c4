"""Matrix products of every shape (issue 39 point 2, issue 38's "use BLAS where it is
faster"): matrix @ vector both ways, `A.T @ (A @ x)`, a GEMVER-like update chain, GESUMMV, a slice
of a matrix @ vector, PolyBench's covariance (products with slices in a loop), batched
small products, an MLP forward pass in float32, GEMM and a GEMM chain, in float32 and
float64, tracejit against NumPy. NumPy/this > 1 means faster than NumPy.

The thread count is the harness's (`--threads`, which also pins NumPy's and SciPy's
OpenBLAS): `make bench BENCH_ARGS="--only matmul"` is one thread,
`BENCH_ARGS="--only matmul --threads 2"` two.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from benchmarks.timing import FULL, QUICK, format_seconds, format_table, median_seconds


def _gemv(a, x):
    return a @ x


def _vecmat(x, a):
    return x @ a


def _normal_product(a, x):
    return a.T @ (a @ x)


def _mvt(a, x1, x2, y1, y2):
    return x1 + a @ y1, x2 + y2 @ a


def _gemver(a, u1, v1, u2, v2, w, x, y, z):
    """PolyBench's GEMVER as whole-array NumPy (alpha = 1.5, beta = 1.2)."""
    a = a + np.outer(u1, v1) + np.outer(u2, v2)
    x = x + 1.2 * (a.T @ y) + z
    return w + 1.5 * (a @ x)


def _gesummv(a, b, x):
    """PolyBench's GESUMMV (alpha = 1.5, beta = 1.2): each scaled matrix is computed in its
    product's loop (passes/bufferize/absorbed_operands.py), NumPy makes it a temporary."""
    return 1.5 * a @ x + 1.2 * b @ x


def _sliced_gemv(a, x):
    """A slice of a matrix @ vector: BLAS reads the window in place
    (passes/bufferize/blas_windows.py), where our kernel copied it first."""
    return a[1:, 1:] @ x[1:]


def _covariance(m, data):
    """PolyBench's covariance as NPBench writes it, but on a copy of `data`: the product
    of a column with the slice `data[:, i:m]` in a loop, a window BLAS reads in place."""
    data = data - np.mean(data, axis=0)
    cov = np.zeros((m, m), dtype=data.dtype)
    for i in range(m):
        cov[i:m, i] = cov[i, i:m] = data[:, i] @ data[:, i:m] / (data.shape[0] - 1.0)
    return cov


def _batched(a, b):
    return a @ b


def _doitgen(a, c4):
    """PolyBench's doitgen: every A[r, q, :] @ C4, as one 3-D @ 2-D product."""
    return a @ c4


def _mlp(x, w1, b1, w2, b2):
    h = np.maximum(x @ w1 + b1, 0)
    logits = h @ w2 + b2
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _gemm(a, b):
    return a @ b


def _chain(a, b, c):
    return (a @ b) @ c


def _cases(dtype: type) -> list[tuple[str, Callable[..., Any], tuple[np.ndarray, ...]]]:
    rng = np.random.default_rng(0)

    def r(*shape: int) -> np.ndarray:
        return rng.standard_normal(shape).astype(dtype)

    n = 2000
    return [
        ("A @ x 2000²", _gemv, (r(n, n), r(n))),
        ("x @ A 2000²", _vecmat, (r(n), r(n, n))),
        ("A.T @ (A @ x) 2000²", _normal_product, (r(n, n), r(n))),
        ("mvt 2000²", _mvt, (r(n, n), r(n), r(n), r(n), r(n))),
        ("gemver 2000²", _gemver, (r(n, n), *(r(n) for _ in range(8)))),
        ("gesummv 1500²", _gesummv, (r(1500, 1500), r(1500, 1500), r(1500))),
        ("A[1:, 1:] @ x[1:] 2000²", _sliced_gemv, (r(n, n), r(n))),
        ("covariance 260×240", _covariance, (240, r(260, 240))),
        ("256 × 8×8 @ 8×8", _batched, (r(256, 8, 8), r(256, 8, 8))),
        ("doitgen 150×140×160", _doitgen, (r(150, 140, 160), r(160, 160))),
        ("GEMM 512²", _gemm, (r(512, 512), r(512, 512))),
        ("chain 3 × 512²", _chain, (r(512, 512), r(512, 512), r(512, 512))),
    ]


def _mlp_case() -> tuple[str, Callable[..., Any], tuple[np.ndarray, ...]]:
    rng = np.random.default_rng(1)
    shapes = ((256, 784), (784, 512), (512,), (512, 10), (10,))
    args = tuple((rng.standard_normal(s) * 0.05).astype(np.float32) for s in shapes)
    return "MLP 256: 784→512→10", _mlp, args


def report(quick: bool) -> dict[str, Any]:
    import tracejit as tj

    budget = QUICK if quick else FULL
    rows, found = [], []
    cases = [(np.float32, c) for c in _cases(np.float32)] + [(None, _mlp_case())]
    cases += [(np.float64, c) for c in _cases(np.float64)]
    for dtype, (name, fn, args) in cases:
        compiled = tj.function(fn)
        tolerance = 1e-3 if args[-1].dtype == np.float32 else 1e-9
        for got, want in zip(_tuple(compiled(*args)), _tuple(fn(*args)), strict=True):
            np.testing.assert_allclose(got, want, rtol=tolerance, atol=tolerance)
        numpy_s = median_seconds(lambda fn=fn, args=args: fn(*args), budget)
        ours = median_seconds(lambda c=compiled, args=args: c(*args), budget)
        label = f"{name} {np.dtype(dtype or np.float32).name}"
        rows.append([label, format_seconds(ours), format_seconds(numpy_s), f"{numpy_s / ours:.2f}"])
        found.append({"case": label, "tracejit_s": ours, "numpy_s": numpy_s})
    print("\nmatrix products (issue 39): tracejit against NumPy")
    print(format_table(["", "tracejit", "NumPy", "NumPy/this"], rows))
    return {"cases": found}


def _tuple(x: Any) -> tuple[Any, ...]:
    return x if isinstance(x, tuple) else (x,)
