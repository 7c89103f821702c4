"""The np.fft benchmark cases (benchmarks/fft_bench.py) compile unchanged and match NumPy
on small inputs, and the accuracy study's sampling covers what it says. Nothing is timed
here: `make bench` times them."""

import importlib.util
import pathlib
import sys

import numpy as np
import pytest

import tracejit as tj

ROOT = pathlib.Path(__file__).resolve().parents[2]


def load(name):
    spec = importlib.util.spec_from_file_location(
        f"benchmark_{name}", ROOT / "benchmarks" / f"{name}.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


FFT_BENCH = load("fft_bench")


@pytest.mark.parametrize("case", FFT_BENCH.CASES, ids=lambda case: case.key)
def test_case_compiles_and_matches_numpy(case):
    small = {1: np.ones(1), 2: np.ones((4, 4))}  # one small input of the case's rank
    x = case.inputs(np.random.default_rng(0), True)
    x = (np.random.default_rng(1).random(small[x.ndim].shape) + x.flat[0]).astype(x.dtype)
    want = case.function(x)
    got = tj.function(FFT_BENCH.fresh_copy(case.function))(x)
    assert got.dtype == want.dtype
    assert FFT_BENCH._relative_error(got, want) <= FFT_BENCH.FFT_RTOL


def test_accuracy_sample_holds_every_short_length_and_the_primes():
    lengths = load("fft_accuracy").sample_lengths(600)
    assert set(range(1, 257)) <= set(lengths)
    assert {257, 263, 593, 512} <= set(lengths)
    assert len(lengths) == len(set(lengths)) and max(lengths) <= 600
