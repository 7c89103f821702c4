"""float16 matrix products and einsums, compiled and eager, against NumPy.

NumPy multiplies float16s in float32 (the product of two is exact there) and sums in
float32, rounding to float16 once per result element:

- `np.matmul` / `@` (`HALF_matmul_inner_noblas`), `np.dot`, `np.inner` (`HALF_dot`) add
  the products from 0 in k order. tracejit sums a float16 `tj.matmul` the same way, so
  these are compared **bit for bit** (NaNs by position: their payloads are not NumPy's
  contract), for every rank NumPy accepts, batches, 0-size dims, k = 1, k ~ 1000, inf
  and NaN, and for the gradients of a product (their adjoints are float16 matmuls too).
- `np.einsum` rounds as its iterator goes: with `optimize=False` (the default) it adds
  each product into the float16 output where the summed axis is not its innermost loop,
  so its error grows with the length of the sum (an 8x1000 @ 1000x8 einsum of [0, 1)
  values is off by up to 4.8; matmul by 0.12). tracejit's einsum is the float32 sum
  rounded once. It must be within `ulp + A` of the exact value, where
  `A = 2 * n * 2**-24 * sum|products|` bounds a float32 accumulation of n terms in any
  order (a float16 running sum misses that by far), and within 1 ulp of NumPy's float32
  einsum of the same values rounded to float16 (the two float32 sums add in different
  orders, so they may round to neighbouring float16s), or within `ulp + 2 A` of it where
  the sum cancels (`A` is then more than an ulp of the result).
- `np.outer` is one float16 multiply per element: bit for bit.

Eager mode is NumPy itself: each function is also run with `run_functions_eagerly(True)`
and must give NumPy's result bit for bit.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tracejit as tj
from tests.conftest import run_eagerly

F16 = np.dtype(np.float16)


# --- comparisons --------------------------------------------------------------------
def assert_bits_equal(actual, expected) -> None:
    """Same dtype, shape and float16 bits (NaN where NaN, any payload)."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.dtype == expected.dtype == F16
    assert actual.shape == expected.shape
    nan = np.isnan(expected)
    np.testing.assert_array_equal(np.isnan(actual), nan)
    differ = (actual.view(np.uint16) != expected.view(np.uint16)) & ~nan
    assert not differ.any(), (
        f"{differ.sum()} of {differ.size} elements differ, e.g. {actual[differ][:5]} "
        f"for NumPy's {expected[differ][:5]}"
    )


