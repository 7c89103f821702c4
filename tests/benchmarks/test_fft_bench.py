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
    accuracy = load("fft_accuracy")
    lengths = accuracy.sample_lengths(600)
    assert set(range(1, 513)) <= set(lengths)
    assert {521, 593, 599} <= set(lengths)  # few primes above 512: all of them
    assert len(lengths) == len(set(lengths)) and max(lengths) <= 600
    lengths = accuracy.sample_lengths(4096)  # what the docstring and docs/guide.md say
    assert set(range(1, 513)) <= set(lengths) and {1024, 2048, 4096, 4093} <= set(lengths)
    primes = [n for n in lengths if n > 512 and accuracy._primes(n, n)]
    assert len(primes) == 48 and len(lengths) == 611


def test_accuracy_measures_both_dtypes_in_epsilons():
    accuracy = load("fft_accuracy")
    assert accuracy.DTYPES == ("complex64", "complex128")
    rows = accuracy.measure([1, 5, 17], np.dtype("complex64"))
    assert [r.n for r in rows] == [1, 5, 17]
    assert all(0 <= r.vs_numpy < 16 and 0 <= r.tracejit_rms < 16 for r in rows)
