"""tj.saved_model round trips in one process: Modules with Variables, signatures=, the
object code's key (another CPU recompiles), use_object_code=False, private files."""

from __future__ import annotations

import collections
import os
import stat

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tracejit as tj
from tracejit.compiler import driver, object_cache
from tracejit.compiler.compiled_memo import CompiledMemo


class Scale(tj.Module):
    def __init__(self):
        super().__init__()
        self.factor = tj.Variable(np.float32(3.0))
        self.offsets = [tj.Variable(np.arange(4, dtype=np.float32)), tj.Variable(np.ones(4))]
        self.count = tj.Variable(np.int64(0), trainable=False)

    @tj.function
    def __call__(self, x):
        self.count.assign_add(1)
        return x * self.factor + self.offsets[0]

    @tj.function(input_signature=[tj.TensorSpec([None], tj.float64)])
    def shifted(self, y):
        return y + self.offsets[1]


def test_module_variables_and_submodules():
    outer = tj.Module(name="outer")
    outer.inner = Scale()
    outer.table = {"w": tj.Variable(np.zeros(2))}
    assert outer.name == "outer" and outer.inner.name == "scale"
    assert outer.submodules == (outer.inner,)
    assert len(outer.variables) == 5
    assert len(outer.trainable_variables) == 4


def test_module_round_trip_shares_assignable_variables(tmp_path):
    model = Scale()
    x = np.arange(4, dtype=np.float32)
    model(x)
    tj.saved_model.save(model, tmp_path)
    loaded = tj.saved_model.load(tmp_path)

    np.testing.assert_array_equal(loaded(x), x * 3.0 + np.arange(4))
    assert loaded.count.numpy() == 2  # saved after one call, then called once
    loaded.factor.assign(np.float32(-1.0))
    np.testing.assert_array_equal(loaded(x), -x + np.arange(4))
    assert model.factor.numpy() == 3.0  # the original is untouched
    # the method with an input_signature was traced at save time; it shares offsets[1]
    np.testing.assert_array_equal(loaded.shifted(np.arange(4.0)), np.arange(4.0) + 1.0)
    loaded.offsets[1].assign(np.full(4, 5.0))
    np.testing.assert_array_equal(loaded.shifted(np.zeros(4)), np.full(4, 5.0))
    assert len(loaded.variables) == 4 and len(loaded.trainable_variables) == 3
    assert all(loaded.__call__.used_object_code)


def test_a_signature_that_was_not_saved_is_a_clear_error(tmp_path):
    model = Scale()
    model(np.ones(4, np.float32))
    tj.saved_model.save(model, tmp_path)
    loaded = tj.saved_model.load(tmp_path)
    with pytest.raises(ValueError, match=r"Could not find a saved concrete function.*float64"):
        loaded(np.ones(4))
    with pytest.raises(ValueError, match="TensorSpec\\(shape=\\(4,\\), dtype=float32"):
        loaded(np.ones(5, np.float32))


def test_function_with_python_values_structures_and_dynamic_dims(tmp_path):
    Pair = collections.namedtuple("Pair", ["low", "high"])

    @tj.function
    def f(pair, n, flag=True):
        total = pair.low * n + pair.high[1:]
        return [total, {"max": np.max(total), "n": n}] if flag else total

    a, b = np.arange(6.0), np.arange(7.0)
    f(Pair(a, b), 2)
    spec = tj.TensorSpec([None], tj.float64)
    f.get_concrete_function(Pair(spec, spec), 3, False)
    tj.saved_model.save(f, tmp_path)
    loaded = tj.saved_model.load(tmp_path)

    result = loaded(Pair(a, b), 2)
    np.testing.assert_array_equal(result[0], a * 2 + b[1:])
    assert result[1]["max"] == np.max(a * 2 + b[1:]) and result[1]["n"] == 2
    longer = loaded(Pair(np.arange(9.0), np.arange(10.0)), 3, flag=False)
    np.testing.assert_array_equal(longer, np.arange(9.0) * 3 + np.arange(1.0, 10.0))
    with pytest.raises(ValueError, match="Could not find"):
        loaded(Pair(a, b), 4)  # n=4 was never traced


