"""Arrays made inside the function from Python values (np.eye, np.arange, np.array of a list,
np.ndarray, np.linspace, np.tri, ...) and then written with a traced value become traced
arrays; tuple-unpacking assignment into items works. An array something else also refers
to (another name, a view, a global) is refused: a traced copy would not be seen there."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tracejit as tj
from tests.conftest import assert_same, run_eagerly

TABLE = np.zeros(3)


def eye_written(x):
    E = np.eye(3)
    E[0, 0] = x[0]
    E[1], E[2, 2] = x[1], x[2]
    return E


def ndarray_rows(x):
    K = np.ndarray((2, 3))
    K[0], K[1] = x[:3], x[3:6]
    return K


def arange_item(x):
    a = np.arange(5.0)
    a[2] = x.sum()
    return a


def list_array(x):
    a = np.array([1.0, 2.0, 3.0])
    a[1] = x[0]
    return a


def reshaped(x):
    a = np.arange(6.0).reshape(2, 3)
    a[1, 1:] = x[:2]
    return a


def swapped(x):
    a = np.linspace(0, 1, 4)
    i = 0
    a[i], i = x[2], 3  # Python assigns a[0] first, then i
    a[i], a[1] = x[1], x[0]
    return a


def in_a_loop(x):
    T = np.tri(12)
    for i in range(12):  # long: a staged loop
        T[i, 0] = x[i % 6] * 2
    return T


def int_identity(x):
    eye = np.identity(3, dtype=np.int64)
    eye[0, 1] = x.astype(np.int64)[0]
    return eye


def full_and_unpacked(x):
    KE, PE = np.full(2, 7.0), np.full(2, 9.0)
    KE[0], PE[0] = x[0] * 0.5, x[1] ** 2
    return KE, PE


def list_array_updated(x):
    r = np.array([1.0, 2.0, 3.0])
    r += x[:3]  # NumPy adds in place: the array becomes a traced one first
    return r


def eye_scaled(x):
    E = np.eye(3)
    E *= x[0]
    E[1, 1] -= x[1]
    return E


def zero_d_updated(x):
    r = np.array(2.0)
    r -= x[1]
    r **= 2
    return r


def int_updated(x):
    c = np.arange(6)
    c //= (x.astype(np.int64) % 3 + 1)
    c %= 4
    return c


def accumulated_in_a_loop(x):
    acc = np.zeros(3)
    for i in range(12):  # long: a staged loop
        acc += x[i % 4 : i % 4 + 3]
    return acc


def items_updated(x):
    E = np.eye(3)
    E[0] += x[:3]  # NumPy: t = E[0]; t += x[:3] (in place); E[0] = t
    E[1, 1] *= x[3]
    E[2, :2] -= x[4:6]
    return E


def items_updated_in_a_loop(x):
    counts = np.zeros(4)
    for i in range(12):  # long: a staged loop, a traced index
        counts[i % 4] += x[i % 6]
    return counts


def literal_update_at_traced_index(x):
    z = np.array([[0.5, -7.0, 0.0, 100.0]])
    z[:, -1 - np.argmax(x) % 4] /= 3  # a literal value at a traced index (test_fuzz_5e8e57bb25)
    z[0, 1:] -= 1  # literal value and index: Python's statement
    return z


KERNELS = [eye_written, ndarray_rows, arange_item, list_array, reshaped, swapped, in_a_loop,
           int_identity, full_and_unpacked, list_array_updated, eye_scaled, zero_d_updated,
           int_updated, accumulated_in_a_loop, items_updated, items_updated_in_a_loop,
           literal_update_at_traced_index]  # fmt: skip
KERNEL_FUNCTIONS = {kernel: tj.function(kernel) for kernel in KERNELS}


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.__name__)
@settings(max_examples=5, deadline=None)
@given(values=st.lists(st.floats(-100, 100), min_size=6, max_size=6))
def test_a_written_constant_array_becomes_a_traced_array(kernel, values):
    x = np.array(values)
    f = KERNEL_FUNCTIONS[kernel]  # one trace serves every example's values
    assert_same(f(x), run_eagerly(f, x))


def aliased(x):
    a = np.arange(3.0)
    b = a
    a[0] = x[0]
    return b


def viewed(x):
    a = np.arange(4.0)
    v = a[1:]
    a[1] = x[0]
    return v


def in_a_list(x):
    a = np.arange(3.0)
    keep = [a]
    a[0] = x[0]
    return keep[0]


def global_table(x):
    TABLE[1] = x[0]
    return TABLE


@pytest.mark.parametrize(
    "kernel", [aliased, viewed, in_a_list, global_table], ids=lambda k: k.__name__
)
def test_an_array_that_something_else_holds_is_refused(kernel):
    with pytest.raises(TypeError, match="storing a traced value into a NumPy array"):
        tj.function(kernel)(np.ones(3))


def updated_alias(x):
    a = np.arange(3.0)
    b = a
    a += x[:3]
    return b


def updated_view(x):
    a = np.arange(4.0)
    v = a[1:]
    a *= x[0]
    return v


def item_of_alias_updated(x):
    a = np.arange(3.0)
    b = a
    a[0] += x[0]
    return b


@pytest.mark.parametrize(
    "kernel", [updated_alias, updated_view, item_of_alias_updated], ids=lambda k: k.__name__
)
def test_an_update_of_an_array_that_something_else_holds_is_refused(kernel):
    with pytest.raises(TypeError, match=r"updating a NumPy array in place .*\(`a \+= v`\)"):
        tj.function(kernel)(np.ones(3))


def test_an_update_of_a_global_array_is_refused():
    def global_update(x):
        global TABLE
        TABLE += x
        return TABLE

    with pytest.raises(TypeError, match="needs a traced array as `out`"):
        tj.function(global_update)(np.ones(3))


def test_python_values_still_update_numpy_arrays_in_place_at_trace_time():
    @tj.function
    def weights(x):
        w = np.ones(3)
        seen = w
        w += 2.0  # NumPy at trace time: both names see it
        return x * seen

    assert_same(weights(np.ones(3)), np.full(3, 3.0))


def test_python_values_still_write_numpy_arrays_at_trace_time():
    @tj.function
    def weights(x):
        w = np.ones(3)
        w[1] = 5.0  # no traced value: NumPy at trace time, a constant of the trace
        return x * w

    assert_same(weights(np.ones(3)), np.array([1.0, 5.0, 1.0]))
