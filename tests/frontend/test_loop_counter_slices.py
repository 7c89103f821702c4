"""Loops whose bodies slice with the loop counter (`A[i, :j]`, `x[:i + 1]`, `x[lo:hi]`) stay
loops: the slice's length is a dim known only at run time (frontend/staging/dims.py's
`SliceLength`), the body is traced once, and the traced module does not grow with the trip
count. Each kernel is written as NumPy users write it and compared with its eager run."""

from __future__ import annotations

import functools
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tracejit as tj
from tests.conftest import answers_with_user_defaults, assert_same, run_eagerly


def cholesky(A):
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
    x = np.zeros_like(b)
    for i in range(L.shape[0]):
        x[i] = (b[i] - L[i, :i] @ x[:i]) / L[i, i]
    return x


def prefix_means(x):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        out[i] = np.mean(x[: i + 1])
    return out


def trailing_window_sums(x):
    out = np.zeros_like(x)
    for i in range(x.shape[0]):
        out[i] = np.sum(x[max(i - 3, 0) : i + 1])
    return out


def durbin(r):
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


def gram_schmidt(A):
    A = A.copy()
    Q = np.zeros_like(A)
    R = np.zeros((A.shape[1], A.shape[1]))
    for k in range(A.shape[1]):
        R[k, k] = np.sqrt(np.sum(A[:, k] * A[:, k]))
        Q[:, k] = A[:, k] / R[k, k]
        for j in range(k + 1, A.shape[1]):
            R[k, j] = np.dot(Q[:, k], A[:, j])
            A[:, j] -= Q[:, k] * R[k, j]
    return Q, R


def spd(n, seed=0):
    a = np.random.default_rng(seed).random((n, n))
    return a @ a.T + n * np.eye(n)


def compiled_and_eager(function, *args, rtol=1e-9):
    f = tj.function(function)
    with warnings.catch_warnings():
        warnings.simplefilter("error", tj.LoopUnrolledWarning)  # every loop stays a loop
        compiled = f(*args)
    assert_same(compiled, run_eagerly(f, *args), rtol=rtol, atol=1e-12)
    return f


SIZES = st.sampled_from([0, 1, 2, 3, 8, 9, 10, 17])  # 8: the unroll limit; 9 just above


@settings(max_examples=8, deadline=None)
@given(n=SIZES.filter(bool))
def test_triangular_factorisations(n):
    compiled_and_eager(cholesky, spd(n))
    compiled_and_eager(lu, spd(n, seed=1))
    L = np.tril(spd(n, seed=2))
    compiled_and_eager(forward_substitution, L, np.arange(n, dtype=np.float64))


@settings(max_examples=8, deadline=None)
@given(n=SIZES, dtype=st.sampled_from([np.float32, np.float64]))
def test_prefix_and_window_reductions(n, dtype):
    x = np.random.default_rng(n).standard_normal(n).astype(dtype)
    compiled_and_eager(prefix_means, x, rtol=1e-5)
    compiled_and_eager(trailing_window_sums, x, rtol=1e-5)


@settings(max_examples=6, deadline=None)
@given(n=SIZES.filter(lambda n: n >= 2))
def test_levinson_durbin_and_gram_schmidt(n):
    r = np.random.default_rng(n).uniform(-0.4, 0.4, n) / n
    compiled_and_eager(durbin, r, rtol=1e-7)
    compiled_and_eager(gram_schmidt, spd(n, seed=3)[:, : max(n - 1, 1)].copy(), rtol=1e-7)


def op_count(function, *specs) -> int:
    concrete = tj.function(function).get_concrete_function(*specs)
    return sum(1 for _ in concrete.graph.module.walk())


def test_the_traced_module_does_not_grow_with_the_trip_count():
    sizes = [op_count(cholesky, tj.TensorSpec([n, n], np.float64)) for n in (16, 160)]
    assert sizes[0] == sizes[1]
    spec = tj.TensorSpec
    solve = [op_count(forward_substitution, spec([n, n]), spec([n])) for n in (16, 160)]
    assert solve[0] == solve[1]


def test_one_trace_serves_every_size():
    f = tj.function(prefix_means, input_signature=[tj.TensorSpec([None], np.float64)])
    for n in (0, 1, 5, 40):
        x = np.linspace(-1, 1, n)
        assert_same(f(x), prefix_means(x), atol=1e-15)
    assert f.experimental_get_tracing_count() == 1