def test_another_cpu_recompiles_from_the_ir(tmp_path, monkeypatch):
    @tj.function
    def f(x):
        return np.sqrt(x) * 2.0

    x = np.linspace(0.0, 4.0, 9)
    f(x)
    tj.saved_model.save(f, tmp_path)
    same = tj.saved_model.load(tmp_path)
    assert same.used_object_code == [True]
    np.testing.assert_allclose(same(x), np.sqrt(x) * 2.0)

    object_cache.environment.cache_clear()
    real = object_cache.environment()
    monkeypatch.setattr(object_cache, "environment", lambda: real.replace('"cpu"', '"cpu-x"'))
    # another process: not even this process's memo of compiled modules holds it
    monkeypatch.setattr(driver, "MEMO", CompiledMemo())
    other = tj.saved_model.load(tmp_path)
    assert other.used_object_code == [False]
    assert other.concrete_functions[0]._compilation is None  # compiles on first use
    np.testing.assert_allclose(other(x), np.sqrt(x) * 2.0)
    assert not other.concrete_functions[0].compilation.from_cache  # it really recompiled


def test_use_object_code_false_always_recompiles(tmp_path):
    @tj.function
    def f(x):
        return x - 1

    f(np.arange(3))
    tj.saved_model.save(f, tmp_path)
    loaded = tj.saved_model.load(tmp_path, use_object_code=False)
    assert loaded.used_object_code == [False]
    np.testing.assert_array_equal(loaded(np.arange(3)), np.arange(3) - 1)


def test_signatures_select_traces_and_name_entry_points(tmp_path):
    @tj.function
    def f(x):
        return x + 1

    keep = f.get_concrete_function(np.zeros(2, np.int32))
    f.get_concrete_function(np.zeros(3))
    tj.saved_model.save(f, tmp_path / "one", signatures=keep)
    only = tj.saved_model.load(tmp_path / "one")
    assert len(only.concrete_functions) == 1
    np.testing.assert_array_equal(only(np.array([1, 2], np.int32)), [2, 3])

    holder = tj.Module()
    holder.v = tj.Variable(np.ones(2))
    tj.saved_model.save(holder, tmp_path / "named", signatures={"serving_default": f})
    named = tj.saved_model.load(tmp_path / "named")
    np.testing.assert_array_equal(named.signatures["serving_default"](np.zeros(3)), np.ones(3))
    np.testing.assert_array_equal(named.v.numpy(), np.ones(2))


def test_directory_and_files_are_private(tmp_path):
    @tj.function
    def f(x):
        return -x

    f(np.ones(2))
    target = tmp_path / "saved"
    tj.saved_model.save(f, target)
    for path in [target, *target.rglob("*")]:
        mode = stat.S_IMODE(os.stat(path).st_mode)
        assert mode == (0o700 if path.is_dir() else 0o600), (path, oct(mode))


@settings(max_examples=6, deadline=None)
@given(
    dtype=st.sampled_from([np.float32, np.float64, np.int32, np.int64, np.uint8]),
    shape=st.sampled_from([(), (3,), (2, 5)]),
)
def test_round_trip_matches_numpy(tmp_path_factory, dtype, shape):
    @tj.function
    def f(x, y):
        return x * y + x, np.sum(y)

    x = (np.arange(int(np.prod(shape))) % 7).reshape(shape).astype(dtype)
    y = (x + 1).astype(dtype)
    f(x, y)
    directory = tmp_path_factory.mktemp("saved")
    tj.saved_model.save(f, directory)
    got = tj.saved_model.load(directory)(x, y)
    np.testing.assert_array_equal(got[0], x * y + x)
    assert got[0].dtype == (x * y + x).dtype
    assert got[1] == np.sum(y) and got[1].dtype == np.sum(y).dtype


def test_a_loaded_object_saves_again_with_its_methods_and_entry_points(tmp_path):
    model = Scale()
    x = np.ones(4, np.float32)
    model(x)
    bound = model.shifted.get_concrete_function()
    tj.saved_model.save(model, tmp_path / "first", signatures={"shift": bound})
    first = tj.saved_model.load(tmp_path / "first")
    first.factor.assign(np.float32(10.0))
    tj.saved_model.save(first, tmp_path / "second")
    second = tj.saved_model.load(tmp_path / "second")
    np.testing.assert_array_equal(second(x), x * 10.0 + np.arange(4))
    np.testing.assert_array_equal(second.signatures["shift"](np.zeros(4)), np.ones(4))
    # a method saved on its own keeps its traces for this instance, called without self
    tj.saved_model.save(model.shifted, tmp_path / "method")
    method = tj.saved_model.load(tmp_path / "method")
    np.testing.assert_array_equal(method(np.full(4, 2.0)), np.full(4, 3.0))


