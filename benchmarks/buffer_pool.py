"""What the output buffer pool buys on W2 (x**2 + 3*y - tanh(x)*0.5, 10M float32, one thread).

    taskset -c 0 .venv/bin/python -m benchmarks.buffer_pool [--elements N] [--rounds R]

One process, interleaved rounds of: NumPy, the compiled function with the pool off
(`set_buffer_cache_bytes(0)`: every 40 MB output is a fresh mmap that page-faults in) and on
(the default: a dead output's block serves the next call). Each round times a steady loop of
calls that drop their result; the table gives median ms and NumPy/this per variant, so the
ratios come from the same run even on a loaded machine.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import tracejit as tj
from tracejit.runtime.buffer_pool import POOL


def w2(x, y):
    return x**2 + 3 * y - np.tanh(x) * 0.5


def loop_ms(call, x, y, calls: int) -> float:
    start = time.perf_counter()
    for _ in range(calls):
        call(x, y)  # the result dies here, as in a steady loop of calls
    return (time.perf_counter() - start) / calls * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--elements", type=int, default=10_000_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=10)
    options = parser.parse_args()
    rng = np.random.default_rng(0)
    x = rng.standard_normal(options.elements).astype(np.float32)
    y = rng.standard_normal(options.elements).astype(np.float32)
    compiled = tj.function(w2)
    np.testing.assert_allclose(compiled(x, y), w2(x, y), rtol=1e-5, atol=1e-5)
    limit = POOL.limit
    times: dict[str, list[float]] = {"numpy": [], "tracejit, pool off": [], "tracejit, pool on": []}
    for _ in range(options.rounds):
        times["numpy"].append(loop_ms(w2, x, y, options.calls))
        tj.config.set_buffer_cache_bytes(0)
        tj.config.clear_buffer_cache()
        times["tracejit, pool off"].append(loop_ms(compiled, x, y, options.calls))
        tj.config.set_buffer_cache_bytes(limit)
        times["tracejit, pool on"].append(loop_ms(compiled, x, y, options.calls))
    numpy_ms = statistics.median(times["numpy"])
    print(f"W2, {options.elements} float32, {options.rounds} rounds of {options.calls} calls")
    for name, samples in times.items():
        ms = statistics.median(samples)
        print(f"  {name:20s} {ms:8.2f} ms   NumPy/this {numpy_ms / ms:5.2f}x")


if __name__ == "__main__":
    main()
