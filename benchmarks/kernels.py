"""Kernels K1-K29: loop-style and vectorised NumPy kernels, written the way NumPy and numba
users write them, each ONCE: NumPy runs the source as is (the loop-style ones in the Python
interpreter), `tj.function` traces it and `numba.njit` compiles it where numba accepts it.

Pairs solve one problem two ways (triple loop vs broadcasting, slices vs index loops, masks vs
a loop per pixel, a scan loop vs np.cumsum, np.roll vs neighbour loops), so a row's NumPy time
can be read against its twin's. No kernel changes its arguments (the timing calls it again
and again on the same inputs). `kernel_bench.py` measures them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np


# --- pairwise distances ------------------------------------------------------------------
def pairwise_loops(points):
    n, dims = points.shape
    distances = np.empty((n, n))
    for i in range(n):
        for j in range(n):
            total = 0.0
            for k in range(dims):
                step = points[i, k] - points[j, k]
                total += step * step
            distances[i, j] = np.sqrt(total)
    return distances


def pairwise_broadcast(points):
    diff = points[:, None, :] - points[None, :, :]
    return np.sqrt((diff * diff).sum(axis=-1))


# --- 2-d Jacobi iterations of the 5-point Laplace stencil --------------------------------
def jacobi_slices(u, iterations):
    u = u.copy()
    for _ in range(iterations):
        u[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
    return u


def jacobi_loops_swap(u, iterations):
    """The textbook form: sweep from one buffer into the other, then swap them."""
    n, m = u.shape
    old = u.copy()
    new = u.copy()
    for _ in range(iterations):
        for i in range(1, n - 1):
            for j in range(1, m - 1):
                new[i, j] = 0.25 * (old[i - 1, j] + old[i + 1, j] + old[i, j - 1] + old[i, j + 1])
        old, new = new, old
    return old


def jacobi_loops(u, iterations):
    """Two sweeps per step (old -> new -> old): the same values as the swap without
    rebinding the arrays (`iterations` must be even)."""
    n, m = u.shape
    old = u.copy()
    new = u.copy()
    for _ in range(iterations // 2):
        for i in range(1, n - 1):
            for j in range(1, m - 1):
                new[i, j] = 0.25 * (old[i - 1, j] + old[i + 1, j] + old[i, j - 1] + old[i, j + 1])
        for i in range(1, n - 1):
            for j in range(1, m - 1):
                old[i, j] = 0.25 * (new[i - 1, j] + new[i + 1, j] + new[i, j - 1] + new[i, j + 1])
    return old


# --- Mandelbrot escape counts ------------------------------------------------------------
def mandelbrot_masks(c, max_iter):
    """The NumPy idiom: update only the points still inside, through a boolean mask."""
    z = np.zeros_like(c)
    counts = np.zeros(c.shape, dtype=np.int64)
    for _ in range(max_iter):
        inside = np.abs(z) <= 2.0
        z[inside] = z[inside] * z[inside] + c[inside]
        counts += inside
    return counts


def mandelbrot_where(c, max_iter):
    """Every point every step, escaped ones kept by np.where."""
    z = np.zeros_like(c)
    counts = np.zeros(c.shape, dtype=np.int64)
    for _ in range(max_iter):
        inside = np.abs(z) <= 2.0
        z = np.where(inside, z * z + c, z)
        counts += inside
    return counts


def mandelbrot_loops(c, max_iter):
    h, w = c.shape
    counts = np.zeros((h, w), dtype=np.int64)
    for i in range(h):
        for j in range(w):
            z = 0j
            n = 0
            while n < max_iter and abs(z) <= 2.0:
                z = z * z + c[i, j]
                n += 1
            counts[i, j] = n
    return counts


# --- cumulative sums ---------------------------------------------------------------------
def cumsum_loop(x):
    out = np.empty_like(x)
    out[0] = x[0]
    for i in range(1, x.shape[0]):
        out[i] = out[i - 1] + x[i]
    return out


def cumsum_numpy(x):
    return np.cumsum(x)


# --- Conway's Game of Life, one step on a torus ------------------------------------------
def life_loops(board):
    n, m = board.shape
    new = np.zeros_like(board)
    for i in range(n):
        for j in range(m):
            count = 0
            for di in range(-1, 2):
                for dj in range(-1, 2):
                    if di != 0 or dj != 0:
                        count += board[(i + di) % n, (j + dj) % m]
            if count == 3 or (board[i, j] == 1 and count == 2):
                new[i, j] = 1
    return new


def life_roll(board):
    count = np.zeros_like(board)
    for di in (-1, 0, 1):
        for dj in (-1, 0, 1):
            if di != 0 or dj != 0:
                count += np.roll(np.roll(board, di, axis=0), dj, axis=1)
    return ((count == 3) | ((board == 1) & (count == 2))).astype(board.dtype)


# --- growing-region segmentation ---------------------------------------------------------
def region_grow(image, seed_i, seed_j, threshold):
    """Flood fill from a seed: a pixel joins when it is within `threshold` of the seed's
    value and touches the region; sweep the image until a sweep adds nothing."""
    n, m = image.shape
    region = np.zeros((n, m), dtype=np.bool_)
    region[seed_i, seed_j] = True
    base = image[seed_i, seed_j]
    changed = True
    while changed:
        changed = False
        for i in range(n):
            for j in range(m):
                if (
                    not region[i, j]
                    and abs(image[i, j] - base) <= threshold
                    and (
                        (i > 0 and region[i - 1, j])
                        or (i < n - 1 and region[i + 1, j])
                        or (j > 0 and region[i, j - 1])
                        or (j < m - 1 and region[i, j + 1])
                    )
                ):
                    region[i, j] = True
                    changed = True
    return region


# --- stencils of shifted slices (views read in place by one fused loop) -------------------
def stencil_1d(a):
    return a[1:-1] + a[:-2] + a[2:]


def laplacian_slices(u):
    return u[1:-1, 1:-1] * -4 + u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:]


# --- products with a transposed or vector operand (BLAS in NumPy) ------------------------
def vector_matrix_transposed(v, m):
    return v @ m.T


def matrix_vector(m, v):
    return m @ v


def dot_transposed(x1, x2):
    return np.dot(x1, x2.T)


# --- the table of kernels ----------------------------------------------------------------
Inputs = Callable[[np.random.Generator, bool], tuple[Any, ...]]


@dataclass(frozen=True)
class Kernel:
    key: str
    title: str
    function: Callable[..., Any]
    inputs: Inputs  # inputs(rng, small): the benchmark's inputs, or tiny ones for the tests
    size: str  # the benchmark inputs, for the table
    rtol: float = 1e-7
    atol: float = 0.0
    loops: bool = False  # loop-style: NumPy runs it in the Python interpreter


def _points(rng: np.random.Generator, small: bool) -> tuple[Any, ...]:
    return (rng.random((40 if small else 1000, 3)),)


def _grid(rng: np.random.Generator, small: bool) -> tuple[Any, ...]:
    return (rng.random((36, 35) if small else (256, 256)), 66 if small else 100)


def _plane(rng: np.random.Generator, small: bool) -> tuple[Any, ...]:
    h, w = (34, 40) if small else (200, 300)
    y, x = np.mgrid[-1.2 : 1.2 : h * 1j, -2.1 : 0.9 : w * 1j]
    return (x + 1j * y, 40 if small else 100)


def _series(rng: np.random.Generator, small: bool) -> tuple[Any, ...]:
    return (rng.standard_normal(50 if small else 1_000_000),)


def _board(rng: np.random.Generator, small: bool) -> tuple[Any, ...]:
    shape = (36, 34) if small else (256, 256)
    return ((rng.random(shape) < 0.3).astype(np.int8),)


def _image(rng: np.random.Generator, small: bool) -> tuple[Any, ...]:
    """Smooth blobs plus noise: the region around the seed is large and winding, so the
    sweeps repeat many times."""
    n = 36 if small else 120
    t = np.linspace(0.0, 1.0, n)
    image = np.sin(7 * t[:, None]) * np.cos(5 * t[None, :]) + 0.05 * rng.random((n, n))
    seed = n // 2
    return (image, seed, seed, 0.35)


KERNELS: dict[str, Kernel] = {
    k.key: k
    for k in [
        Kernel(
            "K1",
            "pairwise distances, triple loop",
            pairwise_loops,
            _points,
            "1000x3 f64",
            loops=True,
        ),
        Kernel("K2", "pairwise distances, broadcasting", pairwise_broadcast, _points, "1000x3 f64"),
        Kernel("K3", "Jacobi 5-point, slices", jacobi_slices, _grid, "256x256, 100 it."),
        Kernel(
            "K4",
            "Jacobi 5-point, loops + swap",
            jacobi_loops_swap,
            _grid,
            "256x256, 100 it.",
            loops=True,
        ),
        Kernel(
            "K5",
            "Jacobi 5-point, loops, 2 sweeps",
            jacobi_loops,
            _grid,
            "256x256, 100 it.",
            loops=True,
        ),
        Kernel("K6", "Mandelbrot, masks", mandelbrot_masks, _plane, "200x300 c128, 100 it."),
        Kernel("K7", "Mandelbrot, np.where", mandelbrot_where, _plane, "200x300 c128, 100 it."),
        Kernel(
            "K8",
            "Mandelbrot, loop per pixel",
            mandelbrot_loops,
            _plane,
            "200x300 c128, 100 it.",
            loops=True,
        ),
        Kernel(
            "K9",
            "cumulative sum, loop",
            cumsum_loop,
            _series,
            "1M f64",
            rtol=1e-9,
            atol=1e-9,
            loops=True,
        ),
        Kernel(
            "K10",
            "cumulative sum, np.cumsum",
            cumsum_numpy,
            _series,
            "1M f64",
            rtol=1e-9,
            atol=1e-9,
        ),
        Kernel("K11", "Game of Life step, loops", life_loops, _board, "256x256 i8", loops=True),
        Kernel("K12", "Game of Life step, np.roll", life_roll, _board, "256x256 i8"),
        Kernel("K13", "region growing, sweeps", region_grow, _image, "120x120 f64", loops=True),
    ]
}


def _line(rng: np.random.Generator, small: bool) -> tuple[Any, ...]:
    return (rng.random(50 if small else 4_000_000, dtype=np.float32),)


def _field(rng: np.random.Generator, small: bool) -> tuple[Any, ...]:
    return (rng.random((9, 7) if small else (2000, 2000), dtype=np.float32),)


def _vector_matrix(dtype: type) -> Inputs:
    def inputs(rng: np.random.Generator, small: bool) -> tuple[Any, ...]:
        n = 12 if small else 2000
        return rng.random(n).astype(dtype), rng.random((n - 1, n)).astype(dtype)

    return inputs


def _matrix_vector(dtype: type) -> Inputs:
    def inputs(rng: np.random.Generator, small: bool) -> tuple[Any, ...]:
        v, m = _vector_matrix(dtype)(rng, small)
        return m, v

    return inputs


def _two_matrices(dtype: type) -> Inputs:
    def inputs(rng: np.random.Generator, small: bool) -> tuple[Any, ...]:
        n = 10 if small else 512
        return rng.random((n, n + 1)).astype(dtype), rng.random((n - 1, n + 1)).astype(dtype)

    return inputs


KERNELS.update(
    (k.key, k)
    for k in [
        Kernel("K14", "3-point stencil, slices", stencil_1d, _line, "4M f32", rtol=1e-6),
        Kernel(
            "K15",
            "5-point Laplacian, slices",
            laplacian_slices,
            _field,
            "2000x2000 f32",
            rtol=1e-5,
            atol=1e-6,
        ),
        Kernel(
            "K16",
            "v @ m.T",
            vector_matrix_transposed,
            _vector_matrix(np.float64),
            "2000x2000 f64",
            rtol=1e-10,
        ),
        Kernel(
            "K17",
            "v @ m.T",
            vector_matrix_transposed,
            _vector_matrix(np.float32),
            "2000x2000 f32",
            rtol=1e-4,
        ),
        Kernel(
            "K18", "m @ v", matrix_vector, _matrix_vector(np.float64), "2000x2000 f64", rtol=1e-10
        ),
        Kernel(
            "K19", "m @ v", matrix_vector, _matrix_vector(np.float32), "2000x2000 f32", rtol=1e-4
        ),
        Kernel(
            "K20",
            "np.dot(x1, x2.T)",
            dot_transposed,
            _two_matrices(np.float64),
            "512x512 f64",
            rtol=1e-10,
        ),
        Kernel(
            "K21",
            "np.dot(x1, x2.T)",
            dot_transposed,
            _two_matrices(np.float32),
            "512x512 f32",
            rtol=1e-4,
        ),
    ]
)

# --- counting (issue 38): one scatter-add loop in tracejit; NumPy's histogram works in
# blocks of 65,536 values (uniform bins) or sorts them (explicit edges)
UNEVEN_EDGES = np.array([-4.0, -2.0, -1.0, -0.5, 0.0, 0.3, 0.5, 1.0, 2.0, 3.0, 4.5])


def histogram_bins(x):
    return np.histogram(x, bins=100)


def histogram_range(x):
    return np.histogram(x, bins=100, range=(-4.0, 4.0))


def histogram_edges(x):
    return np.histogram(x, bins=UNEVEN_EDGES)


def bincount(k):
    return np.bincount(k)


def _normal(rng: np.random.Generator, small: bool) -> tuple[Any, ...]:
    return (rng.normal(size=1000 if small else 10_000_000),)


def _labels(rng: np.random.Generator, small: bool) -> tuple[Any, ...]:
    return (rng.integers(0, 1000, size=1000 if small else 10_000_000),)


KERNELS.update(
    (k.key, k)
    for k in [
        Kernel("K22", "np.histogram, 100 bins", histogram_bins, _normal, "10M f64"),
        Kernel("K23", "np.histogram, range=", histogram_range, _normal, "10M f64"),
        Kernel("K24", "np.histogram, 10 uneven edges", histogram_edges, _normal, "10M f64"),
        Kernel("K25", "np.bincount", bincount, _labels, "10M i64, 1000 labels"),
    ]
)


# --- index reductions: NumPy's argmax is SIMD; tracejit's runs as a max (or min)
# reduction, then a min reduction of the indices holding it, both vectorised
def argmax_flat(x):
    return np.argmax(x)


def nearest_centre(distances):
    """k-means' assignment step: each point's nearest of 16 centres."""
    return np.argmin(distances, axis=1)


def _floats32(rng: np.random.Generator, small: bool) -> tuple[Any, ...]:
    return (rng.standard_normal(1000 if small else 1_000_000).astype(np.float32),)


def max_flat(x):
    """NaN-propagating max: passes/extrema_nan_flags.py makes its loop one `vmaxps` a vector."""
    return np.max(x)


def row_maxima(a):
    """softmax's first step: the max of each row."""
    return a.max(axis=1, keepdims=True)


def _rows(rng: np.random.Generator, small: bool) -> tuple[Any, ...]:
    return (rng.standard_normal((10, 100) if small else (1000, 1000)),)


def _distances(rng: np.random.Generator, small: bool) -> tuple[Any, ...]:
    return (rng.random((100 if small else 100_000, 16)),)


KERNELS.update(
    (k.key, k)
    for k in [
        Kernel("K26", "np.argmax", argmax_flat, _floats32, "1M f32"),
        Kernel("K27", "np.argmin along rows (k-means)", nearest_centre, _distances,
               "100000x16 f64"),
        Kernel("K28", "np.max", max_flat, _floats32, "1M f32"),
        Kernel("K29", "max along rows", row_maxima, _rows, "1000x1000 f64"),
    ]
)

# Kernels computing the same values from the same inputs (checked by the tests).
TWINS: list[tuple[str, str]] = [
    ("K1", "K2"),
    ("K3", "K4"),
    ("K3", "K5"),
    ("K6", "K7"),
    ("K6", "K8"),
    ("K9", "K10"),
    ("K11", "K12"),
]
