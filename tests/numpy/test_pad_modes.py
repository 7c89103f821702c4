"""np.pad in every mode but a function: 'edge', 'wrap', 'reflect' and 'symmetric' (even and
odd), 'linear_ramp', 'maximum', 'minimum', 'mean', 'median' and 'empty'. Each is run compiled
and eagerly (plain NumPy) and compared bit for bit (NaNs where NumPy has them, zeros with
NumPy's sign): dtypes, ranks 1-3, pad widths of 0, small, beyond the axis (NumPy reflects and
wraps again and again) and asymmetric. The tj.Functions are built once, so the examples of
one dtype reuse one trace."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tracejit as tj
from tests.conftest import assert_same, run_eagerly
from tests.gradient_checks import check_gradient

DTYPES = [
    np.bool_,
    np.int8,
    np.int64,
    np.uint8,
    np.float16,
    np.float32,
    np.float64,
    np.complex128,
]

# the inputs: one array of each rank
SHAPES = [(5,), (3, 4), (2, 3, 2)]
# (mode, options, rank of the input, pad width): widths of 0, small, beyond the axis (NumPy
# reflects and wraps again and again) and asymmetric
COPIES = [
    ("edge", {}, 1, (12, 7)),
    ("edge", {}, 3, ((0, 5), (2, 0), (4, 3))),
    ("wrap", {}, 2, ((7, 2), (9, 13))),
    ("reflect", {}, 1, (12, 7)),
    ("reflect", {}, 3, ((0, 5), (2, 0), (4, 3))),
    ("symmetric", {}, 2, ((7, 2), (9, 13))),
    ("reflect", {"reflect_type": "odd"}, 1, (12, 7)),
    ("reflect", {"reflect_type": "odd"}, 2, ((1, 0), (0, 2))),
    ("symmetric", {"reflect_type": "odd"}, 1, (3, 9)),
    ("symmetric", {"reflect_type": "odd"}, 3, ((0, 1), (2, 0), (0, 3))),
]
RAMPS = [
    ("linear_ramp", {}, 1, (12, 7)),
    ("linear_ramp", {"end_values": (5, 2)}, 2, ((1, 0), (0, 2))),  # NumPy scalars: strong
    ("linear_ramp", {"end_values": ((1.75, 0.5), (2, 3))}, 2, ((3, 0), (0, 2))),  # weak
    ("linear_ramp", {"end_values": 3.5}, 3, ((0, 1), (2, 0), (0, 3))),
]
STATISTICS = [
    ("maximum", {}, 1, (3, 2)),
    ("minimum", {"stat_length": (1, 2)}, 2, ((2, 0), (1, 3))),
    ("mean", {"stat_length": ((2, 1), (3, 9), (1, 2))}, 3, ((1, 1), (0, 2), (3, 1))),
    ("mean", {}, 1, (0, 4)),
    ("median", {"stat_length": 2}, 2, ((1, 0), (0, 2))),
]


def padded(table):
    """One tj.Function padding the arrays of each rank as the table says (one trace a dtype)."""

    def pads(*arrays):
        return tuple(
            np.pad(arrays[rank - 1], width, mode, **options) for mode, options, rank, width in table
        )

    return tj.function(pads)


def same_bits(compiled, eager) -> None:
    """Same types, dtypes, shapes and values; floats to the bit but NaN payloads."""
    assert_same(compiled, eager, rtol=0.0)
    if isinstance(eager, tuple):
        for c, e in zip(compiled, eager, strict=True):
            same_bits(c, e)
        return
    c, e = np.asarray(compiled), np.asarray(eager)
    if e.dtype.kind in "fc":
        parts = (np.real(c), np.real(e)), (np.imag(c), np.imag(e))
        for cp, ep in parts if e.dtype.kind == "c" else parts[:1]:
            nan = np.isnan(ep)
            np.testing.assert_array_equal(np.isnan(cp), nan)
            np.testing.assert_array_equal(np.signbit(cp[~nan]), np.signbit(ep[~nan]))


def check(f, *args) -> tuple:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's mean of no values
        expected = run_eagerly(f, *args)
        same_bits(f(*args), expected)
    return expected


def inputs(dtype, whole: bool = False) -> list[np.ndarray]:
    """An array of each rank of small values (for floats: fractional unless `whole`; with a
    -0.0), as `dtype`."""
    rng = np.random.default_rng(7)
    arrays = []
    for shape in SHAPES:
        if dtype == np.bool_:
            x = rng.integers(0, 2, shape).astype(bool)
        elif np.issubdtype(dtype, np.integer):
            low = 0 if np.issubdtype(dtype, np.unsignedinteger) else -60
            x = rng.integers(low, 60, shape).astype(dtype)
        else:
            x = (rng.standard_normal(shape) * 7).astype(dtype)
            if dtype == np.complex128:
                x = x + 1j * rng.standard_normal(shape)
            if whole:
                x = np.round(x)
            x.flat[0] = -0.0
        arrays.append(x)
    return arrays


PADDED = {"copies": padded(COPIES), "ramps": padded(RAMPS), "statistics": padded(STATISTICS)}
COMPLEX_MEANS = padded([entry for entry in STATISTICS if entry[0] == "mean"])


@pytest.mark.filterwarnings("ignore::tracejit.RetracingWarning")  # a trace a dtype
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("modes", PADDED)
def test_every_mode_is_numpys_bit_for_bit(modes, dtype):
    """Odd reflections, ramps and statistics compute as NumPy: `2 * edge - chunk` (bools in
    int64), np.linspace's operations in its dtype (a Python float end keeps float16 and
    float32, a NumPy one makes them float64) floored for integer dtypes, statistics rounded
    half to even for integer dtypes and stored as NumPy stores them (a bool mean of not 0 is
    True). Statistics of whole numbers: their sums are exact in any order (NumPy sums
    pairwise, tracejit may not)."""
    if modes == "statistics" and dtype == np.complex128:
        # NumPy orders complex numbers lexicographically for max, min and median
        with pytest.raises(NotImplementedError, match="of complex numbers"):
            PADDED[modes](*inputs(dtype))
        check(COMPLEX_MEANS, *inputs(dtype, whole=True))
        return
    check(PADDED[modes], *inputs(dtype, whole=modes == "statistics"))


def test_edge_reflect_and_wrap_of_a_small_image():
    image = np.arange(12, dtype=np.float32).reshape(3, 4)

    def pads(x):
        return (
            np.pad(x, 1, "edge"),
            np.pad(x, 2, mode="reflect"),
            np.pad(x, ((2, 1), (1, 3)), mode="symmetric"),
            np.pad(x, (4, 5), "wrap"),
        )

    edge, reflect, symmetric, wrap = check(tj.function(pads), image)
    assert edge[0, 0] == 0 and edge[-1, -1] == 11  # the corners from the padded rows
    assert reflect[0, 2] == 8 and wrap[0, 4] == 8 and symmetric[0, 1] == 4


def test_odd_reflections_beyond_the_axis_reflect_the_reflections():
    x = np.array([1.5, 2.25, -3.0, 7.0])
    f = tj.function(
        lambda x: (
            np.pad(x, (11, 14), "reflect", reflect_type="odd"),
            np.pad(x[:2], (9, 6), "symmetric", reflect_type="odd"),
        )
    )
    reflect, symmetric = check(f, x)
    assert reflect[11 + 4] == 2 * 7.0 - (-3.0)


def test_a_single_element_reflects_as_edge_and_wraps_onto_itself():
    def pads(x):
        return (
            np.pad(x, ((2, 3), (0, 0)), "reflect", reflect_type="odd"),
            np.pad(x, ((1, 4), (2, 1)), "symmetric"),
            np.pad(x, ((3, 2), (1, 0)), "wrap"),
        )

    check(tj.function(pads), np.array([[1, -2, 3]], np.int64))


# --- linear ramps and statistics ---------------------------------------------------------------
def test_linear_ramps_with_end_values_per_axis_and_flat_edges():
    """One pair per axis (Python numbers, weak); an edge equal to its end value makes a zero
    step, after which NumPy computes every ramp of the side as k / width * delta."""

    def ramps(x, y):
        return (
            np.pad(x, ((2, 1), (3, 4), (0, 2)), "linear_ramp", end_values=((1, 2), (3, 4), (5, 6))),
            np.pad(y, 3, "linear_ramp", end_values=((0.1, 2.0), (-3.0, 0.3))),
            np.pad(y, (5, 2), "linear_ramp", end_values=1.0),
        )

    x = np.arange(12, dtype=np.int8).reshape(2, 3, 2)
    y = np.array([[1.0, 0.1, 7.0], [-2.5, 1.0, 3.25]], np.float32)
    check(tj.function(ramps), x, y)


STATS_OF_FLOATS = tj.function(
    lambda x: (
        np.pad(x, 2, "maximum"),
        np.pad(x, (1, 3), "minimum", stat_length=2),
        np.pad(x, ((0, 2), (3, 0)), "median", stat_length=(3, 1)),
        np.pad(x, 3, "mean", stat_length=(5, 2)),
    )
)


@settings(max_examples=8, deadline=None)
@given(
    x=hnp.arrays(
        np.float64,
        (3, 4),
        elements=st.one_of(st.floats(-1e3, 1e3), st.sampled_from([np.nan, np.inf, -0.0])),
    )
)
def test_statistics_of_any_floats(x):
    """NaN spreads as in NumPy; means within the roundings of another summation order."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        expected = run_eagerly(STATS_OF_FLOATS, x)
        compiled = STATS_OF_FLOATS(x)
    same_bits(compiled[:3], expected[:3])
    assert_same(compiled[3], expected[3], rtol=1e-12, atol=1e-9)


