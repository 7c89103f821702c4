"""Random calls into NumPy's numerical library (docs/guide.md, "Linear algebra",
"Statistics, histograms and counting", "Fourier transforms"); builders for
`fuzz_programs.BUILDERS`.

* `linalg`: np.linalg on a matrix the program computes from its values, well conditioned by
  construction: a captured constant C with |C[i, j]| <= 0.5 off the diagonal and n + 1 on it
  (strictly diagonally dominant, condition number below 5), plus `np.diag(np.tanh(x))` or
  `0.5 * np.tanh(x)` of an exact value x (batched when x is). Symmetric positive definite
  operands are `M @ M.T`. Solutions, inverses, determinants, factorizations, norms, powers;
  factors with a sign LAPACK chooses (eigenvectors, singular vectors, Q) are compared through
  what does not depend on it (the reconstruction, |R|).
* `statistics`: np.median/quantile/percentile (a q or a list of them, an axis, keepdims),
  np.cov (rows or columns as variables, ddof; of empty arrays too).
* `counting`: np.bincount (weights, minlength), np.histogram (counts and edges, bins a number
  or edges, a range), np.histogram2d, np.searchsorted and np.digitize against sorted
  constants, np.interp, np.unique's counts, np.add.at.
* `fourier`: np.fft's transforms (n, axis, norm), compared through their real and imaginary
  parts or magnitudes (the oracle compares real values).

Error bounds are relative to the result's magnitude and, for linear algebra, to n and the
bounded condition number: a wrong answer of a factorization or a transform is off by far
more than rounding. Operands are exact values with finite elements (a NaN's position after
an O(n^3) factorization depends on the order of operations, which LAPACK does not promise).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from fuzz_programs import Builder, Value, _eps, _magnitude, _tiny
from hypothesis import strategies as st

SQUARE_DTYPES = [np.dtype(np.float32), np.dtype(np.float64)]


def _finite_exact(b: Builder, kinds: str = "biuf") -> list[Value]:
    return [
        v
        for v in b.values
        if v.exact and v.dtype.kind in kinds and v.array.size <= 256
        and (v.dtype.kind != "f" or bool(np.isfinite(v.array).all()))
    ]  # fmt: skip


def relative(factor: float, coarsest: np.dtype | None = None) -> Callable[[np.ndarray], float]:
    """A bound of `factor` ulps of the result's largest element (and of its smallest normal,
    for results near zero); ulps of `coarsest` when an operand was computed in a coarser
    dtype than the result's (`np.tanh` of int16 is float32)."""

    def bound(result: np.ndarray) -> float:
        real = result.real if result.dtype.kind == "c" else result
        eps = max(_eps(real.dtype), _eps(coarsest)) if coarsest is not None else _eps(real.dtype)
        return factor * (eps * _magnitude(real) + _tiny(real.dtype))

    return bound


def _constant(b: Builder, array: np.ndarray) -> str:
    name = f"C{len(b.program.constants)}"
    b.program.constants[name] = array
    b.namespace[name] = array
    return name


# --- linear algebra ---------------------------------------------------------------------------
def _dominant(b: Builder, n: int, dtype: np.dtype) -> str:
    """A captured n x n constant, strictly diagonally dominant."""
    width = 32 if dtype == np.float32 else 64
    entries = b.draw(st.lists(st.floats(-0.5, 0.5, width=width), min_size=n * n, max_size=n * n))
    matrix = np.array(entries, dtype=dtype).reshape(n, n) + (n + 1) * np.eye(n, dtype=dtype)
    return _constant(b, matrix)


def _matrix(b: Builder, n: int, dtype: np.dtype) -> tuple[str, list[Value]]:
    """An n x n (or batched) well-conditioned matrix expression and the values it reads."""
    c = _dominant(b, n, dtype)
    vectors = [v for v in _finite_exact(b) if v.shape == (n,)]
    stacks = [v for v in _finite_exact(b) if v.ndim >= 2 and v.shape[-2:] == (n, n)]
    form = b.draw(st.integers(0, 2))
    if form == 1 and vectors:
        x = b.pick(vectors)
        return f"({c} + np.diag(np.tanh({x.name})))", [x]
    if form == 2 and stacks:
        x = b.pick(stacks)
        return f"({c} + 0.5 * np.tanh({x.name}))", [x]
    return c, []


