"""Set operations and orderings composed from staged operations: np.isin, np.setdiff1d,
np.intersect1d, np.union1d (their sizes the data's), np.partition, np.argpartition and
np.lexsort. Each is run compiled and eagerly (plain NumPy) and compared: values, dtypes and
shapes; and NumPy's errors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tracejit as tj
from tests.conftest import run_eagerly
from tests.numpy.test_array_manipulation import assert_bits, check, raises_both
from tracejit.frontend.numpy_api import set_operations

FLOATS = [np.nan, -0.0, 0.0, 1.0, -1.0, 2.5, np.inf, -np.inf]


# --- np.isin ------------------------------------------------------------------------------------
@settings(max_examples=6, deadline=None)
@given(
    element=hnp.arrays(
        st.sampled_from([np.int8, np.int64, np.float32]),
        hnp.array_shapes(min_dims=0, max_dims=2, max_side=4),
        elements=st.integers(-5, 5),
    ),
    tests=hnp.arrays(
        st.sampled_from([np.int16, np.float64, np.int32]),
        st.integers(0, 40),
        elements=st.integers(-5, 5),
    ),
    invert=st.booleans(),
)
def test_isin_of_mixed_dtypes_and_sizes(element, tests, invert):
    # more than BROADCAST_TESTS test elements are sorted and searched
    check(lambda e, t: np.isin(e, t, invert=invert), element, tests)


def test_isin_floats_sorted_and_broadcast_agree_with_numpy():
    e = np.array(FLOATS * 3, np.float32).reshape(4, 6)
    small, large = np.array([np.nan, 0.0, 2.5]), np.array(FLOATS[1:] * 5 + [7.0, np.nan])

    def membership(e, small, large):
        return (
            np.isin(e, small), np.isin(e, large), np.isin(e, large, invert=True),
            np.isin(e[0, 0], small), np.isin(e, large[:0]), np.isin(e, [1, 2.5], kind="sort"),
            np.isin(e[e > 0], large), np.isin(e, large[large > 0]),  # sizes the data's
        )  # fmt: skip

    check(membership, e, small, large)
    assert large.size > set_operations.BROADCAST_TESTS


def test_isin_errors():
    x = np.arange(3)
    raises_both(ValueError, lambda x: np.isin(x, [1], kind="hash"), x, match="Invalid kind")
    raises_both(ValueError, lambda x: np.isin(x * 1.5, [1], kind="table"), x, match="'table'")


# --- set operations -------------------------------------------------------------------------------
def test_set_operations_have_the_datas_sizes():
    def sets(a, b):
        return (
            np.setdiff1d(a, b), np.setdiff1d(b, a), np.setdiff1d(a, b, assume_unique=True),
            np.intersect1d(a, b), np.intersect1d(b, a), np.union1d(a, b),
            np.intersect1d(a, b, return_indices=True), np.union1d(a[a > 2], b[b < 4]),
            np.intersect1d(np.unique(a), np.unique(b), assume_unique=True, return_indices=True),
            np.setdiff1d(a[:0], b), np.intersect1d(a, b[:0]),
        )  # fmt: skip

    f = tj.function(sets)
    check(f, np.array([5, 1, 2, 3, 3, 9, 1], np.int32), np.array([[3, 4], [1, 1], [0, 7]]))
    check(f, np.array([8, 8, 8, 8, 8, 8, 8], np.int32), np.array([[3, 4], [1, 1], [0, 7]]))


def test_set_operations_of_floats_nan_and_signed_zeros():
    def sets(a, b):
        return np.setdiff1d(a, b), np.intersect1d(a, b), np.union1d(a, b)

    a = np.array([np.nan, 0.0, 1.5, np.nan, -np.inf, 3.0], np.float32)
    b = np.array([-0.0, np.nan, 3.0, 4.0])
    f = tj.function(sets)
    difference, common, union = f(a, b)
    expected = run_eagerly(f, a, b)
    assert_bits(difference, expected[0])
    # Which of 0.0 and -0.0 intersect1d and union1d keep is decided by NumPy's unstable sort,
    # which differs between CPUs: its AVX2 sort turns [0.0, -0.0] into [-0.0, -0.0], others
    # keep them in either order. So the zeros of these two are compared without their sign.
    for compiled, eager in zip((common, union), expected[1:], strict=True):
        assert compiled.dtype == eager.dtype
        np.testing.assert_array_equal(compiled, eager)  # NaN where NaN, 0.0 == -0.0


# --- orderings ------------------------------------------------------------------------------
def test_partition_is_the_sorted_order_a_valid_partition():
    x = np.array([[3.0, np.nan, -1.0, 2.0, 2.0, -0.0], [0.0, 5.0, 1.0, 1.0, -7.0, 4.0]])

    def partitions(x):
        return (
            np.partition(x, 2), np.partition(x, [0, -1], axis=0), np.partition(x, 3, axis=None),
            np.argpartition(x, 1), np.argpartition(x, (1, 4), axis=-1), np.partition(x[0, :0], 0),
        )  # fmt: skip

    f = tj.function(partitions)
    compiled, eager = f(x), run_eagerly(f, x)
    assert_bits(compiled[0], np.sort(x))  # documented: the sorted order
    assert_bits(compiled[3], np.argsort(x, kind="stable"))
    for c, e, axis in zip(compiled[:3], eager[:3], (-1, 0, None), strict=True):
        # the same partition as NumPy's: the same multisets (-0.0 and 0.0 in any order)
        np.testing.assert_array_equal(np.sort(c, axis=axis), np.sort(e, axis=axis))
    for kth, c, e in ((1, compiled[3], eager[3]), ((1, 4), compiled[4], eager[4])):
        picked = np.take_along_axis(x, c, -1)[:, kth], np.take_along_axis(x, e, -1)[:, kth]
        np.testing.assert_array_equal(*picked)  # the same k-th elements
    assert_bits(compiled[5], eager[5])


def test_partition_kth_errors():
    x = np.arange(5.0)
    raises_both(ValueError, lambda x: np.partition(x, 5), x, match=r"kth\(=5\) out of bounds")
    raises_both(ValueError, lambda x: np.argpartition(x, -6), x, match="out of bounds")
    raises_both(ValueError, lambda x: np.partition(x, True), x, match="Booleans")
    raises_both(TypeError, lambda x: np.partition(x, 1.0), x, match="must be integer")
    raises_both(ValueError, lambda x: np.partition(x, 1, kind="quick"), x, match="introselect")
    raises_both(np.exceptions.AxisError, lambda x: np.partition(x, 1, axis=1), x)


@settings(max_examples=4, deadline=None)
@given(
    keys=st.integers(1, 3).flatmap(
        lambda k: st.tuples(*[hnp.arrays(np.int8, 12, elements=st.integers(0, 2))] * k)
    ),
)
def test_lexsort_last_key_primary_ties_stable(keys):
    check(lambda *keys: np.lexsort(keys), *keys)


def test_lexsort_of_floats_2d_keys_and_axes():
    a = np.array([[1.0, np.nan, 1.0, -0.0], [0.0, 2.0, np.nan, 0.0]])
    b = np.array([[2, 1, 1, 2], [1, 1, 2, 2]], np.uint8)

    def orders(a, b, stacked):
        return (
            np.lexsort((a, b)), np.lexsort((b, a), axis=0), np.lexsort(stacked),
            np.lexsort((a[0],)), np.lexsort([b[0], a[0]]),
        )  # fmt: skip

    check(orders, a, b, np.stack([a[0], b[0].astype(np.float64)]))
    raises_both(ValueError, lambda a: np.lexsort((a, a[0])), a, match="same shape")
    raises_both(TypeError, lambda a: np.lexsort(()), a, match="len > 0")


def test_refusals_name_the_form():
    x = np.arange(6.0)
    with pytest.raises(NotImplementedError, match="kth known only at run time"):
        tj.function(lambda x, k: np.partition(x, k))(x, np.int64(2))
    with pytest.raises(NotImplementedError, match="sections known only at run time"):
        tj.function(lambda x, k: np.split(x, k))(x, np.int64(2))