def test_stat_lengths_are_rounded_clipped_and_zero_gives_nan_means():
    def pads(x, y):
        return (
            np.pad(x, ((1, 2), (2, 1)), "mean", stat_length=2.6),  # rounded to 3
            np.pad(x, 2, "median", stat_length=((100, 1), (2, 100))),  # at most the axis
            np.pad(y, (2, 1), "mean", stat_length=0),  # NaN, as NumPy's mean of nothing
            np.pad(y, ((0, 0), (0, 3)), "median", stat_length=(0, 2)),
        )

    x = np.arange(20, dtype=np.int64).reshape(4, 5) ** 2
    y = np.array([[1.0, 2.0], [3.0, 5.0]], np.float32)
    check(tj.function(pads), x, y)


# --- the rest: 'empty', empty arrays, 0-d arrays, pad_width forms, errors -------------------------
def test_empty_pads_with_anything_around_the_array():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    result = tj.function(lambda x: np.pad(x, ((1, 2), (3, 0)), "empty"))(x)
    expected = np.pad(x, ((1, 2), (3, 0)), "empty")
    assert result.dtype == expected.dtype and result.shape == expected.shape
    np.testing.assert_array_equal(result[1:3, 3:], x)


def test_arrays_without_elements_and_0d_arrays_as_numpy():
    def pads(e, s):
        return (
            np.pad(e, ((0, 0), (1, 2)), "edge"),
            np.pad(e, ((0, 0), (3, 0)), "mean"),
            np.pad(e, ((2, 0), (1, 1)), "empty"),
            np.pad(s, 3, "reflect"),
        )

    check(tj.function(pads), np.zeros((0, 3), np.int8), np.float32(2.5))