def test_slices_of_one_counter_meet_without_a_check_others_are_checked_at_run_time():
    @tj.function
    def paired(a, b, n):
        total = np.zeros(())
        for i in tj.range(n):
            total += np.sum(a[:i] * b[: i + 1])  # NumPy: shapes (i,) and (i + 1,)
        return total

    ones = np.ones(6)
    with pytest.raises(ValueError, match="could not be broadcast.*test_loop_counter_slices"):
        paired(ones, ones, np.int64(3))

    @tj.function
    def same_bounds(a, b, n):
        total = np.zeros(())
        for i in tj.range(n):
            total += np.sum(a[:i] * b[:i])  # different arrays, one length
        return total

    a, b = np.arange(5.0), np.arange(7.0)
    for n in (0, 4, 6):  # at n=6, a[:5] and b[:5]: NumPy clips both slices alike
        assert_same(same_bounds(a, b, np.int64(n)), run_eagerly(same_bounds, a, b, np.int64(n)))
    with pytest.raises(ValueError, match="could not be broadcast"):
        same_bounds(a, b, np.int64(7))  # a[:6] has 5 elements, b[:6] six


def test_a_window_meeting_a_static_size_keeps_that_size():
    @tj.function
    def windows(x, width):
        acc = np.zeros(3)
        for i in tj.range(x.shape[0] - 2):
            acc = acc + x[i : i + width]  # (3,) with (?,): checked 3 at run time, stays (3,)
        return acc

    x = np.arange(7.0)
    assert_same(windows(x, 3), run_eagerly(windows, x, 3))
    with pytest.raises(ValueError, match="could not be broadcast.*test_loop_counter_slices"):
        windows(x, 2)  # NumPy: shapes (3,) and (2,)


def floyd_warshall(D):
    for k in range(D.shape[0]):
        D = np.minimum(D, D[:, k : k + 1] + D[k : k + 1, :])
    return D


def rank_one_downdates(A):
    A = A.copy()
    for k in range(A.shape[1]):
        A[:, k + 1 :] -= A[:, k : k + 1] * A[k : k + 1, k + 1 :] / A[k, k]
    return A


SQUARE = tj.TensorSpec([None, None], np.float64)


@settings(max_examples=6, deadline=None)
@given(n=SIZES)
def test_a_one_element_window_at_the_counter_broadcasts_on_run_time_dims(n):
    """`D[:, k:k+1]` keeps one element: a dim of size 1 that broadcasts as NumPy's does, on
    dims unknown at trace time too (the kernel checks that the window fits)."""
    D = np.random.default_rng(n).uniform(0, 10, (n, n))
    for kernel, x in ((floyd_warshall, D), (rank_one_downdates, D + n * np.eye(n))):
        f = tj.function(kernel, input_signature=[SQUARE])
        with warnings.catch_warnings():
            warnings.simplefilter("error", tj.LoopUnrolledWarning)
            compiled = f(x)
        assert_same(compiled, run_eagerly(f, x), rtol=1e-12, atol=1e-12)


def test_a_one_element_window_reaching_outside_a_run_time_dim_fails_the_call():
    @tj.function(input_signature=[tj.TensorSpec([None], np.float64), tj.TensorSpec([], np.int64)])
    def row(x, i):
        return x[i : i + 1] * np.ones((2, 1))

    x = np.arange(5.0)
    assert_same(row(x, np.int64(4)), x[4:5] * np.ones((2, 1)))
    for outside in (5, -1):  # NumPy: an empty window (x[-1:0] too), shape (2, 0)
        with pytest.raises(IndexError, match="reaches outside axis 0 .*test_loop_counter_slices"):
            row(x, np.int64(outside))


def test_floyd_warshall_on_run_time_dims_with_the_defaults_users_get():
    D = np.random.default_rng(1).uniform(0, 10, (9, 9))
    make = functools.partial(tj.function, input_signature=[SQUARE])
    for answer in answers_with_user_defaults(floyd_warshall, D, make=make):
        assert_same(answer, floyd_warshall(D), rtol=0, atol=0)


# --- loops over dims unknown at trace time (one trace serves every size) -----------------------
def differences(x):
    total = 0.0
    for i in range(1, x.shape[0]):
        total += abs(x[i] - x[i - 1])
    return total


def weighted(x):
    total = 0.0
    for i in range(len(x)):
        total += x[i] * i
    return total


def row_sums(m):
    acc = np.zeros(m.shape[1])
    for row in m:
        acc += row
    return acc


def enumerated(x):
    total = 0.0
    for i, v in enumerate(x):
        total += i * v
    return total


def zipped(x, y):
    total = 0.0
    for a, b in zip(x, y, strict=False):  # as many as the shorter has
        total += a * b
    return total


VECTOR = tj.TensorSpec([None], np.float64)


