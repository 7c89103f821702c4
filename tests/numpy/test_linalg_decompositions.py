"""`np.linalg.eigh`/`eigvalsh`, `svd`, `qr` and `lstsq`: compiled code calling SciPy's LAPACK
(?syevd/?heevd, ?gesdd, ?geqrf + ?orgqr/?ungqr, ?gelsd), compared with NumPy and with the
same function run eagerly.

Eigenvectors and singular vectors are unique only up to a sign (a unit phase for complex
ones), and Q and R of a QR up to the signs of R's rows: the tests compare the values, the
reconstructions (`v diag(w) v^H = a`, `u diag(s) vh = a`, `q r = a`) and orthonormality,
never raw vectors. float32 is computed in float32 (NumPy computes in double), so its
tolerances scale with the matrix's norm.
"""

import inspect

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tracejit as tj
from tests.conftest import assert_same, run_eagerly

pytest.importorskip("scipy", reason="np.linalg's LAPACK functions need SciPy (tracejit[linalg])")

pytestmark = pytest.mark.filterwarnings("ignore::tracejit.RetracingWarning")  # new shapes

DTYPES = [np.float32, np.float64, np.complex64, np.complex128]
batches = st.sampled_from([(), (1,), (3,), (2, 2)])
sides = st.integers(0, 6)


def tolerance(dtype, scale: float = 1.0) -> float:
    single = np.dtype(dtype) in (np.float32, np.complex64)
    return (3e-5 if single else 1e-11) * max(scale, 1.0)


def random_array(rng, shape, dtype):
    x = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def hermitian(rng, shape, dtype):
    m = random_array(rng, shape, dtype)
    return ((m + np.conj(np.swapaxes(m, -1, -2))) / 2).astype(dtype)


def conj_t(x):
    return np.conj(np.swapaxes(x, -1, -2))


def assert_orthonormal_columns(q, atol):
    k = q.shape[-1]
    np.testing.assert_allclose(conj_t(q) @ q, np.broadcast_to(np.eye(k), q.shape[:-2] + (k, k)),
                               atol=atol)  # fmt: skip


@tj.function
def eigh(a):
    return np.linalg.eigh(a), np.linalg.eigvalsh(a)


@tj.function
def eigh_upper(a):
    return np.linalg.eigh(a, UPLO="U"), np.linalg.eigvalsh(a, UPLO="U")


@settings(max_examples=18, deadline=None)
@given(dtype=st.sampled_from(DTYPES), batch=batches, n=sides, upper=st.booleans(),
       seed=st.integers(0, 2**16))  # fmt: skip
def test_eigh_matches_numpy(dtype, batch, n, upper, seed):
    rng = np.random.default_rng(seed)
    h = hermitian(rng, (*batch, n, n), dtype)
    uplo = "U" if upper else "L"
    # what the other triangle holds must not matter, as in NumPy
    noise = random_array(rng, h.shape, dtype)
    garbage = np.tril(noise, -1) if upper else np.triu(noise, 1)
    a = ((np.triu(h) if upper else np.tril(h)) + garbage).astype(dtype)
    (w, v), values = (eigh_upper if upper else eigh)(a)
    expected = np.linalg.eigvalsh(a, UPLO=uplo)
    atol = tolerance(dtype, float(np.max(np.abs(expected), initial=1.0)) * n)
    assert w.dtype == values.dtype == expected.dtype and v.dtype == a.dtype
    assert w.shape == expected.shape and v.shape == a.shape
    np.testing.assert_allclose(w, expected, atol=atol)
    np.testing.assert_allclose(values, expected, atol=atol)
    assert_orthonormal_columns(v, atol)
    np.testing.assert_allclose(v @ (w[..., None] * conj_t(v)), h, atol=atol)


@tj.function
def svd_all(a):
    reduced = np.linalg.svd(a, full_matrices=False)
    return np.linalg.svd(a), reduced, np.linalg.svd(a, compute_uv=False)


@settings(max_examples=24, deadline=None)
@given(dtype=st.sampled_from(DTYPES), batch=batches, m=sides, n=sides, seed=st.integers(0, 2**16))
def test_svd_matches_numpy(dtype, batch, m, n, seed):
    rng = np.random.default_rng(seed)
    a = random_array(rng, (*batch, m, n), dtype)
    complete, reduced, values = svd_all(a)
    expected = np.linalg.svd(a, compute_uv=False)
    atol = tolerance(dtype, float(np.max(expected, initial=1.0)) * max(m, n))
    np.testing.assert_allclose(values, expected, atol=atol)
    assert values.dtype == expected.dtype
    for (u, s, vh), full in ((complete, True), (reduced, False)):
        reference = np.linalg.svd(a, full_matrices=full)
        assert type((u, s, vh)) is tuple and type(complete) is type(reference)
        assert (u.shape, s.shape, vh.shape) == tuple(x.shape for x in reference)
        assert (u.dtype, s.dtype, vh.dtype) == tuple(x.dtype for x in reference)
        np.testing.assert_allclose(s, expected, atol=atol)
        assert_orthonormal_columns(u, atol)
        assert_orthonormal_columns(conj_t(vh), atol)
        k = min(m, n)
        rebuilt = u[..., :k] @ (s[..., None] * vh[..., :k, :])
        np.testing.assert_allclose(rebuilt, a, atol=atol)
    if 0 in (m, n):  # NumPy's identities for the complete factors of an empty matrix
        assert_same(complete.U, np.linalg.svd(a).U)
        assert_same(complete.Vh, np.linalg.svd(a).Vh)