def numpy_takes_dicts() -> bool:
    try:
        np.pad(np.zeros(1), {0: 1})
    except (TypeError, ValueError):
        return False
    return True


def test_pad_width_forms():
    """An int, (width,), (before, after), one pair per axis, ((before, after),) and (as
    NumPy 2.3) a dict."""
    dicts = numpy_takes_dicts()

    def pads(x):
        forms = (
            np.pad(x, 2, "wrap"),
            np.pad(x, (3,), "symmetric"),
            np.pad(x, (1, 4), "edge"),
            np.pad(x, [[0, 1], [5, 2]], "reflect"),
            np.pad(x, ((2, 3),), "minimum"),
        )
        if not dicts:
            return forms
        return (
            *forms,
            np.pad(x, {1: (2, 0), 0: 1}, "maximum"),
            np.pad(x, {-1: 3}, "linear_ramp", end_values=-1),
        )

    check(tj.function(pads), np.arange(6, dtype=np.int64).reshape(2, 3))


@pytest.mark.parametrize(
    ("pad", "error", "match"),
    [
        (lambda x: np.pad(x, 1, "nearest"), ValueError, "mode 'nearest' is not supported"),
        (lambda x: np.pad(x, 1, "edge", constant_values=0), ValueError, "unsupported keyword"),
        (lambda x: np.pad(x, 1, "reflect", stat_length=2), ValueError, "unsupported keyword"),
        (lambda x: np.pad(x, 1, "maximum", stat_length=0), ValueError, "stat_length of 0"),
        (lambda x: np.pad(x, 1, "minimum", stat_length=((1, 1), (0, 2))), ValueError, "of 0"),
        (lambda x: np.pad(x, (1, -1), "wrap"), ValueError, "negative"),
        (lambda x: np.pad(x, 1.5, "edge"), TypeError, "integral"),
        (lambda x: np.pad(x[:0], 1, "edge"), ValueError, "can't extend empty axis 0"),
        (lambda x: np.pad(x, 1, lambda v, w, a, k: None), NotImplementedError, "function"),
    ],
)
def test_bad_arguments_raise_as_numpy_at_the_user_line(pad, error, match):
    x = np.ones((2, 3), np.float32)
    with pytest.raises(error, match=match) as info:
        tj.function(pad)(x)
    assert "test_pad_modes.py:" in str(info.value)
    if error is not NotImplementedError:
        with pytest.raises(error):
            pad(x)


