"""`z[m] = f(z[m], c[m], ...)`: a masked update of an element-wise expression, compiled as
the expression on the whole arrays and a select by the mask
(passes/canonicalize/masked_update.py), against eager NumPy; the compiled module has no
scatter left."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tracejit as tj

DTYPES = [np.float32, np.float64, np.int32, np.int64, np.uint8, np.complex64]


def run_both(fn, *args):
    """The compiled result and the eager one (NumPy's)."""
    f = tj.function(fn)
    got = f(*[a.copy() for a in args])
    tj.config.run_functions_eagerly(True)
    try:
        with np.errstate(all="ignore"):  # NumPy warns of the // and % by zero it computes
            want = f(*[a.copy() for a in args])
    finally:
        tj.config.run_functions_eagerly(False)
    return f, got, want


def assert_same(got, want) -> None:
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


def scatters(f, *args) -> int:
    return str(f.get_concrete_function(*args).ir(after="cse")).count("tj.scatter")


def square_plus(z, c):
    inside = np.abs(z) <= 2
    z[inside] = z[inside] * z[inside] + c[inside]
    return z


def from_other(x, y):
    x[y > 0] = y[y > 0] - x[y > 0]
    return x


def divide_where_nonzero(x, d):
    x[d != 0] = x[d != 0] // d[d != 0]
    return x


def divide_anywhere(x, d):
    """The expression also runs where the mask is false: // by 0 there must not fail."""
    x[x > 1] = x[x > 1] // d[x > 1] + x[x > 1] % d[x > 1]
    return x


def cast_and_scale(x, y):
    x[y < 1] = (y[y < 1] * 3).astype(x.dtype)
    return x


def arrays(dtypes):
    """Two arrays of one shape and one dtype of `dtypes`."""
    return st.sampled_from(dtypes).flatmap(
        lambda dtype: st.tuples(
            *[hnp.arrays(dtype, st.shared(hnp.array_shapes(min_dims=1, max_dims=3, max_side=6),
                                          key="shape"),
                         elements=hnp.from_dtype(np.dtype(dtype), allow_nan=False,
                                                 allow_infinity=False, max_value=50,
                                                 min_value=-50)
                         if np.dtype(dtype).kind in "fi" else None)
              for _ in range(2)]
        )
    )  # fmt: skip


INTEGERS = [d for d in DTYPES if np.dtype(d).kind in "iu"]
CASES = [(square_plus, DTYPES), (from_other, DTYPES), (cast_and_scale, DTYPES),
         (divide_where_nonzero, INTEGERS), (divide_anywhere, INTEGERS)]  # fmt: skip


@pytest.mark.parametrize(("fn", "dtypes"), CASES, ids=[fn.__name__ for fn, _ in CASES])
@settings(max_examples=12, deadline=None)
@given(data=st.data())
def test_masked_updates_match_numpy(fn, dtypes, data):
    x, y = data.draw(arrays(dtypes))
    f, got, want = run_both(fn, x, y)
    assert_same(got, want)
    assert scatters(f, x, y) == 0, fn.__name__


def test_mandelbrot_masks():
    y, x = np.mgrid[-1.2:1.2:40j, -2.0:0.8:60j]
    c = x + 1j * y

    def escape_counts(c):
        z = np.zeros_like(c)
        counts = np.zeros(c.shape, np.int64)
        for _ in range(30):
            inside = np.abs(z) <= 2.0
            z[inside] = z[inside] * z[inside] + c[inside]
            counts += inside
        return counts

    f, got, want = run_both(escape_counts, c)
    assert_same(got, want)
    assert scatters(f, c) == 0


def test_updates_that_need_the_positions_keep_the_scatter():
    """Values from elsewhere (a tensor as long as the count), and another mask's elements."""

    def counted(x):
        m = x > 0
        x[m] = np.cumsum(x[m])
        return x

    def other_mask(x, y):
        x[x > 0] = y[y > 0]
        return x

    x = np.array([1.0, -2.0, 3.0, 4.0, -5.0], np.float32)
    y = np.array([-1.0, 2.0, 3.0, -4.0, 5.0], np.float32)
    f, got, want = run_both(counted, x)
    assert_same(got, want)
    assert scatters(f, x) == 1
    f, got, want = run_both(other_mask, x, y)
    assert_same(got, want)
    assert scatters(f, x, y) == 1