LINALG_FORMS = [
    "np.linalg.solve({m}, {rhs})", "np.linalg.inv({m})", "np.linalg.det({m})",
    "np.linalg.slogdet({m})[1]", "np.linalg.slogdet({m})[0]", "np.linalg.eigvalsh({s})",
    "np.linalg.eigh({s})[0]", "(lambda w, v: (v * w[..., None, :]) @ np.swapaxes(v, -1, -2))"
    "(*np.linalg.eigh({s}))", "np.linalg.cholesky({s})", "np.linalg.cholesky({s}, upper=True)",
    "np.linalg.svd({m}, compute_uv=False)", "np.linalg.svdvals({m})",
    "(lambda u, s, vt: (u * s[..., None, :]) @ vt)(*np.linalg.svd({m}))",
    "(lambda q, r: q @ r)(*np.linalg.qr({m}))", "np.abs(np.linalg.qr({m})[1])",
    "np.linalg.lstsq({m}, {rhs})[0]", "np.linalg.pinv({m})", "np.linalg.matrix_rank({m})",
    "np.linalg.norm({m})", "np.linalg.norm({m}, {ord})", "np.linalg.cond({m})",
    "np.linalg.matrix_power({m}, {k})", "np.linalg.multi_dot([{m}, {m}, {rhs}])",
]  # fmt: skip
NORM_ORDERS = ["'fro'", "'nuc'", "1", "-1", "2", "-2", "np.inf", "-np.inf"]
TWO_D_ONLY = ("lstsq", "multi_dot", "solve")


def linalg(b: Builder) -> bool:
    n = b.draw(st.integers(1, 4))
    m, operands = _matrix(b, n, b.choose(SQUARE_DTYPES))
    form = b.choose(LINALG_FORMS)
    if any(name in form for name in TWO_D_ONLY) and "np.tanh" in m and "np.diag" not in m:
        return False  # a batched matrix: keep right-hand sides to the 2-D case
    rhs = ""
    if "{rhs}" in form:
        candidates = [
            v for v in _finite_exact(b, "biuf") if v.shape in ((n,), (n, 1), (n, 2), (n, 3))
        ]
        if not candidates:
            return False
        x = b.pick(candidates)
        rhs, operands = x.name, [*operands, x]
    text = form.format(
        m=m, s=f"({m} @ np.swapaxes({m}, -1, -2))", rhs=rhs,
        ord=b.choose(NORM_ORDERS), k=b.draw(st.integers(-2, 3)),
    )  # fmt: skip
    # rounding grows with n and the condition number (below 5, squared for M @ M.T, cubed
    # for a power). (np.linalg.eigvals is not compiled: refused, naming tj.py_function.)
    # np.tanh of a small integer or float32 is float32 or float16, rounded in that dtype
    # (regressions/test_fuzz_071e08db50.py: tanh of uint16, 1 ulp of float32 apart)
    coarsest = np.tanh(operands[0].array.flat[:1]).dtype if "np.tanh" in m else None
    return b.emit(f"{b.fresh()} = {text}", relative(512 * n, coarsest), operands)


# --- statistics -------------------------------------------------------------------------------
QUANTILES = ["0.5", "0.25", "0", "1", "0.9", "[0.1, 0.5, 0.75]", "np.float32(0.3)"]


def statistics(b: Builder) -> bool:
    candidates = [v for v in _finite_exact(b) if v.ndim >= 1]
    if not candidates:
        return False
    v = b.pick(candidates)
    axis = "None" if b.draw(st.booleans()) else str(b.draw(st.integers(-v.ndim, v.ndim - 1)))
    keep = ", keepdims=True" if b.draw(st.integers(0, 3)) == 0 else ""
    kind = b.choose(["median", "quantile", "percentile", "cov"])
    if v.array.size == 0 and kind != "cov":
        return False  # np.cov of no variables (NumPy's float64 (0, 0)) or no observations
    if kind == "median":
        text = f"np.median({v.name}, axis={axis}{keep})"
    elif kind == "quantile":
        text = f"np.quantile({v.name}, {b.choose(QUANTILES)}, axis={axis}{keep})"
    elif kind == "percentile":
        q = b.choose(["50", "10", "[5, 95]", "100", "0"])
        text = f"np.percentile({v.name}, {q}, axis={axis}{keep})"
    else:
        if v.ndim > 2:
            return False
        rowvar = b.choose(["", ", rowvar=False"])
        ddof = b.choose(["", ", ddof=0", ", ddof=1", ", bias=True"])
        text = f"np.cov({v.name}{rowvar}{ddof})"
        count = v.shape[-1] if v.ndim == 2 and not rowvar else v.shape[0]
        scale = _magnitude(v.array) ** 2
        return b.emit(
            f"{b.fresh()} = {text}",
            lambda r: 8 * max(count, 1) * _eps(r.dtype) * scale,
            [v],
        )
    # an interpolation between two neighbours: a few ulps of the larger one
    scale = _magnitude(v.array)
    return b.emit(f"{b.fresh()} = {text}", lambda r: 4 * _eps(r.dtype) * scale, [v])


# --- histograms and counting ------------------------------------------------------------------
def _sorted_constant(b: Builder, size: int, dtype: np.dtype) -> str:
    values = b.draw(st.lists(st.integers(-6, 6), min_size=size, max_size=size))
    return _constant(b, np.sort(np.array(values)).astype(dtype))


