"""The `fft` section: np.fft on NumPy (pocketfft), tracejit (tj.fft's generated loops) and
jax.jit when JAX is installed, each case written once as NumPy source.

Cases: a power-of-two length (2**20, and 1,024 where a call's overhead counts), a prime
length (1,000,003: Bluestein's route through three transforms of length 2,025,000 =
2^3 3^4 5^5; 100,003 with --quick), rfft, and fft2 of 1,024 x 1,024. tracejit's result is
checked against NumPy's (relative error of the whole result below FFT_RTOL) before it is
timed; times are medians of repeated calls (timing.py), on the thread count `make bench`
pins (one by default: the issue's target is NumPy's time x 2 on one thread).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from benchmarks.kernel_bench import Timing, ratio_cell, steady_seconds, time_cell
from benchmarks.peers import fresh_copy, importable
from benchmarks.timing import FULL, QUICK, Budget, format_table, settle_compiles

FFT_RTOL = 1e-12  # max |tracejit - NumPy| / max |NumPy| (complex128)


def fft(x):
    return np.fft.fft(x)


def rfft(x):
    return np.fft.rfft(x)


def fft2(x):
    return np.fft.fft2(x)


Inputs = Callable[[np.random.Generator, bool], np.ndarray]


def _complex(n: int) -> Inputs:
    return lambda rng, quick: rng.random(n) + 1j * rng.random(n)


def _prime(rng: np.random.Generator, quick: bool) -> np.ndarray:
    n = 100_003 if quick else 1_000_003
    return rng.random(n) + 1j * rng.random(n)


@dataclass(frozen=True)
class Case:
    key: str
    title: str
    function: Callable[..., Any]
    inputs: Inputs
    size: str


CASES = [
    Case("F1", "fft, power of two", fft, _complex(2**20), "2^20 c128"),
    Case("F2", "fft, power of two", fft, _complex(1024), "1,024 c128"),
    Case("F3", "fft, prime (Bluestein)", fft, _prime, "1,000,003 c128"),
    Case("F4", "rfft", rfft, lambda rng, quick: rng.random(2**20), "2^20 f64"),
    Case("F5", "fft2", fft2, lambda rng, quick: rng.random((1024, 1024)) + 0j, "1024^2 c128"),
]


@dataclass
class FftResult:
    key: str
    title: str
    size: str
    numpy: Timing
    tracejit: Timing
    jax: Timing


def _relative_error(got: Any, want: np.ndarray) -> float:
    got = np.asarray(got)
    assert got.shape == want.shape, f"shape {got.shape}, NumPy {want.shape}"
    return float(np.abs(got - want).max() / max(np.abs(want).max(), 1e-300))


def time_one(
    compiled: Callable[..., Any], x: Any, want: np.ndarray, budget: Budget, finish=lambda r: r
) -> Timing:
    try:
        got = finish(compiled(x))
        settle_compiles()
    except Exception as error:  # reported in the table, not raised
        return Timing("error", detail=f"{type(error).__name__}: {error}"[:120])
    error = _relative_error(got, want)
    if error > FFT_RTOL:
        return Timing("wrong result", detail=f"relative error {error:.1e}")
    return Timing(run=steady_seconds(lambda: finish(compiled(x)), budget))


def _jax_timing(case: Case, x: np.ndarray, want: np.ndarray, budget: Budget) -> Timing:
    if not importable("jax"):
        return Timing("not installed", detail="pip install jax")
    import jax
    import jax.numpy as jnp

    jax.config.update("jax_enable_x64", True)
    compiled = jax.jit(fresh_copy(case.function, np=jnp))
    return time_one(compiled, jax.device_put(x), want, budget, lambda r: r.block_until_ready())


def run_case(case: Case, quick: bool, budget: Budget) -> FftResult:
    import tracejit as tj

    x = case.inputs(np.random.default_rng(0), quick)
    want = case.function(x)
    numpy = Timing(run=steady_seconds(lambda: case.function(x), budget))
    tracejit = time_one(tj.function(fresh_copy(case.function)), x, want, budget)
    return FftResult(
        case.key, case.title, case.size, numpy, tracejit, _jax_timing(case, x, want, budget)
    )


def results_table(results: list[FftResult]) -> str:
    header = ["case", "size", "NumPy", "tracejit", "tracejit/NumPy", "jax.jit", "jax/NumPy"]
    rows = [
        [
            f"{r.key} {r.title}",
            r.size,
            time_cell(r.numpy.run),
            time_cell(r.tracejit.run) if r.tracejit.status == "ok" else r.tracejit.status,
            ratio_cell(r.tracejit.run, r.numpy.run),
            time_cell(r.jax.run) if r.jax.status == "ok" else r.jax.status,
            ratio_cell(r.jax.run, r.numpy.run),
        ]
        for r in results
    ]
    return format_table(header, rows)


def report(quick: bool) -> list[dict[str, Any]]:
    budget = QUICK if quick else FULL
    results = [run_case(case, quick, budget) for case in CASES]
    print("\nnp.fft (tracejit/NumPy < 1 means faster than NumPy; target: <= 2 for 2^k >= 1024)")
    print(results_table(results))
    return [asdict(r) for r in results]
