"""Slices BLAS reads in place (passes/bufferize/blas_windows.py), compiled vs eager NumPy:
a 2-D slice with unit column step as either operand of a product BLAS computes is read
from its array's buffer at the slice's first element, with the array's row pitch as
leading dim, instead of being copied. The slices here start, stop and step anywhere
(run-time starts from loop counters too), hold NaN and Inf (and values outside the
window that must not leak in), are empty, and are read again after their array is
written; our kernel answers on the copy made when no BLAS can be called.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tracejit as tj
from tests.conftest import run_eagerly
from tests.examples.test_polybench_loops import covariance  # data[:, i:M] @ in its loop
from tracejit.runtime import lapack

pytest.importorskip("scipy", reason="BLAS calls need SciPy (tracejit[linalg])")

MATRIX = tj.TensorSpec([None, None], tj.float64)
VECTOR = tj.TensorSpec([None], tj.float64)
INDEX = tj.TensorSpec([], tj.int64)


def _products_of_windows(step: int) -> tj.Function:
    """Every product with the window `w` of `a` as an operand (dims unknown: all BLAS's;
    the `b[:n]` operands are windows too)."""

    def windows(a, x, y, b, r0, r1, c0, c1):
        w = a[r0:r1:step, c0:c1]
        rows, columns = w.shape
        return {
            "w @ x": w @ x[:columns],
            "y @ w": y[:rows] @ w,
            "w @ b": w @ b[:columns],
            "b.T @ w": b[:rows].T @ w,
            "w.T @ y": w.T @ y[:rows],
            "x @ w.T": x[:columns] @ w.T,
            "w.T @ b": w.T @ b[:rows],
            "b.T @ w.T": b[:columns].T @ w.T,
        }

    signature = [MATRIX, VECTOR, VECTOR, MATRIX, INDEX, INDEX, INDEX, INDEX]
    return tj.function(windows, input_signature=signature)


WINDOWS = {step: _products_of_windows(step) for step in (1, 2, 3)}


def _window_case(rng, dtype, shape, bounds):
    """(function, its arguments) for the window a[r0:r1:step, c0:c1], bounds in that order."""
    a = rng.standard_normal(shape).astype(dtype)
    x = rng.standard_normal(shape[1]).astype(dtype)
    y = rng.standard_normal(shape[0]).astype(dtype)
    b = rng.standard_normal((max(shape), 3)).astype(dtype)
    *starts, step = bounds
    return WINDOWS[step], (a, x, y, b, *(np.int64(v) for v in starts))


def _assert_matches_numpy(function, args, tolerance=1e-10):
    got, want = function(*args), run_eagerly(function, *args)
    for key, expected in want.items():
        assert got[key].shape == expected.shape, key
        np.testing.assert_allclose(got[key], expected, rtol=tolerance, atol=tolerance, err_msg=key)


@settings(max_examples=25, deadline=None)
@given(
    shape=st.tuples(st.integers(0, 70), st.integers(0, 70)),
    bounds=st.tuples(
        st.integers(-80, 80),
        st.integers(-80, 80),
        st.integers(-80, 80),
        st.integers(-80, 80),
        st.integers(1, 3),
    ),
    seed=st.integers(0, 2**16),
)
def test_windows_anywhere_in_the_matrix_match_numpy(shape, bounds, seed):
    _assert_matches_numpy(*_window_case(np.random.default_rng(seed), np.float64, shape, bounds))


def test_the_window_is_read_in_place():
    """No copy of the window: every call with `w` or `w.T` as an operand reads `a`'s buffer
    (%0), `w.T` with BLAS's "T" (fuse-elementwise leaves a view only matmuls read alone, where
    it made `w.T`, a slice and a transpose, a copying kernel)."""
    bufferized = WINDOWS[2].get_concrete_function().ir(after="bufferize")
    body = bufferized.split("func.func @windows")[-1]
    calls = [line for line in body.splitlines() if "func.call @tracejit_lapack_" in line]
    in_place = [call for call in calls if "%0" in call.split("(", 1)[1].split(")")[0].split(", ")]
    assert (len(calls), len(in_place)) == (8, 8)


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
@settings(max_examples=10, deadline=None)
@given(
    values=st.lists(st.sampled_from([0.0, 1.5, -2.0, np.nan, np.inf, -np.inf]), min_size=1),
    seed=st.integers(0, 2**16),
)
def test_nan_and_inf_inside_and_outside_the_window(values, seed):
    """A NaN beside the window (outside its columns or between its stepped rows) must not
    reach the result; one inside it propagates as in NumPy."""
    rng = np.random.default_rng(seed)
    function, args = _window_case(rng, np.float64, (66, 70), (3, 60, 5, 65, 2))
    a = rng.choice(np.array(values), (66, 70))
    _assert_matches_numpy(function, (a, *args[1:]), tolerance=1e-12)


def test_empty_windows_give_numpys_shapes_and_zeros():
    rng = np.random.default_rng(3)
    for bounds in [(5, 5, 0, 70, 1), (0, 70, 9, 9, 1), (70, 0, 0, 70, 1), (0, 0, 0, 0, 1)]:
        function, args = _window_case(rng, np.float64, (70, 70), bounds)
        got, want = function(*args), run_eagerly(function, *args)
        for key, expected in want.items():
            assert got[key].shape == expected.shape, (bounds, key)
            np.testing.assert_array_equal(got[key], expected, err_msg=f"{bounds} {key}")


def gram_schmidt(A):
    """NPBench's gramschmidt: `Q[:, k] @ A[:, k + 1:]` on the array the loop writes."""
    Q = np.zeros_like(A)
    R = np.zeros((A.shape[1], A.shape[1]), dtype=A.dtype)
    for k in range(A.shape[1]):
        nrm = np.dot(A[:, k], A[:, k])
        R[k, k] = np.sqrt(nrm)
        Q[:, k] = A[:, k] / R[k, k]
        for j in range(k + 1, A.shape[1]):
            R[k, j] = np.dot(Q[:, k], A[:, j])
            A[:, j] -= Q[:, k] * R[k, j]
    return Q, R