@pytest.mark.parametrize(
    "kernel, specs",
    [
        (differences, [VECTOR]),
        (weighted, [VECTOR]),
        (enumerated, [VECTOR]),
        (row_sums, [tj.TensorSpec([None, 3], np.float64)]),
        (zipped, [VECTOR, VECTOR]),
    ],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_loops_over_run_time_dims_trace_once(kernel, specs):
    f = tj.function(kernel, input_signature=specs)
    rng = np.random.default_rng(0)
    for n in (0, 1, 2, 9, 30):
        args = [rng.standard_normal((n, 3) if spec.shape[1:] else n) for spec in specs]
        if kernel is zipped:
            args[1] = args[1][: max(n - 1, 0)]  # zip stops at the shorter
        with warnings.catch_warnings():
            warnings.simplefilter("error", tj.LoopUnrolledWarning)
            compiled = f(*args)
        assert_same(compiled, run_eagerly(f, *args), rtol=1e-9, atol=1e-12)
    assert f.experimental_get_tracing_count() == 1


def test_zip_strict_checks_the_lengths_at_run_time():
    @tj.function(input_signature=[VECTOR, VECTOR])
    def strict(x, y):
        total = 0.0
        for a, b in zip(x, y, strict=True):
            total += a - b
        return total

    assert_same(strict(np.ones(4), np.ones(4)), np.float64(0.0))
    with pytest.raises(ValueError, match="zip.. arguments have different lengths"):
        strict(np.ones(4), np.ones(5))


def csr_matvec(data, indices, indptr, x):
    n = indptr.shape[0] - 1
    y = np.empty(n)
    for i in range(n):
        y[i] = np.sum(data[indptr[i] : indptr[i + 1]] * x[indices[indptr[i] : indptr[i + 1]]])
    return y


def random_csr(rows, cols, seed):
    rng = np.random.default_rng(seed)
    dense = rng.standard_normal((rows, cols)) * (rng.random((rows, cols)) < 0.3)
    indptr = np.concatenate([[0], np.cumsum((dense != 0).sum(axis=1))]).astype(np.int64)
    indices = np.nonzero(dense)[1].astype(np.int64)
    return dense, (dense[dense != 0], indices, indptr)


@settings(max_examples=8, deadline=None)
@given(rows=SIZES, cols=st.sampled_from([1, 4, 11]), seed=st.integers(0, 99))
def test_csr_matvec_one_trace_for_every_matrix(rows, cols, seed):
    dense, csr = random_csr(rows, cols, seed)
    x = np.linspace(-1, 1, cols)
    np.testing.assert_allclose(staged_csr(csr_matvec, csr, x), dense @ x, atol=1e-12)


@functools.cache
def csr_function(kernel):
    """One tj.Function per kernel for every matrix of the tests: its one trace (None dims)
    must serve them all."""
    specs = [tj.TensorSpec([None], t) for t in (np.float64, np.int64, np.int64, np.float64)]
    return tj.function(kernel, input_signature=specs)


def staged_csr(kernel, csr, x):
    """`kernel(*csr, x)` compiled for every size (one trace, no unrolled loop), checked
    against eager NumPy."""
    f = csr_function(kernel)
    with warnings.catch_warnings():
        warnings.simplefilter("error", tj.LoopUnrolledWarning)
        compiled = f(*csr, x)
    assert_same(compiled, run_eagerly(f, *csr, x), rtol=1e-9, atol=1e-12)
    return compiled


def csr_transposed_matvec(data, indices, indptr, x):
    y = np.zeros(11)
    for i in range(indptr.shape[0] - 1):
        lo, hi = indptr[i], indptr[i + 1]
        y[indices[lo:hi]] += data[lo:hi] * x[i]  # a scatter of a run-time length
    return y


@settings(max_examples=8, deadline=None)
@given(rows=SIZES, seed=st.integers(0, 99))
def test_a_scatter_through_index_arrays_of_a_run_time_length(rows, seed):
    dense, csr = random_csr(rows, 11, seed)
    x = np.linspace(-1, 1, rows)
    compiled = staged_csr(csr_transposed_matvec, csr, x)
    np.testing.assert_allclose(compiled, dense.T @ x, atol=1e-12)


def put_window(idx, lo, hi):
    y = np.zeros(5)
    for _ in tj.range(2):
        y[idx[lo:hi]] = np.arange(3.0)
    return y


def test_a_scatter_of_a_run_time_length_checks_the_value_and_the_indices():
    f = tj.function(put_window)
    assert_same(f(np.arange(4), 1, 4), put_window(np.arange(4), 1, 4))
    with pytest.raises(ValueError, match=r"broadcast .*shape \(3,\).*\(2,\)"):
        f(np.arange(4), 0, 2)  # NumPy: "shape mismatch: value array of shape (3,) ..."
    with pytest.raises(IndexError, match="out of bounds"):
        f(np.array([0, 1, 9, 3]), 1, 4)


def test_a_size_computed_at_run_time_makes_an_array():
    @tj.function(input_signature=[VECTOR])
    def differences(x):
        n = x.shape[0] - 1
        out = np.zeros(n)
        for i in range(n):
            out[i] = x[i + 1] - x[i]
        return out

    for n in (1, 2, 10):
        x = np.arange(n, dtype=np.float64) ** 2
        assert_same(differences(x), np.diff(x))

    @tj.function
    def sized(n):
        return np.zeros(n - 1) + 1

    assert_same(sized(np.int64(4)), np.ones(3))
    with pytest.raises(ValueError, match="negative dimensions are not allowed"):
        sized(np.int64(0))