def test_dims_unknown_at_trace_time_are_refused():
    def reflected(x):
        return np.pad(x, 2, "reflect")

    f = tj.function(reflected, input_signature=[tj.TensorSpec([None, 3], np.float64)])
    with pytest.raises(NotImplementedError, match=r"np.pad on a tensor with unknown \(None\) dims"):
        f(np.ones((4, 3)))


def test_padding_by_nothing_gives_a_new_array():
    def f(x):
        y = np.pad(x, 0, "edge")
        z = np.pad(x, ((0, 0), (0, 0)), "mean")
        y[0] = 7
        z[1] += 1
        return y, z, x

    x = np.arange(6, dtype=np.uint8).reshape(2, 3)
    compiled_x = x.copy()
    same_bits(tj.function(f)(compiled_x), run_eagerly(tj.function(f), x.copy()))
    np.testing.assert_array_equal(compiled_x, x)


def test_gradients_flow_through_copies_reflections_ramps_and_means():
    weights = np.random.default_rng(1).standard_normal((9, 10))

    def f(x):
        return weights * (
            np.pad(x, 3, "edge")
            + np.pad(x, ((5, 1), (3, 3)), "symmetric", reflect_type="odd")
            + np.pad(x, 3, "linear_ramp", end_values=1.0)
            + np.pad(x, 3, "mean", stat_length=2)
        )

    check_gradient(f, np.random.default_rng(0).standard_normal((3, 4)))


# --- values of any kind ----------------------------------------------------------------------
ANY_VALUES = tj.function(
    lambda x: (
        np.pad(x, ((3, 1), (0, 6)), "reflect", reflect_type="odd"),
        np.pad(x, ((5, 0), (2, 2)), "symmetric", reflect_type="odd"),
        np.pad(x, (4, 3), "linear_ramp", end_values=(-2.5, 1e30)),
        np.pad(x, 5, "wrap"),
    )
)


@settings(max_examples=10, deadline=None)
@given(
    x=st.sampled_from([np.float16, np.float64]).flatmap(
        lambda dtype: hnp.arrays(
            dtype,
            (2, 3),
            elements=st.one_of(
                st.floats(-1e4, 1e4, width=16), st.sampled_from([np.inf, -np.inf, np.nan, -0.0])
            ),
        )
    )
)
def test_any_float_values_pad_as_numpy_bit_for_bit(x):
    """Infinities, NaN and signed zeros through odd reflections and ramps."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        same_bits(ANY_VALUES(x), run_eagerly(ANY_VALUES, x))
