"""`@` / `np.matmul` / `np.dot` / `ndarray.dot`, compiled vs eager NumPy: 1-D and 2-D
operands, batched N-D stacks with broadcast batch dims, int/bool/float and mixed dtypes.

Ints and bools are exact (int overflow wraps as in NumPy). Float products are summed in a
different order than NumPy's BLAS, so they match within rtol 1e-5 (float32) / 1e-12
(float64) of k * max|a| * max|b|.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tracejit as tj

DTYPE_PAIRS = [
    (np.float32, np.float32),
    (np.float64, np.float64),
    (np.float32, np.float64),
    (np.int32, np.int32),
    (np.int8, np.int8),
    (np.uint8, np.int8),
    (np.int64, np.float32),
    (np.bool_, np.bool_),
    (np.uint32, np.uint32),
]


@tj.function
def matmul_forms(a, b):
    return {"at": a @ b, "matmul": np.matmul(a, b)}


@tj.function
def dot_forms(a, b):
    return {"dot": np.dot(a, b), "method": a.dot(b)}


def random_operand(rng, shape, dtype):
    if np.dtype(dtype).kind == "f":
        return rng.standard_normal(shape).astype(dtype)
    if dtype == np.bool_:
        return rng.integers(0, 2, shape).astype(bool)
    return rng.integers(-100, 100, shape).astype(dtype)  # int8 products wrap


def tolerance(a: np.ndarray, b: np.ndarray) -> dict:
    if a.dtype.kind != "f" and b.dtype.kind != "f":
        return {}
    r = 1e-5 if np.float32 in (a.dtype, b.dtype) and np.result_type(a, b) == np.float32 else 1e-12
    k = a.shape[-1] if a.ndim else 1
    scale = k * float(np.max(np.abs(a), initial=0)) * float(np.max(np.abs(b), initial=0))
    return {"rtol": r, "atol": r * scale}


@st.composite
def matmul_cases(draw):
    """Operand shapes (..., m, k) @ (..., k, n) with broadcastable batch dims; either
    operand may instead be 1-D (k,)."""
    m, k, n = (draw(st.integers(0, 4)) for _ in range(3))
    batches = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=2, max_side=3))
    lhs_batch, rhs_batch = batches.input_shapes
    lhs = (k,) if draw(st.booleans()) and not lhs_batch else (*lhs_batch, m, k)
    rhs = (k,) if draw(st.booleans()) and not rhs_batch else (*rhs_batch, k, n)
    return lhs, rhs, draw(st.sampled_from(DTYPE_PAIRS)), draw(st.integers(0, 2**32 - 1))


@pytest.mark.filterwarnings("ignore::tracejit.RetracingWarning")
@settings(max_examples=40, deadline=None)
@given(case=matmul_cases())
def test_matmul_matches_numpy(check_against_eager, case):
    lhs_shape, rhs_shape, (lhs_dtype, rhs_dtype), seed = case
    rng = np.random.default_rng(seed)
    a, b = random_operand(rng, lhs_shape, lhs_dtype), random_operand(rng, rhs_shape, rhs_dtype)
    check_against_eager(matmul_forms, a, b, **tolerance(a, b))
    if a.ndim <= 2 and b.ndim <= 2:
        check_against_eager(dot_forms, a, b, **tolerance(a, b))


@pytest.mark.parametrize(
    "lhs, rhs",
    [
        ((2, 1, 3, 4), (5, 4, 6)),  # -> (2, 5, 3, 6)
        ((4,), (5, 4, 6)),
        ((2, 3, 4), (4,)),
        ((4,), (4,)),  # -> 0-d
        ((1, 3, 4), (2, 1, 4, 2)),
        ((3, 0), (0, 2)),  # k = 0: zeros
        ((0, 3), (3, 2)),
    ],
)
@pytest.mark.parametrize("dtype", [np.float64, np.int32])
def test_batched_and_vector_shapes(check_against_eager, lhs, rhs, dtype):
    rng = np.random.default_rng(0)
    a, b = random_operand(rng, lhs, dtype), random_operand(rng, rhs, dtype)
    check_against_eager(matmul_forms, a, b, **tolerance(a, b))


def test_int8_products_wrap(check_against_eager):
    a = np.full((2, 3), 100, np.int8)
    check_against_eager(matmul_forms, a, a.T)


def test_dot_with_scalars_and_python_values(check_against_eager):
    @tj.function
    def scalars(x, s):
        return {
            "array_scalar": np.dot(x, s),
            "scalar_array": np.dot(s, x),
            "python_int": np.dot(x, 3),  # not weak in dot: int8 . 3 is int64
            "python_float": np.dot(2.5, x),
            "constant_matrix": np.dot(x, np.eye(3, dtype=np.int8)),
        }

    check_against_eager(scalars, np.arange(6, dtype=np.int8).reshape(2, 3), np.float32(2))


def test_mixed_with_constant_operands(check_against_eager):
    w = np.arange(12, dtype=np.float32).reshape(3, 4)
    f = tj.function(lambda x: (x @ w, w.T @ x.T, np.matmul(x, w[:, 0])))
    check_against_eager(f, np.ones((2, 3), np.float64), rtol=1e-12)


def test_non_contiguous_operands(check_against_eager):
    a = np.arange(20, dtype=np.float64).reshape(4, 5)
    check_against_eager(matmul_forms, a.T, a[:, ::2], rtol=1e-12)


@pytest.mark.parametrize(
    "fn, lhs, rhs, error, message",
    [
        (lambda a, b: a @ b, (3, 4), (5, 6), ValueError, "mismatch in its core dimension 0"),
        (np.matmul, (2, 3, 4), (3, 4, 5), ValueError, "cannot be broadcast"),
        (np.matmul, (), (3,), ValueError, "Input operand 0 does not have enough dimensions"),
        (np.dot, (2, 3), (4, 5), ValueError, r"shapes \(2, 3\) and \(4, 5\) not aligned"),
        (np.dot, (2, 3, 4), (4, 2), TypeError, "np.dot on 3-D and 2-D operands"),
    ],
)
def test_shape_errors_at_trace_time(fn, lhs, rhs, error, message):
    def user_function(a, b):
        return fn(a, b)

    with pytest.raises(error, match=message) as raised:
        tj.function(user_function)(np.ones(lhs), np.ones(rhs))
    assert "test_matmul.py" in str(raised.value)  # names the user's line
    if error is ValueError:
        with pytest.raises(ValueError):
            fn(np.ones(lhs), np.ones(rhs))  # NumPy raises too


@tj.function
def times_transposed(a, m):
    """`m.T` traced inside: a matrix (or vector) product reads `m`'s rows in place."""
    return {"at": a @ m.T, "dot": np.dot(a, m.T)}


@pytest.mark.filterwarnings("ignore::tracejit.RetracingWarning")  # one trace per case
@settings(max_examples=25, deadline=None)
@given(
    st.sampled_from([np.float32, np.float64, np.int32, np.int8, np.bool_]),
    st.integers(1, 70),
    st.integers(0, 300),
    st.integers(1, 90),
    st.booleans(),
)
def test_products_with_a_transposed_operand(check_against_eager, dtype, m, k, n, vector):
    """Sizes on both sides of tile-matmul's register tile, chunks and depth blocks (K up to
    300 > 256), K = 0, and a vector A; ints wrap and bools are exact."""
    rng = np.random.default_rng(m * 1000 + k * 10 + n)
    a = random_operand(rng, (k,) if vector else (m, k), dtype)
    mat = random_operand(rng, (n, k), dtype)
    check_against_eager(times_transposed, a, mat, **tolerance(a, mat))


def test_large_product_with_a_transposed_operand(check_against_eager):
    """Big enough for the tiled nest, its chunks of columns and threads."""
    rng = np.random.default_rng(11)
    a = rng.standard_normal((300, 513))
    mat = rng.standard_normal((257, 513))
    check_against_eager(times_transposed, a, mat, **tolerance(a, mat))
