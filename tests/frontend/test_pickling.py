"""tj.Function pickles by reference to its Python function, with its options and without its
traces, through pickle, cloudpickle and process pools (frontend/export/pickling.py)."""

import concurrent.futures
import multiprocessing
import pathlib
import pickle
import subprocess
import sys
import textwrap

import cloudpickle
import numpy as np
import pytest

import tracejit as tj
from tracejit.frontend.export import pickling

HERE = pathlib.Path(__file__).resolve().parent


@pytest.fixture
def kernels(monkeypatch):
    """The importable module of tj.functions (also for the worker processes, which inherit
    sys.path)."""
    monkeypatch.syspath_prepend(str(HERE))
    monkeypatch.setattr(pickling, "_RESTORED", type(pickling._RESTORED)())  # none unpickled yet
    import pickle_kernels

    return pickle_kernels


def blend_numpy(x, y):
    return x**2 + 3 * y - np.tanh(x) * 0.5


@pytest.mark.parametrize("dumps", [pickle.dumps, cloudpickle.dumps], ids=["pickle", "cloudpickle"])
def test_a_module_function_round_trips_without_its_traces(kernels, dumps):
    x, y = np.linspace(-2, 2, 7), np.linspace(0, 1, 7)
    kernels.blend(x, y)  # traced here: the copy must not carry this trace
    data = dumps(kernels.blend)
    assert b"tracejit" in data and len(data) < 2000  # a reference, not machine code
    copy = pickle.loads(data)
    assert isinstance(copy, tj.Function) and copy is not kernels.blend
    assert copy.python_function is kernels.blend.python_function
    assert copy.experimental_get_tracing_count() == 0
    np.testing.assert_allclose(copy(x, y), blend_numpy(x, y), rtol=1e-12)
    assert copy.experimental_get_tracing_count() == 1


def test_the_options_come_along(kernels):
    copy = pickle.loads(pickle.dumps(kernels.scaled_sum))
    assert copy.input_signature == kernels.scaled_sum.input_signature
    assert (copy._autograph, copy._reduce_retracing) == (False, True)
    x = np.arange(5.0)
    assert copy(x) == np.sum(x * 2.0)
    with pytest.raises(ValueError, match="incompatible with input_signature"):
        copy(np.arange(5, dtype=np.int32))
    wrapped = tj.function(kernels.plain_square, jit_compile=True, experimental_pipeline=None)
    again = pickle.loads(pickle.dumps(wrapped))
    assert again._jit_compile is True and again.python_function is kernels.plain_square


def test_a_process_reuses_one_function_per_original(kernels):
    """A worker unpickles the same Function with every task: it must trace once, not per task."""
    data = pickle.dumps(kernels.blend)
    first, second = pickle.loads(data), pickle.loads(data)
    assert first is second
    x = np.ones(3)
    first(x, x)
    second(x, x)
    assert second.experimental_get_tracing_count() == 1


def test_closures_and_lambdas_go_by_value(kernels):
    offset = 4.0

    @tj.function
    def shifted(x):
        return x + offset

    square = tj.function(lambda x: x * x)
    x = np.arange(4.0)
    for dumps in (pickle.dumps, cloudpickle.dumps):  # plain pickle nests cloudpickle's bytes
        np.testing.assert_array_equal(pickle.loads(dumps(shifted))(x), x + offset)
        np.testing.assert_array_equal(pickle.loads(dumps(square))(x), x * x)


def test_methods_pickle_like_bound_methods(kernels):
    model = kernels.Model(3.0)
    x = np.arange(4.0)
    bound = pickle.loads(pickle.dumps(model.apply))
    assert bound._instance is not model and bound._instance.scale == 3.0
    np.testing.assert_array_equal(bound(x), x * 3.0)
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(model.double))(x), x * 2.0)
    name_length = pickle.loads(cloudpickle.dumps(kernels.Model.name_length))
    np.testing.assert_array_equal(name_length(x), x + len("Model"))


def test_a_method_stored_under_another_name_says_why_it_cannot_pickle(kernels):
    class Renamed:
        pass

    Renamed.other = kernels.Model.__dict__["apply"]  # its __name__ stays "apply"
    with pytest.raises(pickle.PicklingError, match="has no attribute 'apply'"):
        pickle.dumps(Renamed().other)


def test_unpickling_where_the_name_is_missing_is_a_clear_error(kernels, monkeypatch):
    data = pickle.dumps(tj.function(kernels.plain_square))
    monkeypatch.delattr(kernels, "plain_square")  # as in a process with other code installed
    with pytest.raises(pickle.UnpicklingError, match="does not define it"):
        pickle.loads(data)


def test_a_spawned_process_pool_runs_the_function(kernels):
    x, y = np.linspace(-1, 1, 9), np.full(9, 0.5)
    context = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(1, mp_context=context) as pool:
        futures = [pool.submit(kernels.call_in_worker, kernels.blend, x, y) for _ in range(3)]
        results = [future.result(timeout=120) for future in futures]
    for result, _ in results:
        np.testing.assert_allclose(result, blend_numpy(x, y), rtol=1e-12)
    assert [traces for _, traces in results] == [1, 1, 1]  # one worker, one trace


def test_a_function_defined_in_main_runs_where_its_script_is_gone(tmp_path):
    """cloudpickle sends a __main__ (or notebook) function by value: a process that never saw
    the script runs it."""
    script = tmp_path / "define.py"
    script.write_text(
        textwrap.dedent("""
        import sys
        import cloudpickle
        import numpy as np
        import tracejit as tj

        @tj.function(reduce_retracing=True)
        def f(x):
            if np.sum(x) > 0.0:  # tensor-dependent: only AutoGraph, reading the source, stages it
                return np.sin(x) * 2.0 + 1.0
            return x

        with open(sys.argv[1], "wb") as handle:
            cloudpickle.dump(f, handle)
        """)
    )
    load = textwrap.dedent("""
        import pickle, sys
        import numpy as np
        with open(sys.argv[1], "rb") as handle:
            f = pickle.load(handle)
        print(f._reduce_retracing, float(np.sum(f(np.arange(5.0)))))
        """)
    blob = tmp_path / "f.pkl"
    subprocess.run([sys.executable, str(script), str(blob)], check=True, timeout=120)
    script.unlink()
    out = subprocess.run(  # -W error: AutoGraph must not fall back to plain Python
        [sys.executable, "-W", "error::UserWarning", "-c", load, str(blob)],
        check=True,
        timeout=120,
        capture_output=True,
        text=True,
        cwd=tmp_path,
    ).stdout.split()
    assert out[0] == "True"
    assert float(out[1]) == pytest.approx(float(np.sum(np.sin(np.arange(5.0)) * 2.0 + 1.0)))
