"""np.linalg on LAPACK (issue 38): `solve` and `cholesky` at 64², 512² and 2000² (float64),
and np.cov of 1,000 variables x 1,000 observations (centring, then x @ x.T / (n - 1): no
LAPACK, a matrix product), tracejit against NumPy, and numba and JAX when they are installed.

tracejit and NumPy call the same LAPACK (SciPy's OpenBLAS and NumPy's are separate builds,
so their kernels may differ); what tracejit adds per call is its copy of each matrix into
LAPACK's column-major order and back, and its call overhead. The right-hand side of solve
has 8 columns. NumPy/this > 1 means faster than NumPy.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from benchmarks.timing import FULL, QUICK, format_seconds, format_table, median_seconds

SIZES = (64, 512, 2000)
COV_SIZES = (1000,)  # rows (variables) = columns (observations)


def _solve(a, b):
    return np.linalg.solve(a, b)


def _cholesky(a):
    return np.linalg.cholesky(a)


def _cov(x):
    return np.cov(x)


def _problem(n: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(n)
    m = rng.standard_normal((n, n))
    return m @ m.T + n * np.eye(n), rng.standard_normal((n, 8))


def inputs(fn: Callable[..., Any], n: int) -> tuple[np.ndarray, ...]:
    """The arguments of one case at size n."""
    if fn is _cov:
        return (np.random.default_rng(n).standard_normal((n, n)),)
    a, b = _problem(n)
    return (a, b) if fn is _solve else (a,)


# (name, function, sizes, whether it calls LAPACK)
CASES = (
    ("solve", _solve, SIZES, True),
    ("cholesky", _cholesky, SIZES, True),
    ("cov", _cov, COV_SIZES, False),
)


def _peers() -> dict[str, Callable[[Callable[..., Any]], Callable[..., Any]]]:
    """name -> a compiler of the NumPy function, for the peers that are installed."""
    found: dict[str, Callable[[Callable[..., Any]], Callable[..., Any]]] = {}
    try:
        import numba

        found["numba"] = numba.njit
    except ImportError:
        pass
    try:
        import jax
        import jax.numpy as jnp

        jax.config.update("jax_enable_x64", True)

        def jax_compile(fn: Callable[..., Any]) -> Callable[..., Any]:
            same = {_solve: jnp.linalg.solve, _cholesky: jnp.linalg.cholesky, _cov: jnp.cov}
            jitted = jax.jit(same[fn])
            return lambda *args: jax.block_until_ready(jitted(*args))

        found["jax"] = jax_compile
    except ImportError:
        pass
    return found


def report(quick: bool) -> dict[str, Any]:
    import tracejit as tj
    from tracejit.runtime import lapack

    if not lapack.available():
        print("\nnp.linalg: SciPy is not installed (tracejit[linalg]); only np.cov is timed")
    budget = QUICK if quick else FULL
    peers = _peers()
    rows, found = [], []
    for name, fn, sizes, calls_lapack in CASES:
        if calls_lapack and not lapack.available():
            continue
        compiled = tj.function(fn)
        for n in sizes:
            args = inputs(fn, n)
            np.testing.assert_allclose(compiled(*args), fn(*args), rtol=1e-6, atol=1e-9)
            numpy_s = median_seconds(lambda fn=fn, args=args: fn(*args), budget)
            ours = median_seconds(lambda c=compiled, args=args: c(*args), budget)
            row = [f"{name} {n}x{n}", format_seconds(ours), format_seconds(numpy_s),
                   f"{numpy_s / ours:.2f}"]  # fmt: skip
            entry: dict[str, Any] = {"case": f"{name} {n}", "tracejit_s": ours, "numpy_s": numpy_s}
            for peer, make in peers.items():
                peer_fn = make(fn)
                peer_fn(*args)
                seconds = median_seconds(lambda p=peer_fn, args=args: p(*args), budget)
                row.append(f"{format_seconds(seconds)} ({numpy_s / seconds:.2f})")
                entry[f"{peer}_s"] = seconds
            rows.append(row)
            found.append(entry)
    header = ["", "tracejit", "NumPy", "NumPy/this", *(f"{p} (NumPy/it)" for p in peers)]
    print("\nnp.linalg on LAPACK, and np.cov: float64, one thread (b of solve: 8 columns)")
    print(format_table(header, rows))
    if not peers:
        print("numba and JAX are not installed: no peer columns")
    return {"cases": found, "peers": list(peers)}
