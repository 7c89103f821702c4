"""`np.linalg.solve`, `inv`, `cholesky`, `det`, `slogdet`: compiled code calling SciPy's LAPACK,
compared with NumPy's own np.linalg.

Matrices are drawn well conditioned (random entries plus n on the diagonal), so float32
results agree with NumPy's to a few float32 ulps scaled by n; float64 to 1e-10. The error
cases are NumPy's: LinAlgError for a singular or not positive definite matrix, raised by
the compiled function with the user's line.
"""

import inspect

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tracejit as tj
from tests.conftest import assert_same

pytest.importorskip("scipy", reason="np.linalg's LAPACK functions need SciPy (tracejit[linalg])")

pytestmark = pytest.mark.filterwarnings("ignore::tracejit.RetracingWarning")  # new shapes

DTYPES = [np.float32, np.float64, np.complex64, np.complex128]


def rtol(dtype) -> float:
    return 2e-4 if np.dtype(dtype) in (np.float32, np.complex64) else 1e-9


def random_array(rng, shape, dtype):
    x = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def well_conditioned(rng, shape, dtype):
    n = shape[-1]
    return (random_array(rng, shape, dtype) + (n + 1) * np.eye(n)).astype(dtype)


def positive_definite(rng, shape, dtype):
    m = random_array(rng, shape, dtype)
    return (m @ np.conj(np.swapaxes(m, -1, -2)) + shape[-1] * np.eye(shape[-1])).astype(dtype)


@tj.function
def solve(a, b):
    return np.linalg.solve(a, b)


@tj.function
def inverse(a):
    return np.linalg.inv(a)


@tj.function
def cholesky(a):
    return np.linalg.cholesky(a)


batches = st.sampled_from([(), (1,), (3,), (2, 3)])
sides = st.integers(0, 6)


@settings(max_examples=24, deadline=None)
@given(
    dtype=st.sampled_from(DTYPES), batch=batches, n=sides, k=st.integers(0, 4),
    vector=st.booleans(), seed=st.integers(0, 2**16),
)  # fmt: skip
def test_solve_matches_numpy(dtype, batch, n, k, vector, seed):
    rng = np.random.default_rng(seed)
    a = well_conditioned(rng, (*batch, n, n), dtype)
    b = random_array(rng, (n,) if vector else (*batch, n, k), dtype)
    assert_same(solve(a, b), np.linalg.solve(a, b), rtol=rtol(dtype), atol=rtol(dtype))


@settings(max_examples=18, deadline=None)
@given(dtype=st.sampled_from(DTYPES), batch=batches, n=sides, seed=st.integers(0, 2**16))
def test_inv_and_cholesky_match_numpy(dtype, batch, n, seed):
    rng = np.random.default_rng(seed)
    a = well_conditioned(rng, (*batch, n, n), dtype)
    assert_same(inverse(a), np.linalg.inv(a), rtol=rtol(dtype), atol=rtol(dtype))
    p = positive_definite(rng, (*batch, n, n), dtype)
    assert_same(cholesky(p), np.linalg.cholesky(p), rtol=rtol(dtype), atol=rtol(dtype))


def test_batch_dims_broadcast_as_numpy():
    rng = np.random.default_rng(1)
    a = well_conditioned(rng, (3, 2, 2), np.float64)
    for b in (rng.standard_normal((4, 1, 2, 5)), rng.standard_normal((2, 2)),
              rng.standard_normal(2)):  # fmt: skip
        assert_same(solve(a, b), np.linalg.solve(a, b), rtol=1e-12)


def test_integer_operands_compute_in_float64():
    a, b = np.array([[2, 1], [1, 3]]), np.array([1, 2])
    assert_same(solve(a, b), np.linalg.solve(a, b), rtol=1e-12)
    assert inverse(np.eye(2, dtype=bool)).dtype == np.float64


def test_float16_and_non_square_are_refused_as_numpy_does():
    with pytest.raises(TypeError, match="float16 is unsupported in linalg"):
        inverse(np.eye(2, dtype=np.float16))
    with pytest.raises(np.linalg.LinAlgError, match="must be square"):
        inverse(np.ones((2, 3)))
    with pytest.raises(np.linalg.LinAlgError, match="at least two-dimensional"):
        inverse(np.ones(3))
    with pytest.raises(ValueError, match="mismatch in its core dimension"):
        solve(np.eye(2), np.ones(3))


def _line_of(text: str, function) -> int:
    source, first = inspect.getsourcelines(function)
    return first + next(i for i, line in enumerate(source) if text in line)


def test_singular_matrix_raises_linalg_error_at_the_users_line():
    singular = np.array([[1.0, 2.0], [2.0, 4.0]])
    line = _line_of("np.linalg.solve", solve.python_function)
    with pytest.raises(np.linalg.LinAlgError, match=rf"Singular matrix \(.*\.py:{line}\)"):
        solve(singular, np.ones(2))
    with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
        inverse(np.stack([np.eye(2), singular]).astype(np.float32))
    with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
        solve(np.zeros((2, 2)), np.ones((2, 0)))  # NumPy factors even without columns


