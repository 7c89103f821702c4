"""compiler/options.py: every environment variable is read once, at import, into OPTIONS and
the runtime's settings; tj.config changes them afterwards."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import tracejit as tj
from tracejit.compiler.options import (
    DEFAULT_CACHE_MAX_BYTES,
    OPTIONS,
    apply_runtime_environment,
    from_environment,
    thread_count_from_environment,
)
from tracejit.runtime import settings


def test_defaults_without_variables():
    options = from_environment({})
    assert options.cache_dir is None and options.cache_max_bytes == DEFAULT_CACHE_MAX_BYTES
    assert options.tiered and not options.check_bounds and options.verify == "off"
    assert options.c_compiler == "search"


@pytest.mark.parametrize(
    ("variables", "field", "value"),
    [
        ({"TRACEJIT_CACHE_DIR": "~/x"}, "cache_dir", Path("~/x").expanduser()),
        ({"TRACEJIT_CACHE_DIR": ""}, "cache_dir", None),
        ({"TRACEJIT_CACHE_MAX_BYTES": "1000"}, "cache_max_bytes", 1000),
        ({"TRACEJIT_CACHE_MAX_BYTES": "lots"}, "cache_max_bytes", DEFAULT_CACHE_MAX_BYTES),
        ({"TRACEJIT_TIERED": "0"}, "tiered", False),
        ({"TRACEJIT_CHECK_BOUNDS": "1"}, "check_bounds", True),
        ({"TRACEJIT_VERIFY_EACH": "1"}, "verify", "each"),
        ({"TRACEJIT_VERIFY_EACH": "end"}, "verify", "end"),
        ({"TRACEJIT_CC": ""}, "c_compiler", None),
        ({"TRACEJIT_CC": "clang"}, "c_compiler", "clang"),
    ],
)
def test_each_variable_sets_its_option(variables, field, value):
    assert getattr(from_environment(variables), field) == value


def test_thread_count_variable():
    assert thread_count_from_environment({"TRACEJIT_NUM_THREADS": "3"}) == 3
    assert thread_count_from_environment({"TRACEJIT_NUM_THREADS": "0"}) is None  # must be >= 1
    assert thread_count_from_environment({"TRACEJIT_NUM_THREADS": "many"}) is None
    assert thread_count_from_environment({}) is None


def test_thread_fitting_variable(monkeypatch):
    from tracejit.runtime import load_fitting

    monkeypatch.setattr(load_fitting, "ENABLED", True)
    apply_runtime_environment({**os.environ, "TRACEJIT_FIT_THREADS": "0"})
    assert load_fitting.ENABLED is False
    apply_runtime_environment(os.environ)
    assert load_fitting.ENABLED is True


def test_config_changes_the_options(monkeypatch):
    for field in ("check_bounds", "tiered"):
        monkeypatch.setattr(OPTIONS, field, getattr(OPTIONS, field))
    tj.config.set_check_bounds(True)
    assert tj.config.check_bounds() and OPTIONS.check_bounds
    tj.config.set_check_bounds(False)
    assert not OPTIONS.check_bounds


def test_check_bounds_setting_compiles_checked_code(monkeypatch):
    """The same function compiled with checks and without: the checked one range-checks its
    loads (more code), both agree with NumPy."""
    monkeypatch.setattr(OPTIONS, "check_bounds", OPTIONS.check_bounds)
    x = np.arange(10.0)
    tj.config.set_check_bounds(False)
    plain = tj.function(lambda a: a[::2] * 2.0).get_concrete_function(x).llvm_ir  # compiles
    tj.config.set_check_bounds(True)
    checked = tj.function(lambda a: a[::2] * 2.0).get_concrete_function(x)
    assert len(checked.llvm_ir) > len(plain)  # the range checks
    np.testing.assert_array_equal(checked(x), x[::2] * 2.0)


def test_variables_are_read_at_import_only(tmp_path):
    """A process started with the variables gets them; setting one later changes nothing."""
    script = (
        "import json, os, tracejit as tj\n"
        "from tracejit.compiler.options import OPTIONS\n"
        "os.environ['TRACEJIT_CHECK_BOUNDS'] = '0'\n"
        "print(json.dumps([str(tj.config.cache_dir()), tj.config.num_threads(),\n"
        "                  tj.config.buffer_cache_bytes(), OPTIONS.check_bounds]))\n"
    )
    env = {
        **os.environ,
        "TRACEJIT_CACHE_DIR": str(tmp_path),
        "TRACEJIT_NUM_THREADS": "1",
        "TRACEJIT_BUFFER_CACHE_BYTES": "4096",
        "TRACEJIT_CHECK_BOUNDS": "1",
    }
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
    )
    assert json.loads(done.stdout) == [str(tmp_path), 1, 4096, True]


def test_runtime_settings_follow_set_num_threads():
    before = tj.config.num_threads()
    try:
        tj.config.set_num_threads(2)
        assert settings.THREAD_COUNT.value == 2
    finally:
        tj.config.set_num_threads(before)
