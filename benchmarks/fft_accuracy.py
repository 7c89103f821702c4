"""The accuracy of tracejit's np.fft.fft against NumPy's (pocketfft), both measured against a
long-double reference (NumPy's own FFT in np.clongdouble, 64-bit mantissas on x86-64):

    python -m benchmarks.fft_accuracy [--max-length 4096] [--dtype complex128] [--all]

For each length, a random complex input's transform is compared with the reference by the
relative RMS error ||y - ref||_2 / ||ref||_2; the table prints the worst error of tracejit
and of NumPy per range of lengths and the worst ratio between them. The lengths are every
one up to 256, every prime and power of two up to max-length and 128 others drawn at
random (`--all`: every length; each distinct length is one more transform to compile,
~0.5 s each). They are traced GROUP at a time into one function (one compile per group).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

import numpy as np

GROUP = 64


def sample_lengths(max_length: int, seed: int = 0) -> list[int]:
    """Every length up to 256, the primes and powers of two up to max_length, 128 others."""
    from tracejit.passes.support.fft_plan import prime_factors

    chosen = set(range(1, min(256, max_length) + 1))
    chosen |= {n for n in range(2, max_length + 1) if prime_factors(n) == [n]}
    chosen |= {1 << k for k in range(max_length.bit_length()) if 1 << k <= max_length}
    rest = [n for n in range(1, max_length + 1) if n not in chosen]
    rng = np.random.default_rng(seed)
    chosen |= set(rng.choice(rest, min(128, len(rest)), replace=False).tolist()) if rest else set()
    return sorted(chosen)


def relative_rms(y: np.ndarray, reference: np.ndarray) -> float:
    diff = y.astype(np.clongdouble) - reference
    scale = np.sqrt(np.sum(np.abs(reference) ** 2))
    return float(np.sqrt(np.sum(np.abs(diff) ** 2)) / scale) if scale else 0.0


def transforms(*xs):
    return tuple(np.fft.fft(x) for x in xs)


def measure(
    lengths: Sequence[int], dtype: np.dtype, seed: int = 0
) -> list[tuple[int, float, float]]:
    """(n, tracejit's error, NumPy's error) per length."""
    import tracejit as tj

    rng = np.random.default_rng(seed)
    rows = []
    for start in range(0, len(lengths), GROUP):
        group = lengths[start : start + GROUP]
        xs = [(rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dtype) for n in group]
        compiled = tj.function(transforms)(*xs)
        for n, x, y in zip(group, xs, compiled, strict=True):
            reference = np.fft.fft(x.astype(np.clongdouble))
            rows.append((n, relative_rms(y, reference), relative_rms(np.fft.fft(x), reference)))
    return rows


def summary(rows: list[tuple[int, float, float]], bands: int = 8) -> str:
    from benchmarks.timing import format_table

    out = []
    edges = np.unique(np.geomspace(1, max(n for n, _, _ in rows) + 1, bands + 1).astype(int))
    for low, high in zip(edges[:-1], edges[1:], strict=True):
        band = [r for r in rows if low <= r[0] < high]
        if not band:
            continue
        worst = max(band, key=lambda r: r[1] / max(r[2], 1e-300))
        out.append([
            f"{low}..{high - 1}",
            f"{max(r[1] for r in band):.2e}",
            f"{max(r[2] for r in band):.2e}",
            f"{worst[1] / max(worst[2], 1e-300):.2f} (n={worst[0]})",
        ])  # fmt: skip
    return format_table(["lengths", "tracejit max", "NumPy max", "worst ratio"], out)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.fft_accuracy")
    parser.add_argument("--max-length", type=int, default=4096)
    parser.add_argument("--dtype", default="complex128", choices=["complex64", "complex128"])
    parser.add_argument("--all", action="store_true", help="every length, not a sample")
    args = parser.parse_args(argv)
    every = list(range(1, args.max_length + 1))
    lengths = every if args.all else sample_lengths(args.max_length)
    rows = measure(lengths, np.dtype(args.dtype))
    print(f"relative RMS error against np.clongdouble, {args.dtype}, {len(lengths)} lengths "
          f"in 1..{args.max_length}")  # fmt: skip
    print(summary(rows))
    eps = np.finfo(np.float32 if args.dtype == "complex64" else np.float64).eps
    worst = max(r[1] for r in rows)
    print(f"worst tracejit error {worst:.2e} = {worst / eps:.2f} eps")


if __name__ == "__main__":
    main()