@tj.function
def qr_all(a):
    return np.linalg.qr(a), np.linalg.qr(a, mode="complete"), np.linalg.qr(a, mode="r")


@settings(max_examples=24, deadline=None)
@given(dtype=st.sampled_from(DTYPES), batch=batches, m=sides, n=sides, seed=st.integers(0, 2**16))
def test_qr_matches_numpy(dtype, batch, m, n, seed):
    rng = np.random.default_rng(seed)
    a = random_array(rng, (*batch, m, n), dtype)
    reduced, complete, r_only = qr_all(a)
    atol = tolerance(dtype, float(np.max(np.abs(a), initial=1.0)) * max(m, n, 1))
    for (q, r), mode in ((reduced, "reduced"), (complete, "complete")):
        expected = np.linalg.qr(a, mode=mode)
        assert type((q, r)) is tuple and type(reduced) is type(expected)
        assert (q.shape, r.shape) == (expected.Q.shape, expected.R.shape)
        assert (q.dtype, r.dtype) == (expected.Q.dtype, expected.R.dtype)
        assert_orthonormal_columns(q, atol)
        np.testing.assert_allclose(q @ r, a, atol=atol)
        np.testing.assert_array_equal(np.tril(r, -1), 0)
        # the same factorisation as NumPy's (LAPACK's), signs included
        np.testing.assert_allclose(r, expected.R, atol=atol)
    np.testing.assert_allclose(r_only, np.linalg.qr(a, mode="r"), atol=atol)


@tj.function
def lstsq(a, b):
    return np.linalg.lstsq(a, b)


@tj.function
def lstsq_rcond(a, b, rcond):
    return np.linalg.lstsq(a, b, rcond=rcond)


@settings(max_examples=24, deadline=None)
@given(dtype=st.sampled_from(DTYPES), m=sides, n=sides, k=st.integers(0, 3),
       vector=st.booleans(), deficient=st.booleans(), seed=st.integers(0, 2**16))  # fmt: skip
def test_lstsq_matches_numpy(dtype, m, n, k, vector, deficient, seed):
    rng = np.random.default_rng(seed)
    a = random_array(rng, (m, n), dtype)
    if deficient and n > 1:
        a[:, 0] = a[:, 1]  # rank below n: no residuals, as NumPy
    b = random_array(rng, (m,) if vector else (m, k), dtype)
    got, expected = lstsq(a, b), np.linalg.lstsq(a, b)
    assert type(got) is tuple and len(got) == 4
    assert type(got[2]) is type(expected[2]) and got[2] == expected[2]
    for x, y in (got[0], expected[0]), (got[1], expected[1]), (got[3], expected[3]):
        assert x.dtype == y.dtype and x.shape == y.shape
        np.testing.assert_allclose(x, y, rtol=1e-4, atol=tolerance(dtype, 10.0 * max(m, n)))
    assert_same(got, run_eagerly(lstsq, a, b), rtol=1e-4, atol=tolerance(dtype, 10.0 * max(m, n)))


def test_lstsq_rcond_cuts_small_singular_values_as_numpy():
    a = np.diag([1.0, 1e-3, 1e-9])
    b = np.ones(3)
    for rcond in (1e-2, 1e-6, -1, None):
        got, expected = lstsq_rcond(a, b, rcond), np.linalg.lstsq(a, b, rcond=rcond)
        assert got[2] == expected[2]
        np.testing.assert_allclose(got[0], expected[0], rtol=1e-12)


def test_integer_operands_compute_in_float64():
    a = np.array([[2, 1], [1, 3]])
    (w, v), values = eigh(a)
    assert w.dtype == v.dtype == np.float64
    np.testing.assert_allclose(values, np.linalg.eigvalsh(a), rtol=1e-12)
    assert svd_all(a)[2].dtype == np.float64
    x, _, rank, _ = lstsq(a, np.array([1, 2]))
    np.testing.assert_allclose(x, np.linalg.solve(a, [1, 2]), rtol=1e-12)
    assert rank == 2


def _line_of(text: str, function) -> int:
    source, first = inspect.getsourcelines(function)
    return first + next(i for i, line in enumerate(source) if text in line)


