"""Kernels over slices whose start or count is known only at run time (`x[:i]`, `A[i, :j]`,
`x[i:]` in a staged loop) are fused and read their arrays in place (ir/fused.py,
passes/bufferize/fused.py): each loop body here is compared with NumPy at sizes 0, 1, 2,
9 and 17, and the loop bodies are checked to allocate nothing on the heap (a temporary of
run-time size that remains, a copy for a matrix product or a kernel's result, lives in a
scratch buffer of its static bound, passes/bufferize/builder.py)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import tracejit as tj
from tests.conftest import assert_same, run_eagerly

SIZES = [0, 1, 2, 9, 17]


def dot_rows(A):
    out = np.zeros(A.shape[0])
    for i in range(A.shape[0]):
        for j in range(i):
            out[i] += np.dot(A[i, :j], A[j, :j])
    return out


def masked_dot(x, y):
    out = np.zeros_like(x)
    for i in range(x.shape[0]):
        out[i] = np.sum(x[:i] * y[:i])
    return out


def prefix_mean(x):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        out[i] = np.mean(x[: i + 1])
    return out


def forward(L, b):
    x = np.zeros_like(b)
    for i in range(L.shape[0]):
        x[i] = (b[i] - L[i, :i] @ x[:i]) / L[i, i]
    return x


def flip_update(y, alpha):
    y = y.copy()
    for k in range(1, y.shape[0]):
        y[:k] += alpha * np.flip(y[:k])
    return y


def tails(x):
    out = np.zeros_like(x)
    for i in range(x.shape[0]):
        out[i] = np.sum(x[i:] ** 2) - np.max(x[i:])
    return out


def strided_columns(A):
    out = np.zeros(A.shape[1])
    for j in range(A.shape[1]):
        out[j] = np.dot(A[:j, j], A[:j, 0]) + np.sum(A[j::2, j])
    return out


def squares(A):
    out = np.zeros(A.shape[0])
    for i in range(A.shape[0]):
        out[i] = np.sum(A[:i, :i] * A[:i, :i].T) + np.min(A[i, : i + 1])
    return out


def two_lengths(x):
    n = x.shape[0]
    out = np.zeros_like(x)
    for i in range(n):
        out[i] = np.sum(x[:i]) * 3 - np.sum(x[: n - i] ** 2) + np.sum(x[:i] ** 2)
    return out


def centered(x):
    out = np.zeros_like(x)
    for i in range(x.shape[0]):
        head = x[: i + 1]
        out[i] = np.sum((head - np.mean(head)) ** 2)
    return out


def scaled_head(y, x):
    y = y.copy()
    for i in range(y.shape[0]):
        y[:i] = y[:i] * 0.5 + x[:i]
    return y


def outer_sum(x, y):
    out = np.zeros_like(x)
    for i in range(x.shape[0]):
        out[i] = np.sum(x[:i, None] * y[None, :i])
    return out


def integer_dots(a, b):
    out = np.zeros(a.shape[0], dtype=a.dtype)
    for i in range(a.shape[0]):
        out[i] = np.dot(a[:i], b[:i])
    return out


def sliced_products(v, A):
    out = np.zeros(A.shape[1])
    for i in range(A.shape[0]):
        out += v[:i] @ A[:i, :]  # a matrix product: the slices are copied (into scratch)
    return out


def row_from_column(A):
    out = np.zeros_like(A)
    for i in range(A.shape[0]):
        out[i, i:] = A[i:, i] * 2 + A[i, i:]  # a kernel's result reshaped into a row
    return out


def partial_column_sums(A):
    out = np.zeros(A.shape[1])
    for i in range(A.shape[0]):
        out[:i] += A[:i, :i].sum(axis=0) * 0.5  # a reduction keeping a run-time dim
    return out


def matrix_vector(A, v):
    out = np.zeros_like(v)
    for i in range(A.shape[0]):
        out[:i] = A[:i, :i] @ v[:i] + v[:i] @ A[:i, :i]  # results of run-time size
    return out


def checked_lengths(a, b):
    out = np.zeros(a.shape[0])
    for i in range(a.shape[0]):
        out[i] = np.sum(a[:i] * b[:i])  # a shorter than b: the lengths are checked equal
    return out


def compiled_and_eager(function, *args, rtol=1e-9):
    f = tj.function(function)
    with warnings.catch_warnings():
        warnings.simplefilter("error", tj.LoopUnrolledWarning)  # every loop stays a loop
        compiled = f(*args)
    assert_same(compiled, run_eagerly(f, *args), rtol=rtol, atol=1e-12)


def matrix(n, seed=0):
    return np.random.default_rng(seed).standard_normal((n, n))


def vector(n, seed=1):
    return np.random.default_rng(seed).standard_normal(n)


@pytest.mark.parametrize("n", SIZES)
def test_vector_kernels_match_numpy(n):
    x, y = vector(n), vector(n, seed=2)
    compiled_and_eager(masked_dot, x, y)
    compiled_and_eager(prefix_mean, x) if n else None  # (np.mean of x[:1] of nothing)
    compiled_and_eager(flip_update, x / 8, np.float64(0.3))
    compiled_and_eager(tails, x) if n else None
    compiled_and_eager(two_lengths, x)
    compiled_and_eager(centered, x)
    compiled_and_eager(scaled_head, x, y)
    compiled_and_eager(outer_sum, x, y)
    compiled_and_eager(integer_dots, np.arange(n) - 4, np.arange(n) % 5)
    compiled_and_eager(checked_lengths, x, vector(n + 3))


@pytest.mark.parametrize("n", SIZES)
def test_matrix_kernels_match_numpy(n):
    A = matrix(n)
    compiled_and_eager(dot_rows, A)
    compiled_and_eager(strided_columns, A)
    compiled_and_eager(squares, A)
    L = np.tril(A) + 4 * np.eye(n)
    compiled_and_eager(forward, L, vector(n))
    compiled_and_eager(sliced_products, vector(n), matrix(n)[:, :3].copy())
    compiled_and_eager(row_from_column, A)
    compiled_and_eager(partial_column_sums, A)
    compiled_and_eager(matrix_vector, A, vector(n))


def loop_body_allocations(function, *specs) -> list[str]:
    """The heap allocations (`memref.alloc`) inside the staged loops of the compiled
    module, after `lower-to-loops`."""
    from xdsl.dialects import memref, scf

    from tracejit.passes.pipeline import Pipeline

    concrete = tj.function(function).get_concrete_function(*specs)
    module = concrete.graph.module.clone()
    passes = Pipeline.parse("default").names
    Pipeline.parse(passes[: passes.index("lower-to-loops") + 1]).run(module)
    loops = [op for op in module.walk() if isinstance(op, scf.WhileOp)]
    assert loops
    return [
        str(op)
        for loop in loops
        for op in loop.walk()
        if isinstance(op, memref.AllocOp) or op.name == "memref.alloc"
    ]


@pytest.mark.parametrize(
    "function, shapes",
    [
        (dot_rows, [[12, 12]]),
        (masked_dot, [[12], [12]]),
        (prefix_mean, [[12]]),
        (forward, [[12, 12], [12]]),
        (tails, [[12]]),
        (centered, [[12]]),
        (checked_lengths, [[12], [15]]),
        (flip_update, [[12], []]),
        (scaled_head, [[12], [12]]),
        (sliced_products, [[12], [12, 3]]),
        (row_from_column, [[12, 12]]),
        (partial_column_sums, [[12, 12]]),
        (matrix_vector, [[12, 12], [12]]),
    ],
)
def test_loop_bodies_allocate_nothing(function, shapes):
    specs = [tj.TensorSpec(shape, np.float64) for shape in shapes]
    assert loop_body_allocations(function, *specs) == []
