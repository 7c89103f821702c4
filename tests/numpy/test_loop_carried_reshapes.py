"""Arrays a staged loop writes through a reshape (`N[rows, cols] = v` is a scatter into
the raveled N; `M.ravel()[k] = v`): canonicalize carries them in the reshaped form
(passes/canonicalize/control_flow.py, `WhileCarriesReshaped`), so no trip copies the whole
array to ravel it and back. Compiled vs eager NumPy; the canonical IR has no reshape left
in the loop body.
"""

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tracejit as tj
from tests.conftest import assert_same, run_eagerly


def escape_times(c):
    """Each point's escape trip, written at its grid position by two index arrays."""
    rows, cols = np.indices(c.shape)
    rows, cols, z, c = rows.ravel(), cols.ravel(), np.zeros(c.size, c.dtype), c.ravel()
    times = np.zeros((rows.size and rows.max() + 1, cols.size and cols.max() + 1), np.int64)
    for i in range(12):
        z = z * z + c
        out = np.abs(z) > 2
        times[rows[out], cols[out]] = i + 1
        keep = ~out
        z, c, rows, cols = z[keep], c[keep], rows[keep], cols[keep]
    return times


def escape_times_until_none_left(c):
    """The same with NPBench's `break` once no point is left (the body is staged under
    an if: canonicalize's `IfYieldsReshaped`)."""
    rows, cols = np.indices(c.shape)
    rows, cols, z, c = rows.ravel(), cols.ravel(), np.zeros(c.size, c.dtype), c.ravel()
    times = np.zeros((rows.size and rows.max() + 1, cols.size and cols.max() + 1), np.int64)
    for i in range(40):
        if not len(z):
            break
        z = z * z + c
        out = np.abs(z) > 2
        times[rows[out], cols[out]] = i + 1
        keep = ~out
        z, c, rows, cols = z[keep], c[keep], rows[keep], cols[keep]
    return times


def raveled_writes(m, k):
    for i in tj.range(k.size):
        m.ravel()[k[i]] += i + 1
    return m


def _body_reshapes(function, *args, shape: str) -> int:
    """The reshapes from or to `shape` (`3x4`) in the canonical IR's loop body."""
    ir = tj.function(function).get_concrete_function(*args).ir(after="canonicalize")
    body = ir[ir.index("tj.while") :]
    body = body[: body.rindex("tj.yield")]
    return len(re.findall(rf"tj\.reshape .*tensor<{shape}x", body))


@settings(max_examples=5, deadline=None)
@given(rows=st.integers(1, 9), cols=st.integers(1, 9), seed=st.integers(0, 2**16))
def test_a_scatter_by_two_index_arrays_in_a_loop(rows, cols, seed):
    rng = np.random.default_rng(seed)
    c = rng.uniform(-2, 0.6, (rows, cols)) + 1j * rng.uniform(-1.2, 1.2, (rows, cols))
    f = tj.function(escape_times)
    assert_same(f(c), run_eagerly(f, c))


def test_the_loop_carries_the_raveled_array():
    c = np.zeros((4, 5), np.complex128)
    assert _body_reshapes(escape_times, c, shape="4x5") == 0
    assert _body_reshapes(escape_times_until_none_left, c, shape="4x5") == 0


@pytest.mark.parametrize("far", [False, True])
def test_a_loop_with_a_break_once_every_point_escaped(far):
    c = np.linspace(-2.2, 0.7, 24).reshape(4, 6) + 0.3j + (5.0 if far else 0.0)
    f = tj.function(escape_times_until_none_left)
    assert_same(f(c), run_eagerly(f, c))


@pytest.mark.parametrize("dtype", [np.int32, np.float64])
def test_writes_through_ravel_in_a_loop(dtype):
    m = np.arange(12, dtype=dtype).reshape(3, 4)
    k = np.array([0, 5, 11, 5, -1])
    f = tj.function(raveled_writes)
    assert_same(f(m.copy(), k), raveled_writes(m.copy(), k))
    assert _body_reshapes(raveled_writes, m.copy(), k, shape="3x4") == 0


def test_a_value_also_read_in_its_own_shape_keeps_it():
    def mixed(m, n):
        for _ in tj.range(n):
            m = (m.ravel() * 2).reshape(m.shape) + m[:, :1]
        return m

    m = np.arange(6.0).reshape(2, 3)
    f = tj.function(mixed)
    assert_same(f(m, np.int64(3)), run_eagerly(f, m, np.int64(3)))