def test_no_convergence_raises_linalg_error_at_the_users_line():
    nan = np.full((3, 3), np.nan)
    line = _line_of("np.linalg.eigh", eigh.python_function)
    with pytest.raises(np.linalg.LinAlgError, match=rf"Eigenvalues did not converge \(.*:{line}\)"):
        eigh(nan)
    with pytest.raises(np.linalg.LinAlgError, match="SVD did not converge"):
        svd_all(nan)
    with pytest.raises(np.linalg.LinAlgError, match="SVD did not converge in Linear Least"):
        lstsq(nan, np.ones(3))


def test_wrong_ranks_and_arguments_are_refused_as_numpy_does():
    with pytest.raises(np.linalg.LinAlgError, match="at least two-dimensional"):
        eigh(np.ones(3))
    with pytest.raises(np.linalg.LinAlgError, match="must be square"):
        eigh(np.ones((2, 3)))
    with pytest.raises(np.linalg.LinAlgError, match="at least two-dimensional"):
        svd_all(np.ones(3))
    with pytest.raises(np.linalg.LinAlgError, match="3-dimensional array given"):
        lstsq(np.ones((2, 3, 3)), np.ones(3))
    with pytest.raises(np.linalg.LinAlgError, match="Incompatible dimensions"):
        lstsq(np.ones((3, 2)), np.ones(2))
    with pytest.raises(TypeError, match="float16 is unsupported in linalg"):
        svd_all(np.eye(2, dtype=np.float16))

    @tj.function
    def bad_uplo(a):
        return np.linalg.eigvalsh(a, UPLO="X")

    with pytest.raises(ValueError, match="UPLO argument must be 'L' or 'U'"):
        bad_uplo(np.eye(2))

    @tj.function
    def bad_mode(a):
        return np.linalg.qr(a, mode="economic")

    with pytest.raises(ValueError, match="Unrecognized mode 'economic'"):
        bad_mode(np.eye(2))


@pytest.mark.parametrize("dtype", DTYPES)
def test_hermitian_svd_is_numpys_from_eigh(dtype):
    @tj.function
    def both(a):
        return np.linalg.svd(a, hermitian=True), np.linalg.svd(a, compute_uv=False, hermitian=True)

    h = hermitian(np.random.default_rng(4), (2, 4, 4), dtype)
    (u, s, vh), values = both(h)
    expected = np.linalg.svd(h, hermitian=True)
    atol = tolerance(dtype, 10.0)
    assert (u.dtype, s.dtype, vh.dtype) == tuple(x.dtype for x in expected)
    np.testing.assert_allclose(values, expected.S, atol=atol)
    np.testing.assert_allclose(s, expected.S, atol=atol)
    np.testing.assert_allclose(np.abs(u), np.abs(expected.U), atol=atol)  # distinct |w|
    np.testing.assert_allclose(u @ (s[..., None] * vh), h, atol=atol)


def test_eigh_with_dims_unknown_at_trace_time():
    @tj.function(input_signature=[tj.TensorSpec([None, None, None], np.float64)])
    def spectrum(a):
        return np.linalg.eigh(a)

    rng = np.random.default_rng(5)
    for shape in ((2, 3, 3), (1, 0, 0), (3, 5, 5)):
        h = hermitian(rng, shape, np.float64)
        w, v = spectrum(h)
        np.testing.assert_allclose(w, np.linalg.eigvalsh(h), atol=1e-10)
        np.testing.assert_allclose(v @ (w[..., None] * conj_t(v)), h, atol=1e-10)
    assert spectrum.experimental_get_tracing_count() == 1


def test_compiled_and_eager_agree():
    rng = np.random.default_rng(6)
    h = hermitian(rng, (2, 4, 4), np.float64)
    a = random_array(rng, (2, 5, 3), np.float64)
    (w, _), values = eigh(h)
    (w_e, _), values_e = run_eagerly(eigh, h)
    assert_same((w, values), (w_e, values_e), rtol=1e-10, atol=1e-12)
    assert_same(svd_all(a)[2], run_eagerly(svd_all, a)[2], rtol=1e-10, atol=1e-12)
    assert_same(qr_all(a)[2], run_eagerly(qr_all, a)[2], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("rhs_dtype", [np.int8, np.bool_, np.float32])
def test_an_integer_operand_makes_the_solve_float64_as_numpys_common_type(rhs_dtype):
    """NumPy's linalg promotes each integer or bool operand to float64 before finding the
    common type: a float32 matrix and an int8 right-hand side solve in float64 (the fuzzer
    found tracejit answering in float32, result_type's choice)."""
    matrix = np.array([[2.0, 0.5], [0.25, 3.0]], np.float32)
    rhs = np.array([[-128, 0], [7, 1]]).astype(rhs_dtype)

    def solved(m, r):
        return np.linalg.solve(m, r), np.linalg.lstsq(m, r)[0]

    f = tj.function(solved)
    for compiled, expected in zip(f(matrix, rhs), solved(matrix, rhs), strict=True):
        assert compiled.dtype == expected.dtype
        np.testing.assert_allclose(compiled, expected, rtol=1e-5)
