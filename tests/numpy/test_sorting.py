"""`np.sort` / `np.argsort`, compiled vs eager NumPy.

tracejit sorts stably, so `np.argsort` is compared with `np.argsort(..., kind="stable")`
(the traced functions below ask for kind="stable", which eager NumPy honours and tracejit
accepts); the sorted values are the same whatever the kind. Values are drawn with many
ties, signed zeros, infinities and NaNs, which is where a sort goes wrong.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tracejit as tj
from tests.conftest import REAL_DTYPES, assert_same, run_eagerly

pytestmark = pytest.mark.filterwarnings("ignore::tracejit.RetracingWarning")  # new shapes

DTYPES = REAL_DTYPES
shapes = hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=6)
FLOATS = [-np.inf, -2.5, -1.0, -0.0, 0.0, 1.0, 3.0, np.inf, np.nan]


def elements(dtype):
    """Few distinct values (many ties), the extremes of integer dtypes included."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return st.sampled_from(FLOATS)
    if dtype.kind == "b":
        return st.booleans()
    info = np.iinfo(dtype)
    return st.sampled_from([info.min, info.min + 1, 0, 1, 2, info.max - 1, info.max])


@tj.function
def sorts(x, axis):
    return {
        "sort": np.sort(x, axis=axis),
        "argsort": np.argsort(x, axis=axis, kind="stable"),
    }


def check(function, *args):
    compiled = function(*args)
    assert_same(compiled, run_eagerly(function, *args), rtol=0)
    return compiled


@settings(max_examples=60, deadline=None)
@given(data=st.data(), dtype=st.sampled_from(DTYPES), shape=shapes)
def test_sort_and_stable_argsort_match_numpy(data, dtype, shape):
    x = data.draw(hnp.arrays(dtype, shape, elements=elements(dtype)), label="x")
    axes = [None] + list(range(-len(shape), len(shape)))
    check(sorts, x, data.draw(st.sampled_from(axes), label="axis"))


def test_default_kind_gives_the_stable_order():
    @tj.function
    def f(x):
        return np.argsort(x), np.argsort(x, kind="quicksort"), np.sort(x, kind="heapsort")

    x = np.array([3, 1, 3, 1, 2, 3, 1], np.int16)
    by_default, quick, values = f(x)
    stable = np.argsort(x, kind="stable")
    np.testing.assert_array_equal(by_default, stable)
    np.testing.assert_array_equal(quick, stable)
    np.testing.assert_array_equal(values, np.sort(x))


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.uint16])
def test_large_inputs(dtype):
    """1e5 elements (17 merge passes), a 2-D sort along a strided axis, a strided input."""
    rng = np.random.default_rng(0)
    x = (rng.standard_normal(100_000) * 1000).astype(dtype)
    check(sorts, x, 0)
    check(sorts, x.reshape(200, 500), 0)
    check(sorts, x.reshape(500, 200)[::2, ::-3], 1)  # a strided view as the input


def test_lengths_around_powers_of_two():
    """One kernel for every length (the length is read at run time)."""

    @tj.function(input_signature=(tj.TensorSpec([2, None], np.int32),))
    def f(x):
        return np.sort(x, axis=-1), np.argsort(x, axis=1, kind="stable")

    rng = np.random.default_rng(1)
    for n in (1, 2, 3, 7, 8, 9, 31, 33, 64, 65, 1000):
        x = rng.integers(-5, 5, (2, n)).astype(np.int32)
        assert_same(f(x), run_eagerly(f, x), rtol=0)


def test_no_access_leaves_its_buffers(monkeypatch):
    """Every load and store range-checked (a merge past the end of a run would fail)."""
    monkeypatch.setenv("TRACEJIT_CHECK_BOUNDS", "1")
    f = tj.function(lambda x: (np.sort(x, axis=0), np.argsort(x, axis=1)))
    rng = np.random.default_rng(2)
    for shape in [(0, 3), (1, 1), (5, 3), (17, 9)]:
        x = rng.standard_normal(shape)
        sorted_rows, positions = f(x)
        np.testing.assert_array_equal(sorted_rows, np.sort(x, axis=0))
        np.testing.assert_array_equal(positions, np.argsort(x, axis=1, kind="stable"))


def test_dims_unknown_at_trace_time():
    @tj.function(input_signature=(tj.TensorSpec([None, 4], np.float64),))
    def f(x):
        return np.sort(x, axis=0), np.argsort(x, axis=0, kind="stable"), np.sort(x, axis=None)

    rng = np.random.default_rng(3)
    for n in (0, 1, 6):
        x = rng.integers(0, 3, (n, 4)).astype(np.float64)
        assert_same(f(x), run_eagerly(f, x), rtol=0)
    assert f.experimental_get_tracing_count() == 1


def test_sorted_constants_fold():
    f = tj.function(lambda: np.argsort(np.array([2.0, np.nan, -1.0, 2.0])) + 0)
    assert_same(f(), np.argsort(np.array([2.0, np.nan, -1.0, 2.0]), kind="stable"))
    assert "tj.sort" not in str(f.get_concrete_function().ir(after="canonicalize"))


def test_errors_are_numpys():
    with pytest.raises(np.exceptions.AxisError, match="axis -1 is out of bounds"):
        tj.function(lambda x: np.sort(x))(np.float32(1))
    assert_same(tj.function(lambda x: np.sort(x, axis=None))(np.float32(1)), np.ones(1, np.float32))
    with pytest.raises(ValueError, match="sort kind must be one of"):
        tj.function(lambda x: np.sort(x, kind="bubble"))(np.ones(3))
    with pytest.raises(TypeError, match=r"np.argsort\(..., order=...\)"):
        tj.function(lambda x: np.argsort(x, order="a"))(np.ones(3))


def test_in_place_ndarray_sort_is_refused():
    f = tj.function(lambda x: x.sort())
    with pytest.raises(AttributeError, match=r"ndarray.sort is not supported.*np.sort\(t"):
        f(np.ones(3))


def test_inside_staged_loops_and_branches():
    """The scans, sorts and rolls bufferize inside scf regions (temporaries freed there)."""

    @tj.function
    def f(x, n):
        acc = np.zeros_like(x)
        for i in range(n):
            acc = np.sort(acc + np.roll(x, i)) + np.cumsum(x)
            if np.sum(acc) > 10:
                acc = np.array([acc[0], acc[1], 1.0, acc[2]]).astype(x.dtype)
        return acc, np.argsort(acc)

    x = np.array([3.0, -1.0, 2.0, 0.5])
    for n in (0, 1, 3):
        assert_same(f(x, np.int64(n)), run_eagerly(f, x, np.int64(n)), rtol=0)