def test_not_positive_definite_raises_linalg_error():
    line = _line_of("np.linalg.cholesky", cholesky.python_function)
    with pytest.raises(
        np.linalg.LinAlgError, match=rf"Matrix is not positive definite \(.*\.py:{line}\)"
    ):
        cholesky(np.array([[1.0, 2.0], [2.0, 1.0]]))
    with pytest.raises(np.linalg.LinAlgError, match="not positive definite"):
        cholesky(-np.eye(3, dtype=np.complex64))


def test_the_error_is_raised_even_when_the_result_is_unused():
    @tj.function
    def checks(a):
        np.linalg.inv(a)
        return a + 1

    with pytest.raises(np.linalg.LinAlgError):
        checks(np.zeros((2, 2)))


def test_cholesky_reads_the_lower_triangle_and_gives_upper():
    p = positive_definite(np.random.default_rng(2), (3, 3), np.complex128)
    lower_only = np.tril(p) + np.triu(np.full((3, 3), 99.0), 1)
    assert_same(cholesky(lower_only), np.linalg.cholesky(lower_only), rtol=1e-12)

    @tj.function
    def upper(a):
        return np.linalg.cholesky(a, upper=True)

    assert_same(upper(p), np.linalg.cholesky(p, upper=True), rtol=1e-12)


def test_without_scipy_the_functions_are_refused_with_what_to_do(monkeypatch):
    from tracejit.runtime import lapack

    monkeypatch.setattr(lapack, "available", lambda: False)

    @tj.function
    def f(a):
        return np.linalg.inv(a)

    with pytest.raises(TypeError, match=r"pip install tracejit\[linalg\].*tj.py_function"):
        f(np.eye(2))


def test_a_kernel_loaded_without_scipy_raises_import_error(monkeypatch):
    from tracejit.runtime import lapack

    monkeypatch.setattr(lapack, "_table", lambda: None)

    @tj.function
    def f(a):
        return np.linalg.inv(a)

    with pytest.raises(ImportError, match=r"tracejit\[linalg\]"):
        f(np.eye(2))


def test_a_kernel_loaded_with_numpy_s_blas_only_raises_import_error(monkeypatch):
    """The table then holds NumPy's BLAS routines and null LAPACK entries."""
    from tracejit.runtime import lapack

    monkeypatch.setattr(lapack, "_table", lambda: lapack.addresses(scipy=False, numpy_blas=True))

    @tj.function
    def f(a):
        return np.linalg.inv(a) @ a

    with pytest.raises(ImportError, match=r"tracejit\[linalg\]"):
        f(np.eye(2))


@tj.function
def determinants(a):
    return np.linalg.det(a), np.linalg.slogdet(a)


@settings(max_examples=18, deadline=None)
@given(dtype=st.sampled_from(DTYPES), batch=batches, n=sides, seed=st.integers(0, 2**16))
def test_det_and_slogdet_match_numpy(dtype, batch, n, seed):
    rng = np.random.default_rng(seed)
    a = random_array(rng, (*batch, n, n), dtype)  # any sign, pivoting on every row
    det, (sign, logabsdet) = determinants(a)
    expected_det, expected = np.linalg.det(a), np.linalg.slogdet(a)
    assert_same(det, expected_det, rtol=rtol(dtype), atol=rtol(dtype))
    assert_same(sign, expected.sign, rtol=rtol(dtype), atol=rtol(dtype))
    assert_same(logabsdet, expected.logabsdet, rtol=rtol(dtype), atol=rtol(dtype))


def test_singular_determinants_are_zero_as_numpy():
    singular = np.array([[[1.0, 2.0], [2.0, 4.0]], [[0.0, 0.0], [0.0, 0.0]]])
    det, result = determinants(singular)
    assert type(result) is type(np.linalg.slogdet(singular))
    assert_same(det, np.array([0.0, 0.0]), rtol=0)
    assert_same(result.sign, np.array([0.0, 0.0]), rtol=0)
    assert_same(result.logabsdet, np.array([-np.inf, -np.inf]), rtol=0)
    det_1, (sign_1, log_1) = determinants(np.zeros((0, 0), np.float32))
    assert (det_1, sign_1, log_1) == (1.0, 1.0, 0.0) and det_1.dtype == np.float32


