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
