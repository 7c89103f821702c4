"""The programs in examples/ compile unchanged and match NumPy (compiled vs eager)."""

import importlib.util
import pathlib

import numpy as np
import pytest

import tracejit as tj

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"


def load(name: str):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


MODELS = load("numpy_models")


@pytest.mark.parametrize("name", sorted(MODELS.example_inputs(np.random.default_rng(0))))
def test_numpy_models_compile_unchanged(check_against_eager, name):
    function, args = MODELS.example_inputs(np.random.default_rng(1))[name]
    check_against_eager(tj.function(function), *args, rtol=1e-4, atol=1e-5)


def test_quickstart_runs():
    quickstart = load("quickstart")
    x = np.ones((2, 32), np.float32)
    w, b = np.ones((32, 16), np.float32) * 0.01, np.zeros(16, np.float32)
    np.testing.assert_allclose(quickstart.f(x, w, b), quickstart.predict(x, w, b), rtol=1e-5)


def test_dask_blocks_runs_small_and_agrees_with_numpy(capsys):
    """examples/dask_blocks.py on a few MB (its default is 50 GB): the progress bar, the sum
    from tj.function blocks, and the same sum from NumPy blocks."""
    pytest.importorskip("dask")
    dask_blocks = load("dask_blocks")
    assert dask_blocks.parse_size("50GB") == 50 * 10**9
    assert dask_blocks.parse_size("1.5KiB") == 1536
    assert dask_blocks.main(["--size", "8MB", "--block", "1MB", "--check"]) == 0
    out = capsys.readouterr().out
    assert "in 8 blocks each" in out and "100% Completed" in out and "results agree" in out
