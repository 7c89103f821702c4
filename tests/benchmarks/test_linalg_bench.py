"""The np.linalg / np.cov benchmark cases (benchmarks/linalg_bench.py) compile unchanged and
match NumPy on small inputs; `make bench` times them at their real sizes."""

import importlib.util
import pathlib
import sys

import numpy as np
import pytest

import tracejit as tj

ROOT = pathlib.Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location(
    "benchmark_linalg", ROOT / "benchmarks/linalg_bench.py"
)
LINALG_BENCH = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = LINALG_BENCH
spec.loader.exec_module(LINALG_BENCH)


@pytest.mark.parametrize("case", LINALG_BENCH.CASES, ids=lambda case: case[0])
def test_case_compiles_and_matches_numpy(case):
    name, fn, sizes, calls_lapack = case
    if calls_lapack:
        pytest.importorskip("scipy", reason="LAPACK comes from SciPy (tracejit[linalg])")
    args = LINALG_BENCH.inputs(fn, 6)
    assert [a.shape[0] for a in args] == [6] * len(args)
    np.testing.assert_allclose(tj.function(fn)(*args), fn(*args), rtol=1e-12, atol=1e-12)


def test_cov_is_timed_at_1000_by_1000():
    (cov,) = [c for c in LINALG_BENCH.CASES if c[0] == "cov"]
    assert cov[2] == (1000,) and LINALG_BENCH.inputs(cov[1], 10)[0].shape == (10, 10)