def counting(b: Builder) -> bool:
    candidates = [v for v in _finite_exact(b) if v.array.size >= 1 and v.ndim >= 1]
    if not candidates:
        return False
    v = b.pick(candidates)
    x, kind = v.name, b.choose(
        ["bincount", "histogram", "edges", "histogram2d", "searchsorted", "digitize", "interp",
         "unique", "add_at"]
    )  # fmt: skip
    operands, err, hidden = [v], None, False
    flat = f"{x}.ravel()" if v.ndim > 1 else x
    if kind == "bincount":
        weights = [w for w in _finite_exact(b) if w.shape == v.shape and w is not v]
        extra = ""
        if weights and b.draw(st.booleans()):
            w = b.pick(weights)
            w_flat = f"{w.name}.ravel()" if w.ndim > 1 else w.name
            extra, operands = f", weights={w_flat}", [v, w]
            err = relative(4 * max(w.array.size, 1))
        if b.draw(st.booleans()):
            extra += f", minlength={b.choose([0, 3, 9])}"
        labels = flat if v.dtype.kind == "b" else f"{flat} % 7"
        text = f"np.bincount({labels}{extra})"
        hidden = True  # max(x) + 1 bins: a size only the kernel knows, returned only
    elif kind in ("histogram", "edges"):
        bins = b.choose(["4", "1", "7", _sorted_constant(b, 4, np.dtype(np.float64))])
        span = b.choose(["", ", range=(-2, 3)", ", range=(0.5, 0.5)"])
        text = f"np.histogram({x}, bins={bins}{span})[{0 if kind == 'histogram' else 1}]"
        err = relative(4) if kind == "edges" else None
    elif kind == "histogram2d":
        others = [w for w in _finite_exact(b) if w.shape == v.shape and w.ndim == 1]
        if v.ndim != 1 or not others:
            return False
        y = b.pick(others)
        text = f"np.histogram2d({x}, {y.name}, bins={b.choose(['3', '(2, 4)'])})[0]"
        operands = [v, y]
    elif kind in ("searchsorted", "digitize"):
        edges = _sorted_constant(b, b.draw(st.integers(1, 6)), b.choose(SQUARE_DTYPES))
        if kind == "searchsorted":
            side = b.choose(['"left"', '"right"'])
            text = f"np.searchsorted({edges}, {x}, side={side})"
        else:
            text = f"np.digitize({x}, {edges}, right={b.choose(['False', 'True'])})"
    elif kind == "interp":
        xp = _sorted_constant(b, b.draw(st.integers(1, 5)), np.dtype(np.float64))
        xp_values = np.unique(b.namespace[xp])
        b.program.constants[xp] = b.namespace[xp] = xp_values  # strictly increasing
        fp = _constant(b, np.arange(xp_values.size, dtype=np.float64) * 1.5 - 2)
        text = f"np.interp({x}, {xp}, {fp})"
        err = relative(8)
    elif kind == "unique":
        text = f"np.unique({x}, return_counts=True)[1]"
        hidden = True  # as many counts as distinct values: returned only
    else:
        if v.dtype.kind != "b" and v.ndim == 1:
            text = f"(lambda t: (np.add.at(t, {x} % 5, 1), t)[1])(np.zeros(5, np.int64))"
        else:
            return False
    return b.emit(f"{b.fresh()} = {text}", err, operands, hidden=hidden)


# --- Fourier transforms -----------------------------------------------------------------------
FFT_FORMS = [
    "np.fft.fft({x}{n}{axis}{norm})", "np.fft.ifft({x}{n}{axis}{norm})",
    "np.fft.rfft({x}{n}{axis}{norm})", "np.fft.fft2({x})", "np.fft.fftn({x}{norm})",
    "np.fft.irfft(np.fft.rfft({x}{axis}){axis}{norm})",
]  # fmt: skip
PARTS = ["({}).real", "({}).imag", "np.abs({})"]


def fourier(b: Builder) -> bool:
    candidates = [v for v in _finite_exact(b) if v.ndim >= 1 and v.shape[-1] >= 1]
    if not candidates:
        return False
    v = b.pick(candidates)
    form = b.choose(FFT_FORMS)
    if "fft2" in form and v.ndim < 2:
        return False
    axis_k = b.draw(st.integers(-v.ndim, v.ndim - 1))
    length = b.choose([None, 1, 3, 4, 6, 7, 16])
    text = form.format(
        x=v.name,
        n="" if length is None else f", n={length}",
        axis=f", axis={axis_k}" if b.draw(st.booleans()) else "",
        norm=b.choose(["", ', norm="ortho"', ', norm="forward"']),
    )
    if "irfft" not in form:
        text = b.choose(PARTS).format(text)
    # each output sums `size` products with twiddles (|w| = 1) in log2(size) stages
    size = max(v.array.size, length or 1, 2)
    scale = float(np.sum(np.abs(v.array.astype(np.float64))))
    stages = 4 + int(np.ceil(np.log2(size)))

    def bound(result: np.ndarray) -> float:
        return 8 * stages * _eps(result.dtype) * scale

    return b.emit(f"{b.fresh()} = {text}", bound, [v])


LIBRARY_BUILDERS: dict[Callable[[Builder], bool], int] = {
    linalg: 2, statistics: 1, counting: 2, fourier: 1,
}  # fmt: skip
