"""Array subclasses whose meaning differs from ndarray's are refused (issue 35): a masked
array's mask, an np.matrix's `*` and a subclass's own `__array_ufunc__` would be dropped, and
NumPy's answer for them differs from the plain array's. Subclasses that keep ndarray's
meaning (np.memmap, a plain subclass) compile as the arrays they are."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tracejit as tj
from tests.conftest import run_eagerly


class Logged(np.ndarray):
    """A subclass that changes what NumPy's ufuncs do (here: nothing but a note)."""

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        inputs = tuple(np.asarray(x) if isinstance(x, Logged) else x for x in inputs)
        return getattr(ufunc, method)(*inputs, **kwargs) * 2


class Plain(np.ndarray):
    pass


@tj.function
def total(x):
    return np.sum(x * 2 + 1)


def test_the_reported_masked_array_is_refused_with_the_argument_and_line():
    masked = np.ma.array([1.0, 2.0, 3.0], mask=[0, 1, 0])
    assert np.sum(masked * 2 + 1) == 10.0  # what NumPy means, and tracejit would not give
    with pytest.raises(TypeError, match=r"argument 'x' is a masked array.*test_array_subclasses"):
        total(masked)


def test_a_matrix_is_refused():
    with pytest.raises(TypeError, match=r"argument 'x' is an np.matrix.*`@`"):
        total(np.matrix([[1.0, 2.0], [3.0, 4.0]]))


def test_a_subclass_overriding_array_ufunc_is_refused():
    logged = np.arange(3.0).view(Logged)
    with pytest.raises(TypeError, match="argument 'x' is a Logged.*overrides __array_ufunc__"):
        total(logged)


def test_inside_containers_and_with_input_signature():
    @tj.function(input_signature=[tj.TensorSpec([3], np.float64)])
    def f(x):
        return x + 1

    masked = np.ma.array([1.0, 2.0, 3.0], mask=[0, 1, 0])
    with pytest.raises(TypeError, match="argument 'x' is a masked array"):
        f(masked)
    with pytest.raises(TypeError, match="argument 'pair' is a masked array"):
        tj.function(lambda pair: pair[0] + pair[1])((np.ones(3), masked))


def test_a_captured_masked_array_is_refused():
    weights = np.ma.array([1.0, 2.0, 3.0], mask=[0, 1, 0])

    @tj.function
    def f(x):
        return np.sum(x * weights)

    with pytest.raises(TypeError, match="an array used by the traced function is a masked"):
        f(np.ones(3))


def test_a_concrete_function_called_with_a_masked_array_refuses():
    concrete = total.get_concrete_function(tj.TensorSpec([3], np.float64))
    with pytest.raises(TypeError, match="is a masked array"):
        concrete(np.ma.array([1.0, 2.0, 3.0], mask=[0, 1, 0]))


def test_a_variable_of_a_masked_array_is_refused():
    with pytest.raises(TypeError, match="argument 'initial_value' is a masked array"):
        tj.Variable(np.ma.array([1.0, 2.0], mask=[1, 0]))


@settings(max_examples=20, deadline=None)
@given(values=st.lists(st.floats(-1e3, 1e3), min_size=0, max_size=8))
def test_subclasses_that_keep_ndarray_meaning_compile(values, tmp_path_factory):
    data = np.asarray(values, np.float64)
    plain = data.view(Plain)
    path = tmp_path_factory.mktemp("memmap") / "x.dat"
    mapped = np.memmap(path, np.float64, "w+", shape=data.shape) if data.size else data
    if data.size:
        mapped[:] = data
    for array in (plain, mapped):
        expected = run_eagerly(total, array)
        np.testing.assert_allclose(total(array), expected)
