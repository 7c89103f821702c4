"""tj.ConcreteFunction pickles by value (IR + signature + object code), so it runs in
processes that do not have its Python source: pickle, cloudpickle, a spawned pool."""

from __future__ import annotations

import concurrent.futures
import multiprocessing
import pickle

import cloudpickle
import numpy as np
import pytest

import tracejit as tj
from tracejit.frontend.export.saved_model import SaveError


def _concrete_with_variable():
    counter = tj.Variable(np.zeros(3))

    @tj.function  # a local function: pickle could not find it by reference
    def step(x, scale=2.0):
        counter.assign_add(x)
        return {"y": np.exp(x) * scale, "total": counter.read_value()}

    return step.get_concrete_function(np.zeros(3)), counter


@pytest.mark.parametrize("module", [pickle, cloudpickle])
def test_pickle_round_trip_before_and_after_compiling(module):
    concrete, counter = _concrete_with_variable()
    x = np.array([0.0, 1.0, -1.0])
    fresh = module.loads(module.dumps(concrete))  # not compiled yet: IR only
    assert fresh._compilation is None
    out = fresh(x)
    np.testing.assert_allclose(out["y"], np.exp(x) * 2.0)
    np.testing.assert_array_equal(out["total"], x)
    assert counter.numpy().tolist() == [0, 0, 0]  # the copy's Variable is its own

    concrete(x)  # compiled now: the object code travels too
    copy = module.loads(module.dumps(concrete))
    assert copy._compilation is not None and copy._compilation.from_cache
    np.testing.assert_array_equal(copy(x)["total"], 2 * x)


def test_unpicklable_trace_is_a_clear_error():
    @tj.function
    def f(x):
        return tj.py_function(np.sort, [x], tj.TensorSpec([3], tj.float64))

    with pytest.raises(SaveError, match="py_function"):
        pickle.dumps(f.get_concrete_function(np.zeros(3)))


def test_runs_in_a_spawned_process_pool():
    concrete, _ = _concrete_with_variable()
    x = np.linspace(-1.0, 1.0, 3)
    concrete(x)
    context = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(1, mp_context=context) as pool:
        results = list(pool.map(concrete, [x, 2 * x]))
    np.testing.assert_allclose(results[0]["y"], np.exp(x) * 2.0)
    np.testing.assert_allclose(results[1]["y"], np.exp(2 * x) * 2.0)
    # each task unpickles its own copy of the Variable, as saved after the first call
    np.testing.assert_allclose(results[1]["total"], x + 2 * x)


@pytest.mark.parametrize("module", [pickle, cloudpickle])
def test_a_methods_concrete_function_pickles_without_its_instance(module):
    class Model(tj.Module):
        def __init__(self):
            super().__init__()
            self.w = tj.Variable(np.array([1.0, 2.0]))

        @tj.function
        def __call__(self, x):
            return x * self.w

    model = Model()
    concrete = model.__call__.get_concrete_function(np.ones(2))
    copy = module.loads(module.dumps(concrete))
    np.testing.assert_array_equal(copy(np.array([3.0, 4.0])), [3.0, 8.0])