def windowed_updates(A, x, n):
    """The window's array is written after each product and read through it again."""
    y = x[1:] @ A[1:, 2:]
    for _ in range(n):
        w = A[1:, 2:]
        A += 1.0
        y = y + x[1:] @ w
        A[0, 0] = 7.0
    return y, A


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_covariance_loop_matches_numpy(dtype):
    data = np.random.default_rng(4).random((90, 80)).astype(dtype)
    function = tj.function(covariance)
    got_data, want_data = data.copy(), data.copy()
    got = function(80, 90.0, got_data)
    want = covariance(80, 90.0, want_data)
    tolerance = 1e-4 if dtype == np.float32 else 1e-10
    np.testing.assert_allclose(got, want, rtol=tolerance, atol=tolerance)
    np.testing.assert_allclose(got_data, want_data, rtol=tolerance, atol=tolerance)


def test_gram_schmidt_matches_numpy():
    A = np.random.default_rng(5).random((90, 70)) + np.eye(90, 70)
    function = tj.function(gram_schmidt)
    got, want = function(A.copy()), gram_schmidt(A.copy())
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-8, atol=1e-8)


def rebound_in_the_loop(A0, x, n):
    """The loop rebinds `A` to new arrays: the window keeps the array from before it."""
    A = A0 * 2.0
    w = A[1:, 2:]
    y = x[1:] @ w
    for _ in range(n):
        A = A + 1.0
        y = y + x[1:] @ w
    return y, A


def window_of_the_new_array(A0, x, n):
    A = A0 * 2.0
    w = A[1:, 2:]
    y = x[1:] @ w
    for _ in range(n):
        A = A * 1.5
        y = y + x[1:] @ w
        w = A[1:, 2:]
    return y, A


def written_through_the_window(A0, x, n):
    A = A0 * 2.0
    for _ in range(n):
        y = x[1:] @ A[1:, 2:]
        A[1:, 2:] = A[1:, 2:] + y  # after the product, into the window it read
    return (A,)


def another_name_written(A0, x, n):
    A = A0 * 2.0
    w = A[1:, 2:]
    B = A
    A = A - 3.0  # rebinds A: w and B keep the old array
    y = x[1:] @ w
    B += 1.0  # in place on the old array, which w views
    return y + x[1:] @ w, A, B


@pytest.mark.parametrize(
    "program",
    [windowed_updates, rebound_in_the_loop, window_of_the_new_array,
     written_through_the_window, another_name_written],
)  # fmt: skip
@pytest.mark.parametrize("shape", [(70, 70), (100, 80)])
def test_a_window_of_an_array_written_or_rebound(program, shape):
    """The window's array is written in place, through the window or another name, or
    rebound, around the products that read it: each product sees what NumPy's view does."""
    rng = np.random.default_rng(6)
    A, x = rng.random(shape), rng.random(shape[0])
    function = tj.function(program)
    got, want = function(A.copy(), x, np.int64(3)), program(A.copy(), x, 3)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-12)


def test_our_kernel_reads_the_window_when_the_blas_table_is_null(monkeypatch):
    """Loaded where no BLAS can be called, the calls report BLAS_MISSING and our kernel
    runs: a loop nest reading each window where it lies."""
    monkeypatch.setattr(lapack, "_table", lambda: None)
    function, args = _window_case(np.random.default_rng(7), np.float64, (70, 66), (2, 69, 3, 60, 3))
    fresh = tj.function(function.python_function, input_signature=function.input_signature)
    _assert_matches_numpy(fresh, args)
    data = np.random.default_rng(8).random((90, 80)).astype(np.float32)
    got = tj.function(covariance)(80, 90.0, data.copy())
    np.testing.assert_allclose(got, covariance(80, 90.0, data.copy()), rtol=1e-4, atol=1e-4)


@tj.function
def complex_windows(a, x, b):
    return {"x @ w": x[1:] @ a[1:, 2:], "w @ b": a[::2, :-1] @ b[1:], "w @ v": a[:, 1:] @ x[1:],
            "w.T @ b": a[1:71, ::1].T @ b[:70]}  # fmt: skip


@pytest.mark.parametrize("blas", [True, False])
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_windows(monkeypatch, dtype, blas):
    if not blas:
        monkeypatch.setattr(lapack, "_table", lambda: None)
    rng = np.random.default_rng(9)

    def r(*shape):
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)

    args = (r(80, 80), r(80), r(80, 70))
    function = tj.function(complex_windows.python_function)
    _assert_matches_numpy(function, args, tolerance=1e-3 if dtype == np.complex64 else 1e-10)
