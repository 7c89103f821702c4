"""The accuracy of tracejit's np.fft.fft against NumPy's (pocketfft), in complex64 and
complex128 (float32 and float64 parts):

    python -m benchmarks.fft_accuracy [--max-length 4096] [--dtype complex128] [--all]

For each length, a random complex input's transform y is compared
* with NumPy's own result: max |y - NumPy| / max |NumPy|, the criterion of the tests
  (tests/numpy/test_fft.py: at most 16 eps);
* with a long-double reference (NumPy's FFT in np.clongdouble, 64-bit mantissas on
  x86-64), by the relative RMS error ||y - ref||_2 / ||ref||_2, for tracejit and NumPy.
Errors are printed in epsilons of the parts' float type (float32's for complex64): per band
of lengths the worst of each, then the worst over all lengths.

Each distinct length is one more transform to compile (0.1 s for short ones, ~2 s near
4,096, mostly LLVM's O3), so every length to 4,096 (`--all`) takes about an hour per dtype.
The default sample is every length up to 512 (every radix combination and the first
Bluestein lengths), every power of two, and in 513..max-length 48 primes (spread evenly,
the largest prime among them) and 48 other lengths drawn at random: 611 lengths for 4,096.
`make bench` runs it (section fft) on both dtypes, about 7 minutes of one core each; with
--quick on every length up to 64 and 8 + 8 longer ones. Transforms are traced GROUP at a
time into one function (larger groups compile more slowly per transform: O3 is superlinear
in the function's size).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

GROUP = 8
DTYPES = ("complex64", "complex128")


def _primes(low: int, high: int) -> list[int]:
    from tracejit.passes.support.fft_plan import prime_factors

    return [n for n in range(max(low, 2), high + 1) if prime_factors(n) == [n]]


def _spread(values: list[int], count: int) -> list[int]:
    """`count` of `values` at even spacing, the last one included."""
    if len(values) <= count:
        return values
    return [values[round(i * (len(values) - 1) / (count - 1))] for i in range(count)]


def sample_lengths(
    max_length: int, every_up_to: int = 512, primes: int = 48, others: int = 48, seed: int = 0
) -> list[int]:
    """Every length up to `every_up_to`, every power of two up to max_length and, above
    `every_up_to`, `primes` primes spread evenly (the largest included) and `others` other
    lengths drawn at random."""
    chosen = set(range(1, min(every_up_to, max_length) + 1))
    chosen |= {1 << k for k in range(max_length.bit_length()) if 1 << k <= max_length}
    long_primes = _primes(every_up_to + 1, max_length)
    chosen |= set(_spread(long_primes, primes))
    excluded = chosen | set(long_primes)
    rest = [n for n in range(1, max_length + 1) if n not in excluded]
    rng = np.random.default_rng(seed)
    if rest:
        chosen |= set(rng.choice(rest, min(others, len(rest)), replace=False).tolist())
    return sorted(chosen)


def relative_rms(y: np.ndarray, reference: np.ndarray) -> float:
    diff = y.astype(np.clongdouble) - reference
    scale = np.sqrt(np.sum(np.abs(reference) ** 2))
    return float(np.sqrt(np.sum(np.abs(diff) ** 2)) / scale) if scale else 0.0


def relative_max(y: np.ndarray, want: np.ndarray) -> float:
    """max |y - want| / max |want|: the tests' measure of a difference from NumPy."""
    scale = np.abs(want).max()
    return float(np.abs(y - want).max() / scale) if scale else float(np.abs(y).max())


def transforms(*xs):
    return tuple(np.fft.fft(x) for x in xs)


@dataclass(frozen=True)
class Row:
    """One length's errors, in epsilons of the dtype's parts."""

    n: int
    vs_numpy: float  # max |tracejit - NumPy| / max |NumPy|
    tracejit_rms: float  # relative RMS error against the long-double reference
    numpy_rms: float


def epsilon(dtype: np.dtype) -> float:
    return float(np.finfo(dtype).eps)  # of the parts: finfo(complex64) is float32's


def measure(lengths: Sequence[int], dtype: np.dtype, seed: int = 0) -> list[Row]:
    import tracejit as tj

    eps = epsilon(dtype)
    rng = np.random.default_rng(seed)
    rows = []
    for start in range(0, len(lengths), GROUP):
        group = lengths[start : start + GROUP]
        xs = [(rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dtype) for n in group]
        compiled = tj.function(transforms)(*xs)
        for n, x, y in zip(group, xs, compiled, strict=True):
            assert y.dtype == dtype, (n, y.dtype)
            want = np.fft.fft(x)
            reference = np.fft.fft(x.astype(np.clongdouble))
            rows.append(Row(
                n, relative_max(y, want) / eps, relative_rms(y, reference) / eps,
                relative_rms(want, reference) / eps,
            ))  # fmt: skip
    return rows


def summary(rows: list[Row], bands: int = 8) -> str:
    from benchmarks.timing import format_table

    out = []
    edges = np.unique(np.geomspace(1, max(r.n for r in rows) + 1, bands + 1).astype(int))
    for low, high in zip(edges[:-1], edges[1:], strict=True):
        band = [r for r in rows if low <= r.n < high]
        if not band:
            continue
        worst = max(band, key=lambda r: r.vs_numpy)
        out.append([
            f"{low}..{high - 1}",
            str(len(band)),
            f"{worst.vs_numpy:.2f} (n={worst.n})",
            f"{max(r.tracejit_rms for r in band):.2f}",
            f"{max(r.numpy_rms for r in band):.2f}",
        ])  # fmt: skip
    header = ["lengths", "count", "max vs NumPy", "RMS: tracejit", "RMS: NumPy"]
    return format_table(header, out)


def run(lengths: Sequence[int], dtype: str) -> dict[str, Any]:
    rows = measure(lengths, np.dtype(dtype))
    worst = max(rows, key=lambda r: r.vs_numpy)
    print(f"\nnp.fft.fft accuracy, {dtype}, {len(rows)} lengths in 1..{max(lengths)} "
          f"(errors in eps of {np.finfo(np.dtype(dtype)).dtype})")  # fmt: skip
    print(summary(rows))
    print(f"worst: {worst.vs_numpy:.2f} eps from NumPy (n={worst.n}); relative RMS "
          f"{max(r.tracejit_rms for r in rows):.2f} eps against long double "
          f"(NumPy's {max(r.numpy_rms for r in rows):.2f})")  # fmt: skip
    return {
        "dtype": dtype,
        "lengths": len(rows),
        "max_length": max(lengths),
        "max_vs_numpy_eps": worst.vs_numpy,
        "worst_length": worst.n,
        "max_rms_eps": max(r.tracejit_rms for r in rows),
        "numpy_max_rms_eps": max(r.numpy_rms for r in rows),
    }


def report(quick: bool) -> list[dict[str, Any]]:
    """The `make bench` section: both dtypes on the default sample (--quick: a small one)."""
    if quick:
        lengths = sample_lengths(4096, every_up_to=64, primes=8, others=8)
    else:
        lengths = sample_lengths(4096)
    return [run(lengths, dtype) for dtype in DTYPES]


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.fft_accuracy")
    parser.add_argument("--max-length", type=int, default=4096)
    parser.add_argument("--dtype", choices=DTYPES, help="one dtype (default: both)")
    parser.add_argument("--all", action="store_true", help="every length, not a sample")
    args = parser.parse_args(argv)
    every = list(range(1, args.max_length + 1))
    lengths = every if args.all else sample_lengths(args.max_length)
    for dtype in [args.dtype] if args.dtype else DTYPES:
        run(lengths, dtype)


if __name__ == "__main__":
    main()
