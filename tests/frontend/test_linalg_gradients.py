"""Gradients of np.linalg (frontend/autodiff/linalg_adjoints.py): solve, inv, cholesky,
det, slogdet, eigh/eigvalsh (distinct eigenvalues), the singular values and norm, each
against central finite differences of NumPy's own function in float64, through
`tj.grad`, `tj.value_and_grad`, a `tj.GradientTape` inside a `tj.function`, and one
outside it around a compiled call.

cholesky and eigh read only the lower triangle (or the upper with UPLO='U'): the finite
differences perturb every element, so they measure the gradient of that function, which
is what tracejit returns."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tracejit as tj
from tests.gradient_checks import check_gradient, numeric_gradient
from tracejit.frontend.autodiff import NotDifferentiableError

pytest.importorskip("scipy", reason="np.linalg's LAPACK functions need SciPy (tracejit[linalg])")

pytestmark = pytest.mark.filterwarnings("ignore::tracejit.RetracingWarning")


def well_conditioned(rng, shape):
    return rng.standard_normal(shape) + (shape[-1] + 1) * np.eye(shape[-1])


def positive_definite(rng, shape):
    m = rng.standard_normal(shape)
    return m @ np.swapaxes(m, -1, -2) + shape[-1] * np.eye(shape[-1])


batches = st.sampled_from([(), (2,), (2, 1)])
sides = st.integers(1, 4)


@settings(max_examples=6, deadline=None)
@given(batch=batches, n=sides, k=st.integers(1, 3), seed=st.integers(0, 2**16))
def test_solve_and_inv(batch, n, k, seed):
    rng = np.random.default_rng(seed)
    a, b = well_conditioned(rng, (*batch, n, n)), rng.standard_normal((*batch, n, k))
    weights = rng.standard_normal((*batch, n, k))
    check_gradient(lambda a, b: np.linalg.solve(a, b) * weights, a, b, argnums=(0, 1))
    vector = b.reshape(-1)[:n]  # exactly 1-D: a column for every matrix (NumPy 2)
    check_gradient(lambda a, b: np.linalg.solve(a, b) ** 2, a, vector, argnums=(0, 1))
    square_weights = rng.standard_normal((*batch, n, n))
    check_gradient(lambda a: np.linalg.inv(a) * square_weights, a)


@settings(max_examples=6, deadline=None)
@given(batch=batches, n=sides, seed=st.integers(0, 2**16))
def test_det_and_slogdet(batch, n, seed):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((*batch, n, n)) + np.eye(n)  # either sign of the determinant
    check_gradient(np.linalg.det, a, rtol=1e-4)
    check_gradient(lambda a: np.linalg.slogdet(a).logabsdet * 3.0, a, rtol=1e-4)
    check_gradient(lambda a: np.linalg.slogdet(a)[0] * np.linalg.slogdet(a)[1], a, rtol=1e-4)


@settings(max_examples=6, deadline=None)
@given(batch=batches, n=sides, upper=st.booleans(), seed=st.integers(0, 2**16))
def test_cholesky(batch, n, upper, seed):
    rng = np.random.default_rng(seed)
    p = positive_definite(rng, (*batch, n, n))
    weights = rng.standard_normal(p.shape)
    check_gradient(lambda a: np.linalg.cholesky(a, upper=upper) * weights, p, rtol=1e-4)


def test_cholesky_through_a_symmetric_parametrisation():
    """Through `x x^T + n I` (as a covariance is built), the gradient agrees with the
    symmetric convention of TensorFlow and JAX."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal((3, 3))
    check_gradient(lambda x: np.log(np.diagonal(np.linalg.cholesky(x @ x.T + 3 * np.eye(3)))), x)


def distinct_spectrum(rng, shape):
    """A symmetric matrix with eigenvalues 1, 2, 3, ... apart (distinct: the eigenvectors'
    gradient exists)."""
    n = shape[-1]
    q, _ = np.linalg.qr(rng.standard_normal(shape))
    return q @ (np.arange(1.0, n + 1)[:, None] * np.swapaxes(q, -1, -2))


@settings(max_examples=6, deadline=None)
@given(batch=batches, n=sides, upper=st.booleans(), seed=st.integers(0, 2**16))
def test_eigh_values_and_vectors(batch, n, upper, seed):
    rng = np.random.default_rng(seed)
    uplo = "U" if upper else "L"
    h = distinct_spectrum(rng, (*batch, n, n))
    w_weights, v_weights = rng.standard_normal((*batch, n)), rng.standard_normal(h.shape)
    check_gradient(lambda a: np.linalg.eigvalsh(a, UPLO=uplo) * w_weights, h, rtol=1e-4)

    def both(a):
        w, v = np.linalg.eigh(a, UPLO=uplo)
        # v's columns have a sign: a function of v that does not depend on it
        return w * w_weights, (v * v) * v_weights

    check_gradient(lambda a: sum(np.sum(t) for t in both(a)), h, rtol=1e-4, atol=1e-5)


