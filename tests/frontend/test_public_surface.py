"""What `dir()` and `repr()` show a user at the prompt: the public API, not our imports."""

from __future__ import annotations

import numpy as np

import tracejit as tj


def test_dir_of_tj_lists_the_public_api_only():
    names = dir(tj)
    assert names == sorted(tj.__all__)
    for private in ("os", "importlib", "Any", "annotations", "Path", "TYPE_CHECKING", "_np"):
        assert private not in names
    assert {"function", "Variable", "GradientTape", "config"} <= set(names)


def test_dir_of_config_lists_the_settings_only():
    names = dir(tj.config)
    for private in ("os", "Path", "annotations", "_UNSET", "_tiered"):
        assert private not in names
    assert {"set_num_threads", "run_functions_eagerly", "wait_for_compiles"} <= set(names)
    assert all(callable(getattr(tj.config, n)) or n.isupper() for n in names)


def test_repr_of_a_function_names_it_and_counts_its_traces():
    @tj.function
    def scaled(x):
        return x * 2

    assert repr(scaled).endswith("scaled: 0 traces>")
    scaled(np.ones(2))
    assert repr(scaled).endswith("scaled: 1 trace>")
    scaled(np.ones(3))
    assert repr(scaled).endswith("scaled: 2 traces>")


@tj.function(input_signature=[tj.TensorSpec([None], np.float32), tj.TensorSpec([], np.int64)])
def _scaled(x, n):
    return x * n


def test_a_mismatch_with_the_input_signature_names_the_argument_the_spec_and_the_line():
    import pytest

    with pytest.raises(ValueError) as info:
        _scaled(np.ones(3, np.float64), np.int64(2))
    first = str(info.value).splitlines()[0]
    assert first.startswith("Python inputs incompatible with input_signature: argument 'x'")
    assert "declared TensorSpec(shape=(None,), dtype=float32" in first
    assert "got an array of dtype float64 and shape (3,)" in first
    assert first.endswith("(test_public_surface.py:47)")
    vector_n = r"argument 'n' .* got an array of dtype int64 and shape \(2,\)"
    with pytest.raises(ValueError, match=vector_n):
        _scaled(np.ones(3, np.float32), np.array([1, 2]))


def test_too_many_arguments_names_the_function_and_the_line():
    import pytest

    with pytest.raises(TypeError, match=r"^_scaled\(\): too many positional arguments \(test_"):
        _scaled(np.ones(3, np.float32), 2, 3)


def test_a_function_rebuilt_from_its_options_traces_the_same_program():
    spec = tj.TensorSpec(shape=(None,), dtype=np.float32)

    @tj.function(input_signature=[spec], reduce_retracing=True)
    def shifted(x):
        return x + 1

    x = np.arange(4, dtype=np.float32)
    shifted(x)
    again = tj.function(shifted.python_function, **shifted.options)
    assert again.input_signature == (spec,) and again.options == shifted.options
    assert shifted.binding == "instance" and again.concrete_functions() == []
    np.testing.assert_array_equal(again(x), x + 1)
    [trace] = again.concrete_functions()
    assert (
        trace.structured_input_signature
        == shifted.concrete_functions()[0].structured_input_signature
    )


def test_a_method_trace_gives_its_unbound_concrete_function():
    class Scaler:
        @tj.function
        def twice(self, x):
            return x * 2

    scaler = Scaler()
    bound = scaler.twice.get_concrete_function(tj.TensorSpec(shape=(2,), dtype=np.float64))
    assert bound.unbound in Scaler.twice.concrete_functions()
    np.testing.assert_array_equal(bound(np.ones(2)), 2 * np.ones(2))
