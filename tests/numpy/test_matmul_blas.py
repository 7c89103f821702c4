"""Matrix products through SciPy's BLAS (passes/use_blas.py, passes/bufferize/blas.py),
compiled vs eager NumPy: every shape class BLAS takes (matrix @ vector both ways,
transposed operands read in place, slices, stacks with broadcast batch dims, a stack of
matrices times one matrix), empty dims, NaN and Inf, the four BLAS element types; integers
stay on our kernel; and our kernel answers where SciPy's BLAS cannot be called.

The shapes are just above use-blas's thresholds (64² for matrix @ vector, 32³ for a
product), so that BLAS computes them; each test compiles one function per dtype.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tracejit as tj
from tests.conftest import answers_with_user_defaults, run_eagerly
from tracejit.runtime import lapack

pytest.importorskip("scipy", reason="BLAS calls need SciPy (tracejit[linalg])")

FLOATS = [np.float32, np.float64, np.complex64, np.complex128]


@tj.function
def shape_classes(a, b, x, y, s):
    """a: 64x80, b: 80x96, x: 80, y: 64, s: 5x64x80 (names as the keys say)."""
    return {
        "A @ x": a @ x,
        "y @ A": y @ a,
        "A.T @ y": a.T @ y,
        "x @ A.T": x @ a.T,
        "A @ B": a @ b,
        "A.T @ A": a.T @ a,
        "A @ A.T": a @ a.T,
        "B.T @ A.T": b.T @ a.T,
        "A[::2, 1:] @ B[1:]": a[::2, 1:] @ b[1:],
        "S @ B": s @ b,
        "S @ S.swap": s @ np.swapaxes(s, 1, 2),
        "S[:1] @ S.swap": s[:1] @ np.swapaxes(s, 1, 2),
        "y @ S": y @ s,
    }


def _random(rng, shape, dtype):
    values = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        values = values + 1j * rng.standard_normal(shape)
    return values.astype(dtype)


def _operands(dtype, seed=0):
    rng = np.random.default_rng(seed)
    shapes = [(64, 80), (80, 96), (80,), (64,), (5, 64, 80)]
    return [_random(rng, shape, dtype) for shape in shapes]


def _assert_close(got: dict, want: dict, dtype) -> None:
    tolerance = 1e-4 if np.dtype(dtype).itemsize in (4, 8) and dtype != np.float64 else 1e-10
    for key, expected in want.items():
        assert got[key].dtype == expected.dtype, key
        assert got[key].shape == expected.shape, key
        np.testing.assert_allclose(got[key], expected, rtol=tolerance, atol=tolerance, err_msg=key)


def _calls_blas(function, *args) -> bool:
    return "tracejit_lapack_" in function.get_concrete_function(*args).llvm_ir


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
def test_every_shape_class_matches_numpy(dtype):
    args = _operands(dtype)
    _assert_close(shape_classes(*args), run_eagerly(shape_classes, *args), dtype)
    assert _calls_blas(shape_classes, *args)


@tj.function
def gram_matrices(a):
    """A matrix times its own transpose: one ?syrk and a mirrored triangle."""
    return {
        "A @ A.T": a @ a.T,
        "A.T @ A": a.T @ a,
        "cov": np.cov(a),
        "2A.T @ 2A": (2 * a).T @ (2 * a),
    }


@settings(max_examples=12, deadline=None)
@given(
    dtype=st.sampled_from(FLOATS),
    shape=st.tuples(st.sampled_from([0, 1, 2, 33, 70]), st.sampled_from([0, 1, 40, 65])),
    seed=st.integers(0, 2**16),
)
def test_gram_matrices_match_numpy_and_are_symmetric(dtype, shape, seed):
    a = _random(np.random.default_rng(seed), shape, dtype)
    with np.errstate(divide="ignore", invalid="ignore"):
        want = run_eagerly(gram_matrices, a)
        got = gram_matrices(a)
    # syrk's mirrored triangle (A @ A.T calls it above use-blas's size threshold only)
    large = shape[0] ** 2 * shape[1] >= 32**3
    for key in ("A @ A.T", "A.T @ A", "2A.T @ 2A")[not large :]:
        np.testing.assert_array_equal(got[key], got[key].T, err_msg=key)
    _assert_close(
        {k: np.nan_to_num(v) for k, v in got.items()},
        {k: np.nan_to_num(v) for k, v in want.items()},
        dtype,
    )


def test_gram_matrices_call_syrk():
    a = _random(np.random.default_rng(3), (64, 80), np.float64)
    bufferized = gram_matrices.get_concrete_function(a).ir(after="bufferize")
    assert bufferized.count("func.call @tracejit_lapack_dsyrk") == 4


@tj.function
def normal_product(a, x):
    return a.T @ (a @ x), x @ a.T @ a


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
@settings(max_examples=8, deadline=None)
@given(
    a=hnp.arrays(np.float64, (64, 64), elements=st.sampled_from([0.0, 1.5, -2.0, np.nan, np.inf])),
    x=hnp.arrays(np.float64, (64,), elements=st.sampled_from([0.0, 1.0, -3.0, np.inf])),
)
def test_nan_and_inf_propagate_as_in_numpy(a, x):
    got, want = normal_product(a, x), run_eagerly(normal_product, a, x)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-12)


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=lambda d: np.dtype(d).name)
def test_matrix_times_vector_is_blas_s_where_the_function_calls_blas_anyway(dtype):
    """`a @ x` alone is our kernel on our pool; beside `a.T @ v` (BLAS's), it is BLAS's too,
    so that OpenBLAS's threads, spinning after a call, do not take our worker's core."""
    rng = np.random.default_rng(5)
    a, x = _random(rng, (96, 80), dtype), _random(rng, (80,), dtype)
    alone = tj.function(lambda a, x: a @ x)
    bufferized = normal_product.get_concrete_function(a, x).ir(after="bufferize")
    assert bufferized.count("func.call @tracejit_lapack_") == 4  # both products, both results
    assert not _calls_blas(alone, a, x)
    for f in (normal_product, alone):
        got, want = np.asarray(f(a, x)), np.asarray(run_eagerly(f, a, x))
        _assert_close({"products": got}, {"products": want}, dtype)
    want = np.asarray(normal_product.python_function(a, x))
    for got in answers_with_user_defaults(normal_product.python_function, a, x):  # threads too
        _assert_close({"products": np.asarray(got)}, {"products": want}, dtype)


@tj.function
def empty_products(a, b, k0, k0b, v):
    return {"m=0": a @ b, "k=0": k0 @ k0b, "k=0 gemv": k0 @ v, "n=0": b.T @ a.T}


def test_empty_dims_give_numpys_shapes_and_zeros():
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((0, 64)), rng.standard_normal((64, 96))
    k0, k0b, v = np.ones((64, 0)), np.ones((0, 64)), np.ones(0)
    got, want = empty_products(a, b, k0, k0b, v), run_eagerly(empty_products, a, b, k0, k0b, v)
    for key, expected in want.items():
        assert got[key].shape == expected.shape, key
        np.testing.assert_array_equal(got[key], expected, err_msg=key)


@tj.function
def product(a, b):
    return a @ b


def test_integers_stay_on_our_kernel_and_are_exact():
    rng = np.random.default_rng(2)
    a, b = rng.integers(-100, 100, (64, 64)), rng.integers(-100, 100, (64, 64))
    np.testing.assert_array_equal(product(a, b), a @ b)
    assert not _calls_blas(product, a, b)


def test_our_kernel_answers_when_the_blas_table_is_null(monkeypatch):
    """A kernel compiled with BLAS calls, loaded where SciPy is missing (an exported or
    cached module): the calls report BLAS_MISSING and our kernel runs."""
    from tracejit.runtime import lapack

    monkeypatch.setattr(lapack, "_table", lambda: None)
    function = tj.function(lambda a, x: (a.T @ x, a @ a))
    a, x = _operands(np.float32)[0][:, :64], _operands(np.float32)[3]
    got, want = function(a, x), run_eagerly(function, a, x)
    assert _calls_blas(function, a, x)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-4)


def test_without_a_blas_the_driver_turns_use_blas_off(monkeypatch):
    from tracejit.compiler.driver import with_host_facts
    from tracejit.runtime import lapack

    assert "use-blas," in with_host_facts("default")
    monkeypatch.setattr(lapack, "available", lambda: False)  # NumPy's own BLAS is enough
    assert "use-blas," in with_host_facts("default")
    monkeypatch.setattr(lapack, "blas_available", lambda: False)
    assert "use-blas{enabled=false}" in with_host_facts("default")


numpy_blas = pytest.mark.skipif(
    lapack._numpy_blas() is None,
    reason="this NumPy bundles no OpenBLAS of its own (not a PyPI wheel)",
)


@numpy_blas
def test_blas_comes_from_numpy_s_own_openblas_without_scipy(monkeypatch):
    """NumPy's wheels bundle OpenBLAS (64-bit integers): BLAS calls use it first, with SciPy
    or without (SciPy's 32-bit BLAS reads the same integer slots: the next test)."""
    numpy_gemm = lapack.addresses(scipy=False, numpy_blas=True)
    assert numpy_gemm is not None
    assert lapack.routine_address("dgemm") == numpy_gemm[lapack.ROUTINES.index("dgemm")]
    monkeypatch.setattr(lapack, "_table", lambda: numpy_gemm)
    function = tj.function(lambda a, x: (a.T @ x, a @ a, x @ x.T))
    for dtype in FLOATS:
        a, x = _operands(dtype)[0][:, :64], _operands(dtype)[3]
        got, want = function(a, x), run_eagerly(function, a, x)
        assert _calls_blas(function, a, x)
        for g, w in zip(got, want, strict=True):
            np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-4)


@pytest.mark.skipif(
    not lapack.available(),
    reason="needs SciPy (pip install tracejit[linalg]) for SciPy's 32-bit BLAS",
)
def test_scipy_s_32_bit_blas_reads_the_same_calls(monkeypatch):
    monkeypatch.setattr(lapack, "_table", lambda: lapack.addresses(scipy=True, numpy_blas=False))
    function = tj.function(lambda a, x: (a.T @ x, a @ a, x @ x.T))
    for dtype in FLOATS:
        a, x = _operands(dtype)[0][:, :64], _operands(dtype)[3]
        got, want = function(a, x), run_eagerly(function, a, x)
        for g, w in zip(got, want, strict=True):
            np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-4)


def _name(dtype) -> str:
    return np.dtype(dtype).name


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex128], ids=_name)
@pytest.mark.parametrize("shape", [(3, 40, 32), (2, 300, 16), (2, 3, 24, 16)], ids=str)
def test_a_stack_times_one_matrix_per_matrix_or_tall(dtype, shape):
    """Real matrices of few rows: a call per matrix; of many rows, or complex: one tall call
    (bufferize/blas.py's TALL_MIN_ROWS). Both equal NumPy's product."""
    rng = np.random.default_rng(3)
    a = (rng.standard_normal(shape) + 0.5).astype(dtype)
    b = rng.standard_normal((shape[-1], 24)).astype(dtype)  # not narrow (use_blas.py)
    function = tj.function(lambda a, b: a @ b)
    got, want = function(a, b), run_eagerly(function, a, b)
    assert _calls_blas(function, a, b)
    _assert_close({"product": got}, {"product": want}, dtype)
