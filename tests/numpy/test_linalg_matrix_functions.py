"""`np.linalg.pinv`, `matrix_rank`, `cond`, `matrix_power` and `multi_dot`: composed from the
LAPACK-backed functions and matrix products as NumPy composes them, compared with NumPy
and with the same function run eagerly."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tracejit as tj
from tests.conftest import assert_same, run_eagerly

pytestmark = pytest.mark.filterwarnings("ignore::tracejit.RetracingWarning")  # new shapes

DTYPES = [np.float32, np.float64, np.complex64, np.complex128]
batches = st.sampled_from([(), (1,), (3,), (2, 2)])

def _lapack():
    pytest.importorskip("scipy", reason="np.linalg's LAPACK functions need SciPy (linalg extra)")


def single(dtype) -> bool:
    return np.dtype(dtype) in (np.float32, np.complex64)


def random_array(rng, shape, dtype):
    x = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


@tj.function
def pinv(a):
    return np.linalg.pinv(a)


@settings(max_examples=18, deadline=None)
@given(dtype=st.sampled_from(DTYPES), batch=batches, m=st.integers(0, 5), n=st.integers(0, 5),
       seed=st.integers(0, 2**16))  # fmt: skip
def test_pinv_matches_numpy(dtype, batch, m, n, seed):
    _lapack()
    rng = np.random.default_rng(seed)
    a = random_array(rng, (*batch, m, n), dtype)
    got, expected = pinv(a), np.linalg.pinv(a)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    scale = float(np.max(np.abs(expected), initial=1.0))
    np.testing.assert_allclose(got, expected, atol=(1e-3 if single(dtype) else 1e-10) * scale)


def test_pinv_of_hermitian_matrices_and_rtol():
    _lapack()
    m = np.random.default_rng(2).standard_normal((3, 4, 4))
    h = m + np.swapaxes(m, -1, -2)

    @tj.function
    def inverses(a):
        hermitian = np.linalg.pinv(a, hermitian=True)
        return hermitian, np.linalg.pinv(a, rtol=None), np.linalg.pinv(a, 0.1)

    expected = (np.linalg.pinv(h, hermitian=True), np.linalg.pinv(h, rtol=None),
                np.linalg.pinv(h, 0.1))  # fmt: skip
    assert_same(inverses(h), expected, rtol=1e-8, atol=1e-10)


@tj.function
def ranks(a):
    return np.linalg.matrix_rank(a), np.linalg.matrix_rank(a, tol=0.5)


@settings(max_examples=18, deadline=None)
@given(dtype=st.sampled_from(DTYPES), batch=batches, m=st.integers(0, 5), n=st.integers(0, 5),
       rank=st.integers(0, 5), seed=st.integers(0, 2**16))  # fmt: skip
def test_matrix_rank_matches_numpy(dtype, batch, m, n, rank, seed):
    _lapack()
    rng = np.random.default_rng(seed)
    left = random_array(rng, (*batch, m, rank), dtype)
    a = (left @ random_array(rng, (*batch, rank, n), dtype)).astype(dtype)  # rank <= rank
    got, expected = ranks(a), (np.linalg.matrix_rank(a), np.linalg.matrix_rank(a, tol=0.5))
    assert_same(got, tuple(np.asarray(e) if np.ndim(e) else e for e in expected))


def test_matrix_rank_of_vectors_and_hermitian():
    @tj.function
    def of_vector(v):
        return np.linalg.matrix_rank(v)

    assert of_vector(np.zeros(3)) == 0 and of_vector(np.array([0.0, 2.0])) == 1
    _lapack()

    @tj.function
    def hermitian_rank(a):
        return np.linalg.matrix_rank(a, hermitian=True)

    v = np.random.default_rng(1).standard_normal((4, 2))
    assert hermitian_rank(v @ v.T) == np.linalg.matrix_rank(v @ v.T, hermitian=True) == 2


ORDERS = [None, 2, -2, 1, -1, np.inf, -np.inf, "fro", "nuc"]


@settings(max_examples=18, deadline=None)
@given(dtype=st.sampled_from(DTYPES), batch=batches, n=st.integers(1, 5), p=st.sampled_from(ORDERS),
       seed=st.integers(0, 2**16))  # fmt: skip
def test_cond_matches_numpy(dtype, batch, n, p, seed):
    _lapack()
    rng = np.random.default_rng(seed)
    a = (random_array(rng, (*batch, n, n), dtype) + 3 * np.eye(n)).astype(dtype)

    @tj.function
    def cond(a):
        return np.linalg.cond(a, p)

    got, expected = cond(a), np.linalg.cond(a, p)
    assert_same(got, expected, rtol=2e-3 if single(dtype) else 1e-8)


def test_cond_of_singular_and_rectangular_matrices_as_numpy():
    _lapack()
    stack = np.stack([np.ones((3, 3)), np.zeros((3, 3)), np.eye(3)])
    for p in (None, 1, "fro", np.inf, -2):

        @tj.function
        def cond(a, p=p):
            return np.linalg.cond(a, p)

        with np.errstate(all="ignore"):
            assert_same(cond(stack), np.linalg.cond(stack, p), rtol=1e-8)
    rectangular = np.random.default_rng(2).standard_normal((4, 2))
    condition = tj.function(np.linalg.cond)
    assert_same(condition(rectangular), np.linalg.cond(rectangular), rtol=1e-10)
    with pytest.raises(np.linalg.LinAlgError, match="cond is not defined on empty arrays"):
        condition(np.zeros((0, 0)))


@pytest.mark.parametrize("power", [0, 1, 2, 3, 4, 5, 13, -1, -3])
@pytest.mark.parametrize("dtype", [np.float64, np.complex64, np.int64])
def test_matrix_power_matches_numpy(power, dtype):
    if power < 0:
        _lapack()
        if np.dtype(dtype).kind == "i":
            return  # NumPy's inv of integers is float64; the power of ints stays exact
    rng = np.random.default_rng(abs(power))
    a = (rng.integers(-2, 3, (2, 3, 3)) + 4 * np.eye(3)).astype(dtype) / (1 if power >= 0 else 4)
    if np.dtype(dtype).kind == "i":
        a = a.astype(dtype)

    @tj.function
    def f(a):
        return np.linalg.matrix_power(a, power)

    expected = np.linalg.matrix_power(a, power)
    got = f(a)
    assert got.dtype == expected.dtype
    assert_same(got, expected, rtol=1e-5 if single(dtype) else 1e-12)
    assert_same(got, run_eagerly(f, a), rtol=1e-5 if single(dtype) else 1e-12)


def test_matrix_power_refusals_as_numpy():
    @tj.function
    def f(a, n):
        return np.linalg.matrix_power(a, n)

    with pytest.raises(np.linalg.LinAlgError, match="must be square"):
        f(np.ones((2, 3)), 2)
    with pytest.raises(TypeError, match="exponent must be an integer"):
        f(np.eye(2), 1.5)


SHAPES = [
    [(10, 100), (100, 5), (5, 50)],
    [(3,), (3, 4), (4, 5), (5,)],
    [(3,), (3, 4), (4, 2)],
    [(2, 3), (3, 4), (4, 5), (5, 6), (6, 2)],
    [(30, 2), (2, 40), (40, 3), (3, 1)],
]


@pytest.mark.parametrize("shapes", SHAPES, ids=str)
def test_multi_dot_matches_numpy_and_its_order(shapes):
    rng = np.random.default_rng(len(shapes))
    arrays = [rng.standard_normal(s) for s in shapes]

    @tj.function
    def chain(arrays):
        return np.linalg.multi_dot(arrays)

    assert_same(chain(arrays), np.linalg.multi_dot(arrays), rtol=1e-12)
    if len(shapes) > 3 and all(len(s) == 2 for s in shapes):
        # the products follow NumPy's optimal order: the same matmul shapes in the IR
        from numpy.linalg._linalg import _multi_dot_matrix_chain_order

        order = _multi_dot_matrix_chain_order(arrays)
        expected_shapes = []

        def walk(i, j):
            if i == j:
                return shapes[i]
            k = order[i, j]
            left, right = walk(i, k), walk(k + 1, j)
            expected_shapes.append((left[0], right[1]))
            return (left[0], right[1])

        walk(0, len(arrays) - 1)
        text = str(chain.get_concrete_function(arrays).graph)
        found = [line.split("-> tensor<")[1].split("xf64")[0] for line in text.splitlines()
                 if "tj.matmul" in line]  # fmt: skip
        assert found == [f"{r}x{c}" for r, c in expected_shapes]


def test_multi_dot_refusals_as_numpy():
    @tj.function
    def chain(arrays):
        return np.linalg.multi_dot(arrays)

    with pytest.raises(np.linalg.LinAlgError, match="3-dimensional array given"):
        chain([np.ones((2, 2)), np.ones((2, 2, 2)), np.ones((2, 2))])


NORM_CALLS = [
    lambda x: np.linalg.matrix_norm(x),
    lambda x: np.linalg.matrix_norm(x, ord=np.inf, keepdims=True),
    lambda x: np.linalg.vector_norm(x),
    lambda x: np.linalg.vector_norm(x, keepdims=True, ord=1),
    lambda x: np.linalg.vector_norm(x, axis=(0, 2), ord=np.inf),
    lambda x: np.linalg.vector_norm(x, axis=(-1, 0), keepdims=True, ord=3),
    lambda x: np.linalg.vector_norm(x, axis=1, keepdims=True),
]


@pytest.mark.parametrize("call", range(len(NORM_CALLS)))
def test_numpy2_norm_functions(call):
    x = np.random.default_rng(call).standard_normal((2, 3, 4))
    f = tj.function(NORM_CALLS[call])
    assert_same(f(x), NORM_CALLS[call](x), rtol=1e-12)


def test_svdvals_and_spectral_matrix_norms():
    _lapack()
    x = np.random.default_rng(3).standard_normal((2, 3, 4))

    @tj.function
    def spectral(x):
        return (np.linalg.svdvals(x), np.linalg.matrix_norm(x, ord=2),
                np.linalg.matrix_norm(x, ord="nuc", keepdims=True))  # fmt: skip

    expected = (np.linalg.svdvals(x), np.linalg.matrix_norm(x, ord=2),
                np.linalg.matrix_norm(x, ord="nuc", keepdims=True))  # fmt: skip
    assert_same(spectral(x), expected, rtol=1e-12)


REFUSED_WITHOUT_SCIPY = [
    lambda a: np.linalg.eigh(a),
    lambda a: np.linalg.eigvalsh(a),
    lambda a: np.linalg.svd(a),
    lambda a: np.linalg.qr(a),
    lambda a: np.linalg.lstsq(a, np.ones(2)),
    lambda a: np.linalg.pinv(a),
    lambda a: np.linalg.matrix_rank(a),
    lambda a: np.linalg.cond(a),
    lambda a: np.linalg.norm(a, 2),
    lambda a: np.linalg.matrix_power(a, -1),
]


@pytest.mark.parametrize("call", range(len(REFUSED_WITHOUT_SCIPY)))
def test_without_scipy_lapack_functions_are_refused_with_what_to_do(monkeypatch, call):
    from tracejit.runtime import lapack

    monkeypatch.setattr(lapack, "available", lambda: False)
    f = tj.function(REFUSED_WITHOUT_SCIPY[call])
    with pytest.raises(TypeError, match=r"pip install tracejit\[linalg\].*tj.py_function"):
        f(np.eye(2))


def test_what_needs_no_lapack_works_without_scipy(monkeypatch):
    from tracejit.runtime import lapack

    monkeypatch.setattr(lapack, "available", lambda: False)

    @tj.function
    def products(a):
        return np.linalg.matrix_power(a, 3), np.linalg.multi_dot([a, a, a]), np.linalg.norm(a)

    a = np.arange(4.0).reshape(2, 2)
    assert_same(products(a), (a @ a @ a, a @ a @ a, np.linalg.norm(a)), rtol=1e-12)


def test_lstsq_pinv_and_rank_of_matrices_of_unknown_size_say_what_to_do():
    """Their results depend on m and n at trace time (residuals, thresholds, the empty
    cases): refused, naming the function and the two ways out."""
    _lapack()
    signature = [tj.TensorSpec([None, 3], np.float64)]

    def least_squares(a):
        return np.linalg.lstsq(a, a)[0]

    calls = {
        "lstsq": least_squares,
        "pinv": np.linalg.pinv,
        "matrix_rank": np.linalg.matrix_rank,
        "cond": np.linalg.cond,
    }
    for name, call in calls.items():
        f = tj.function(call, input_signature=signature)
        with pytest.raises(TypeError, match=rf"np\.linalg\.{name} needs the last two dims"):
            f(np.ones((4, 3)))
        with pytest.raises(TypeError, match=r"give them in the input_signature.*without an"):
            f(np.ones((4, 3)))
        np.testing.assert_allclose(tj.function(call)(np.eye(4, 3)), call(np.eye(4, 3)))


def test_svd_qr_and_norms_of_matrices_of_unknown_size():
    """LAPACK takes m and n at run time; min(m, n) is a dim only the kernel knows. One trace
    serves every shape, empty ones included (NumPy's 2-norm of an empty matrix is 0)."""
    _lapack()
    signature = [tj.TensorSpec([None, None], np.float64)]

    @tj.function(input_signature=signature)
    def decompose(a):
        u, s, vh = np.linalg.svd(a, full_matrices=False)
        q, r = np.linalg.qr(a)
        return u, s, vh, q, r, np.linalg.svd(a)[0], np.linalg.qr(a, mode="complete")[0]

    @tj.function(input_signature=signature)
    def norms(a):
        return np.linalg.norm(a, 2), np.linalg.norm(a, "nuc"), np.linalg.svd(a, compute_uv=False)

    rng = np.random.default_rng(7)
    for shape in ((4, 3), (3, 5), (0, 3), (2, 0), (1, 1)):
        a = rng.standard_normal(shape)
        u, s, vh, q, r, u_complete, q_complete = decompose(a)
        want_u, want_s, want_vh = np.linalg.svd(a, full_matrices=False)
        assert (u.shape, s.shape, vh.shape) == (want_u.shape, want_s.shape, want_vh.shape)
        assert u_complete.shape == (shape[0], shape[0]) == q_complete.shape
        assert (q.shape, r.shape) == tuple(x.shape for x in np.linalg.qr(a))
        np.testing.assert_allclose(s, want_s, atol=1e-12)
        np.testing.assert_allclose((u * s) @ vh, a, atol=1e-12)
        np.testing.assert_allclose(q @ r, a, atol=1e-12)
        want = (np.linalg.norm(a, 2), np.linalg.norm(a, "nuc"), want_s)
        assert_same(norms(a), want, rtol=1e-12, atol=1e-12)
    assert decompose.experimental_get_tracing_count() == 1


@pytest.mark.parametrize("order", [2, "nuc", 1, np.inf, None, "fro", -2, -1])
def test_norms_of_empty_matrices_are_numpys(order):
    """NumPy 2 takes the max with initial=0 (2, 1, inf): 0 for an empty matrix; -2 and -1
    take a plain min, and raise."""
    if order in (2, "nuc", -2):
        _lapack()

    def norm(a):
        return np.linalg.norm(a, order, axis=(-2, -1))

    for a in (np.zeros((0, 3)), np.zeros((2, 0)), np.zeros((2, 0, 3))):
        try:
            want = norm(a)
        except ValueError:
            with pytest.raises(ValueError, match="zero-size array"):
                tj.function(norm)(a)
            continue
        assert_same(tj.function(norm)(a), want)