def ulps_apart(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """How many float16s lie between a and b (+0 and -0 are one value)."""

    def ordered(x: np.ndarray) -> np.ndarray:
        bits = x.astype(F16).view(np.uint16).astype(np.int64)
        return np.where(bits & 0x8000, -(bits & 0x7FFF), bits)

    return np.abs(ordered(a) - ordered(b))


def compiled_and_eager(fn, *args):
    function = tj.function(fn)
    with np.errstate(all="ignore"):  # inf and NaN operands warn in NumPy
        return function(*args), run_eagerly(function, *args)


def check_like_numpy(fn, *args) -> None:
    """Compiled and eager results are NumPy's, bit for bit."""
    with np.errstate(all="ignore"):
        expected = fn(*args)
    compiled, eager = compiled_and_eager(fn, *args)
    assert_bits_equal(eager, expected)
    assert_bits_equal(compiled, expected)


# --- the functions -------------------------------------------------------------------
def at(x, y):
    return x @ y


def matmul(x, y):
    return np.matmul(x, y)


def dot(x, y):
    return np.dot(x, y)


def method_dot(x, y):
    return x.dot(y)


def inner_of_columns(x, y):  # np.inner contracts last axes: y's columns become its rows
    return np.inner(x, np.swapaxes(y, -1, -2) if y.ndim >= 2 else y)


def at_transposed(x, m):  # `x @ m.T`: bufferize reads m's rows in place
    return x @ m.T


def outer(x, y):
    return np.outer(x, y)


MATMUL_LIKE = [at, matmul, dot, method_dot, inner_of_columns, at_transposed]
BATCHED = [at, matmul]  # np.dot and np.inner of N-D operands are not staged


# --- operands ------------------------------------------------------------------------
ANY_FLOAT16 = st.floats(width=16, allow_nan=True, allow_infinity=True)
SMALL_DIMS = st.sampled_from([0, 1, 2, 3, 5])
DEPTHS = st.sampled_from([0, 1, 2, 3, 7, 64, 300, 1000])


@st.composite
def product_shapes(draw, batched: bool):
    """Operand shapes of `lhs @ rhs`: vector or matrix operands, or batches (broadcast)."""
    m, n, k = draw(SMALL_DIMS), draw(SMALL_DIMS), draw(DEPTHS)
    lhs = draw(st.sampled_from([(k,), (m, k)]))
    rhs = draw(st.sampled_from([(k,), (k, n)]))
    if batched:
        batch = draw(st.sampled_from([((2,), (2,)), ((1,), (3,)), ((), (2,)), ((2, 1), (1,))]))
        lhs, rhs = batch[0] + (m, k), batch[1] + (k, n)
    return lhs, rhs


@st.composite
def float16_operands(draw, shapes):
    """Arrays of the given shapes: either any float16 (inf, NaN, subnormals, 65504) drawn
    element by element, or, for long sums, seeded uniform or normal values."""
    if draw(st.booleans()) and max(np.prod(s) for s in shapes) <= 64:
        return [draw(hnp.arrays(F16, s, elements=ANY_FLOAT16)) for s in shapes]
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    scale = draw(st.sampled_from([1.0, 8.0, 0.01]))
    if draw(st.booleans()):
        return [(rng.random(s) * scale).astype(F16) for s in shapes]
    return [(rng.standard_normal(s) * scale).astype(F16) for s in shapes]


# --- matmul, dot, inner: bit for bit -----------------------------------------------
@pytest.mark.parametrize("fn", MATMUL_LIKE, ids=lambda f: f.__name__)
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_matrix_products_are_numpys_bit_for_bit(fn, data):
    x, y = data.draw(float16_operands(data.draw(product_shapes(batched=False))))
    if fn is at_transposed and y.ndim == 2:
        y = np.ascontiguousarray(y.T)  # m, with m.T the (k, n) operand
    check_like_numpy(fn, x, y)


@pytest.mark.parametrize("fn", BATCHED, ids=lambda f: f.__name__)
@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_batched_products_are_numpys_bit_for_bit(fn, data):
    x, y = data.draw(float16_operands(data.draw(product_shapes(batched=True))))
    check_like_numpy(fn, x, y)


def test_a_long_sum_keeps_the_ones_a_float16_sum_drops():
    # 2048 + 1 rounds to 2048 in float16 (ties to even); NumPy's float32 sum is 2050.
    x = np.array([[2048, 1, 1]], F16)
    check_like_numpy(at, x, np.ones((3, 1), F16))
    x = np.concatenate([[2048], np.ones(999)]).astype(F16)
    check_like_numpy(dot, x, np.ones(1000, F16))
    assert tj.function(dot)(x, np.ones(1000, F16)) == 3048  # 3047, rounded to float16


@pytest.mark.parametrize(
    ("lhs", "rhs"), [((8, 1000), (1000, 8)), ((37, 53), (53, 29)), ((3, 64, 500), (3, 500, 5))]
)
def test_issue_shapes_match_numpy_and_stay_near_exact(lhs, rhs):
    """The shapes of the report: 8x1000 @ 1000x8 of [0, 1) values was off by 0.5 from the
    exact product compiled (NumPy 0.12); about half of a 37x53 @ 53x29 differed."""
    rng = np.random.default_rng(35)
    x, y = rng.random(lhs).astype(F16), rng.random(rhs).astype(F16)
    check_like_numpy(at, x, y)
    exact = x.astype(np.float64) @ y.astype(np.float64)
    compiled = tj.function(at)(x, y).astype(np.float64)
    # one float16 rounding, plus float32 accumulation (negligible here)
    assert np.all(np.abs(compiled - exact) <= np.spacing(np.abs(exact).astype(F16)))


def test_overflow_inf_and_nan_follow_numpy():
    big = np.full((2, 4), 60000, F16)
    check_like_numpy(at, big, np.full((4, 3), 2, F16))  # inf: the float32 sum overflows float16
    x = np.array([[np.inf, 1], [0, 1], [-np.inf, np.nan]], F16)
    y = np.array([[0, 1, np.inf], [1, -np.inf, 2]], F16)
    check_like_numpy(at, x, y)


def test_unknown_dims_compile_to_the_same_sum():
    spec = tj.TensorSpec([None, None], F16)
    function = tj.function(at, input_signature=[spec, spec])
    rng = np.random.default_rng(7)
    for m, k, n in [(8, 1000, 8), (0, 3, 2), (3, 0, 2), (5, 1, 1)]:
        x, y = rng.random((m, k)).astype(F16), rng.random((k, n)).astype(F16)
        assert_bits_equal(function(x, y), x @ y)


def test_gradients_of_a_product_are_float32_sums():
    """The adjoints of `a @ b` are `g @ b.T` and `a.T @ g`: float16 matmuls, summed like
    NumPy's."""
    rng = np.random.default_rng(3)
    a, b = rng.random((8, 1000)).astype(F16), rng.random((1000, 8)).astype(F16)
    w = rng.random((8, 8)).astype(F16)

    def loss(a, b):
        return np.sum((a @ b) * w)

    grad_a, grad_b = tj.grad(loss, argnums=(0, 1))(a, b)
    assert_bits_equal(grad_a, w @ b.T)
    assert_bits_equal(grad_b, a.T @ w)


# --- einsum: the float32 sum, rounded once -----------------------------------------
EINSUMS = {
    "ij,jk->ik": [("m", "k"), ("k", "n")],  # a matmul (step 2 of einsum.py)
    "ij,kj->ik": [("m", "k"), ("n", "k")],
    "bij,bjk->bik": [("b", "m", "k"), ("b", "k", "n")],
    "i,i->": [("k",), ("k",)],
    "ij,jk->i": [("m", "k"), ("k", "n")],  # a label summed in one operand: general
    "ij,jk,k->i": [("m", "k"), ("k", "n"), ("n",)],  # three operands
    "ij->j": [("k", "n")],
    "ijk,jk->i": [("m", "k", "n"), ("k", "n")],
    "ii->": [("k", "k")],
    "i,j->ij": [("m",), ("n",)],  # no sum: one rounding of an exact product
}


def einsum_reference(subscripts: str, operands) -> tuple[np.ndarray, ...]:
    """(NumPy's float32 einsum rounded to float16, the exact value in float64, the ulp of
    float16 there, the bound A = 2 n u sum|products| of a float32 accumulation)."""
    wide = np.einsum(subscripts, *[x.astype(np.float32) for x in operands]).astype(F16)
    exact = np.einsum(subscripts, *[x.astype(np.float64) for x in operands])
    magnitudes = np.einsum(subscripts, *[np.abs(x.astype(np.float64)) for x in operands])
    inputs, output = subscripts.split("->")
    sizes: dict[str, int] = {}
    for labels, x in zip(inputs.split(","), operands, strict=True):
        sizes.update(zip(labels, x.shape, strict=True))
    terms = max(1, int(np.prod([n for label, n in sizes.items() if label not in output])))
    with np.errstate(all="ignore"):
        ulp = np.spacing(np.abs(exact).astype(F16)).astype(np.float64)
    return wide, exact, ulp, 2 * terms * 2.0**-24 * magnitudes


def check_einsum(subscripts: str, operands) -> None:
    def fn(*xs):
        return np.einsum(subscripts, *xs)

    compiled, eager = compiled_and_eager(fn, *operands)
    with np.errstate(all="ignore"):
        assert_bits_equal(eager, fn(*operands))
        wide, exact, ulp, accumulation = einsum_reference(subscripts, operands)
    compiled, wide = np.asarray(compiled), np.asarray(wide)
    assert compiled.dtype == F16 and compiled.shape == wide.shape
    np.testing.assert_array_equal(np.isnan(compiled), np.isnan(wide))
    finite = np.isfinite(wide) & np.isfinite(exact)
    with np.errstate(all="ignore"):  # inf - inf where both overflow
        error = np.abs(compiled.astype(np.float64) - exact)
        apart = np.abs(compiled.astype(np.float64) - wide.astype(np.float64))
    assert np.all(error[finite] <= (ulp + accumulation)[finite])
    near_numpy = (ulps_apart(compiled, wide) <= 1) | (apart <= ulp + 2 * accumulation)
    assert np.all(near_numpy[~np.isnan(wide)])


@pytest.mark.parametrize("subscripts", list(EINSUMS))
@settings(max_examples=12, deadline=None)
@given(data=st.data())
def test_einsum_sums_in_float32_and_rounds_once(subscripts, data):
    sizes = {"m": data.draw(SMALL_DIMS), "n": data.draw(SMALL_DIMS), "b": 2}
    sizes["k"] = data.draw(st.sampled_from([0, 1, 3, 64, 1000]))
    if subscripts in ("ii->", "ijk,jk->i"):
        sizes["k"] = min(sizes["k"], 64)  # square / cubed operands stay small
    shapes = [tuple(sizes[d] for d in dims) for dims in EINSUMS[subscripts]]
    operands = data.draw(float16_operands(shapes))
    check_einsum(subscripts, operands)


def test_a_label_summed_in_one_operand_is_summed_first():
    """NumPy sums k (B's alone) before multiplying: inf * (0 + 1), not inf * 0 + inf * 1."""
    a, b = np.array([[np.inf]], F16), np.array([[0.0, 1.0]], F16)
    check_einsum("ij,jk->i", [a, b])  # NumPy: [inf]; multiplying first: [nan]


@pytest.mark.parametrize("subscripts", ["ij,jk->ik", "ij,jk->i", "ij->j"])
def test_einsum_of_the_issue_is_far_closer_than_a_float16_sum(subscripts):
    rng = np.random.default_rng(35)
    shapes = [(8, 1000), (1000, 8)] if subscripts.count(",") else [(1000, 8)]
    check_einsum(subscripts, [rng.random(s).astype(F16) for s in shapes])


@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_outer_is_numpys_bit_for_bit(data):
    shapes = [(data.draw(SMALL_DIMS),), (data.draw(st.sampled_from([0, 1, 4, 300])),)]
    x, y = data.draw(float16_operands(shapes))
    check_like_numpy(outer, x, y)