@settings(max_examples=6, deadline=None)
@given(batch=batches, m=sides, n=sides, seed=st.integers(0, 2**16))
def test_singular_values(batch, m, n, seed):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((*batch, m, n))
    weights = rng.standard_normal((*batch, min(m, n)))
    check_gradient(lambda a: np.linalg.svd(a, compute_uv=False) * weights, a, rtol=1e-4)
    check_gradient(lambda a: np.linalg.svd(a)[1] * weights, a, rtol=1e-4)
    check_gradient(lambda a: np.linalg.svd(a, full_matrices=False).S * weights, a, rtol=1e-4)


VECTOR_ORDS = [None, 1, 2, 3, 0.5, -1, np.inf, -np.inf]
MATRIX_ORDS = [None, "fro", 1, -1, np.inf, -np.inf, 2, -2, "nuc"]


@pytest.mark.parametrize("ord", VECTOR_ORDS, ids=str)
def test_vector_norms(ord):
    x = np.random.default_rng(4).standard_normal((3, 5))
    check_gradient(lambda x: np.linalg.norm(x, ord, axis=-1), x, rtol=1e-4)
    check_gradient(lambda x: np.linalg.norm(x, ord, axis=0, keepdims=True), x, rtol=1e-4)


@pytest.mark.parametrize("ord", MATRIX_ORDS, ids=str)
def test_matrix_norms(ord):
    x = np.random.default_rng(5).standard_normal((2, 3, 4))
    check_gradient(lambda x: np.linalg.norm(x, ord, axis=(-2, -1)), x, rtol=1e-4)
    check_gradient(lambda x: np.linalg.norm(x), x)


def test_value_and_grad_of_a_log_likelihood():
    """A Gaussian negative log-likelihood: cholesky, solve and slogdet in one loss."""
    rng = np.random.default_rng(6)
    y = rng.standard_normal(4)
    cov = positive_definite(rng, (4, 4))

    def nll(cov, y):
        chol = np.linalg.cholesky(cov)
        z = np.linalg.solve(chol, y)
        return 0.5 * np.sum(z * z) + np.sum(np.log(np.diagonal(chol)))

    value, grads = tj.value_and_grad(nll, argnums=(0, 1))(cov, y)
    np.testing.assert_allclose(value, nll(cov, y), rtol=1e-12)
    for k, g in enumerate(grads):

        def along(v, k=k):
            args = [cov, y]
            args[k] = v
            return nll(*args)

        np.testing.assert_allclose(g, numeric_gradient(along, [cov, y][k]), rtol=1e-5, atol=1e-7)


def test_gradient_tape_inside_and_outside_a_function():
    rng = np.random.default_rng(7)
    a = well_conditioned(rng, (3, 3))
    expected = numeric_gradient(lambda a: np.linalg.slogdet(a)[1] + np.sum(np.linalg.inv(a)), a)

    @tj.function
    def inside(a):
        with tj.GradientTape() as tape:
            tape.watch(a)
            loss = np.linalg.slogdet(a)[1] + np.sum(np.linalg.inv(a))
        return tape.gradient(loss, a)

    np.testing.assert_allclose(inside(a), expected, rtol=1e-5, atol=1e-7)

    @tj.function
    def loss_of(a):
        return np.linalg.slogdet(a)[1] + np.sum(np.linalg.inv(a))

    with tj.GradientTape() as tape:
        tape.watch(a)
        loss = loss_of(a)
    np.testing.assert_allclose(tape.gradient(loss, a), expected, rtol=1e-5, atol=1e-7)

    variable = tj.Variable(a)

    @tj.function
    def step():
        with tj.GradientTape() as tape:
            x = variable.read_value()
            loss = np.sum(np.linalg.eigvalsh(x @ x.T) ** 2)
        return tape.gradient(loss, variable)

    def numpy_loss(x):
        return np.sum(np.linalg.eigvalsh(x @ x.T) ** 2)

    np.testing.assert_allclose(step(), numeric_gradient(numpy_loss, a), rtol=1e-5, atol=1e-6)


def test_no_gradient_through_singular_vectors_qr_or_lstsq():
    a = np.random.default_rng(8).standard_normal((3, 2))
    for f, name in [
        (lambda a: np.sum(np.linalg.svd(a)[0]), "singular vectors"),
        (lambda a: np.sum(np.linalg.qr(a)[1]), "qr"),
        (lambda a: np.sum(np.linalg.lstsq(a, np.ones(3))[0]), "lstsq"),
    ]:
        with pytest.raises(NotDifferentiableError, match=name):
            tj.grad(f)(a)