def test_dims_unknown_at_trace_time_are_checked_when_the_kernel_runs():
    matrix, vector = tj.TensorSpec([None, None], np.float64), tj.TensorSpec([None], np.float64)

    @tj.function(input_signature=[matrix, vector])
    def solve_any(a, b):
        return np.linalg.solve(a, b)

    @tj.function(input_signature=[tj.TensorSpec([None, None, None], np.float32)])
    def all_of_them(a):
        return np.linalg.inv(a), np.linalg.cholesky(a), np.linalg.det(a), np.linalg.slogdet(a)

    rng = np.random.default_rng(3)
    for n in (0, 1, 5):
        a, b = well_conditioned(rng, (n, n), np.float64), rng.standard_normal(n)
        assert_same(solve_any(a, b), np.linalg.solve(a, b), rtol=1e-10)
        p = positive_definite(rng, (2, n, n), np.float32)
        expected = (np.linalg.inv(p), np.linalg.cholesky(p), np.linalg.det(p))
        *got, (sign, log) = all_of_them(p)
        assert_same(tuple(got), expected, rtol=2e-4, atol=2e-4)
        assert_same((sign, log), tuple(np.linalg.slogdet(p)), rtol=2e-4, atol=2e-4)
    assert solve_any.experimental_get_tracing_count() == 1
    with pytest.raises(np.linalg.LinAlgError, match="must be square"):
        all_of_them(np.ones((1, 2, 3), np.float32))
    with pytest.raises(ValueError, match="mismatch in its core dimension"):
        solve_any(np.eye(2), np.ones(3))
    with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
        solve_any(np.zeros((2, 2)), np.ones(2))


def test_right_hand_sides_counted_at_run_time_find_a_singular_matrix_without_any():
    signature = [tj.TensorSpec([3, 3], np.float64), tj.TensorSpec([3, None], np.float64)]

    @tj.function(input_signature=signature)
    def solve_columns(a, b):
        return np.linalg.solve(a, b)

    rng = np.random.default_rng(4)
    a = well_conditioned(rng, (3, 3), np.float64)
    for k in (0, 1, 4):
        b = rng.standard_normal((3, k))
        assert_same(solve_columns(a, b), np.linalg.solve(a, b), rtol=1e-10)
        with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
            solve_columns(np.ones((3, 3)), b)  # found with no columns too, as NumPy does


# A process that compiles or loads (from the persistent cache) a function calling LAPACK.
CACHED = """
import json, sys
import numpy as np
import tracejit as tj
import tracejit.codegen
from tracejit.codegen import shared_library
from tracejit.compiler import driver

tj.config.set_cache_dir(sys.argv[1])
if sys.argv[2] == "forbid":
    def forbidden(*args, **kwargs):
        raise AssertionError("compiled on a cache hit")
    driver.lower = driver.compile_to_machine_code = forbidden
    tracejit.codegen.compile_module = tracejit.codegen.compile_llvm_ir = forbidden

@tj.function
def f(a, b):
    return np.linalg.solve(a, b), np.linalg.det(a)

a = np.array([[3.0, 1.0], [1.0, 2.0]])
x, det = f(a, np.array([9.0, 8.0]))
try:
    f(np.zeros((2, 2)), np.ones(2))
    error = None
except np.linalg.LinAlgError as raised:
    error = str(raised)
engine = f.get_concrete_function(a, np.ones(2))._compilation.jit._engine
shared_library.wait_for_builds()
print(json.dumps({"x": x.tolist(), "det": float(det), "error": error,
                  "loaded_as": type(engine).__name__}))
"""


def test_cached_kernels_find_lapack_in_a_new_process(tmp_path):
    """The LAPACK table is a global the loader fills in: a kernel from the persistent cache,
    dlopen'ed as a shared library in a new process, calls LAPACK and raises as compiled."""
    import json
    import subprocess
    import sys

    def run(mode: str) -> dict:
        done = subprocess.run(
            [sys.executable, "-c", CACHED, str(tmp_path), mode], capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout.strip().splitlines()[-1])

    first, second = run("compile"), run("forbid")
    assert first["x"] == second["x"] == [2.0, 3.0]
    assert first["det"] == second["det"] == pytest.approx(5.0)
    assert second["error"] is not None and second["error"].startswith("Singular matrix (")
    from tracejit.codegen import shared_library

    linked = shared_library.compiler_driver() is not None  # else the object code is loaded
    assert second["loaded_as"] == ("SharedLibrary" if linked else "ExecutionEngine")


ONLY_PRODUCTS_FIRST = """
import sys
import numpy as np
import tracejit as tj

tj.config.set_tiered_compilation(False)
a = np.random.default_rng(0).random((64, 64))
assert np.allclose(tj.function(lambda a: a @ a)(a), a @ a)
assert "scipy.linalg" not in sys.modules, "SciPy imported for a matrix product"
b = a + 64 * np.eye(64)
assert np.allclose(tj.function(lambda b: np.linalg.inv(b))(b), np.linalg.inv(b))
assert "scipy.linalg" in sys.modules
assert np.allclose(tj.function(lambda a: a @ a.T)(a), a @ a.T)
"""


def test_a_process_that_only_multiplies_matrices_never_imports_scipy():
    """NumPy's BLAS fills the BLAS entries; SciPy's LAPACK (~0.2 s to import) is loaded for
    the first module that calls LAPACK, and the products keep working after it."""
    import subprocess
    import sys

    from tracejit.runtime import lapack

    if lapack._numpy_blas() is None:
        pytest.skip("NumPy bundles no OpenBLAS here: its BLAS routines come from SciPy")

    done = subprocess.run([sys.executable, "-c", ONLY_PRODUCTS_FIRST], capture_output=True,
                          text=True)  # fmt: skip
    assert done.returncode == 0, done.stderr