def test_tj_print_runs_in_the_loaded_function(tmp_path, capsys):
    @tj.function
    def f(x):
        tj.print("sum:", np.sum(x))
        return x * (1 + 2j)

    x = np.array([1.0, 2.0], np.complex64)
    f(x)
    tj.saved_model.save(f, tmp_path)
    capsys.readouterr()
    for use_object_code in (True, False):
        loaded = tj.saved_model.load(tmp_path, use_object_code=use_object_code)
        np.testing.assert_array_equal(loaded(x), x * (1 + 2j))
        assert loaded.used_object_code == [use_object_code]
        assert capsys.readouterr().out == "sum: (3+0j)\n"


def test_kernel_allocated_outputs_and_argument_writes_round_trip(tmp_path):
    @tj.function
    def masked(x):
        return x[x > 0] * 2, np.sum(x)

    @tj.function
    def writes(a):
        a[0] = 100
        a += 1
        return np.sum(a)

    x = np.array([-1.0, 2.0, 3.0])
    masked(x)
    writes(np.arange(3))
    tj.saved_model.save(masked, tmp_path / "masked")
    tj.saved_model.save(writes, tmp_path / "writes")
    for use_object_code in (True, False):
        selected, total = tj.saved_model.load(tmp_path / "masked", use_object_code)(x)
        np.testing.assert_array_equal(selected, x[x > 0] * 2)
        assert total == np.sum(x)
        a, expected = np.arange(3), np.arange(3)
        expected[0] = 100
        expected += 1
        assert tj.saved_model.load(tmp_path / "writes", use_object_code)(a) == np.sum(expected)
        np.testing.assert_array_equal(a, expected)  # the caller's array changed, as NumPy's


def test_dispatch_never_confuses_traces_with_python_values(tmp_path):
    @tj.function
    def f(x, scale=2.0):
        return x * scale

    x = np.ones(3)
    f(x, 0.5)  # traced first, same shapes as the default's trace
    f(x)
    tj.saved_model.save(f, tmp_path)
    loaded = tj.saved_model.load(tmp_path)
    for _ in range(2):
        np.testing.assert_array_equal(loaded(x), x * 2.0)
        np.testing.assert_array_equal(loaded(x, 0.5), x * 0.5)
        np.testing.assert_array_equal(loaded(x, scale=0.5), x * 0.5)


def test_one_trace_still_honours_defaults_and_fills_traced_values(tmp_path):
    @tj.function
    def f(x, n, scale=2.0):
        return x * scale + n

    x = np.ones(3)
    f(x, 5, 0.5)
    tj.saved_model.save(f, tmp_path)
    loaded = tj.saved_model.load(tmp_path)
    np.testing.assert_array_equal(loaded(x, scale=0.5), x * 0.5 + 5)  # n: the traced 5
    with pytest.raises(ValueError, match="Could not find"):
        loaded(x, 5)  # scale=2.0 (the default) was never traced


def test_unknown_rank_signature_saves_the_ranks_it_was_called_with(tmp_path):
    @tj.function(input_signature=[tj.TensorSpec(None, tj.float64)])
    def total(x):
        return np.sum(x) * 2

    with pytest.raises(tj.saved_model.SaveError, match="unknown rank"):
        tj.saved_model.save(total, tmp_path / "none")
    total(np.ones(3))
    total(np.ones((2, 2)))
    tj.saved_model.save(total, tmp_path / "ranks")
    loaded = tj.saved_model.load(tmp_path / "ranks")
    assert loaded(np.arange(4.0)) == 12.0 and loaded(np.ones((3, 5))) == 30.0
    with pytest.raises(ValueError, match="Could not find"):
        loaded(np.ones((2, 2, 2)))  # rank 3 was never traced
