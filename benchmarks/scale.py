"""How compile time and call time grow with the number of traced ops and with array size.

`python -m benchmarks --only scale [--quick]` prints two tables: a chain of N NumPy ops
(N = 10, 100, 1000 and, without --quick, 10000) on 1000-element arrays, stage by stage with
the time per op so super-linear growth stands out (and the passes that grow fastest); and W2's
expression on 10 ... 10^8 elements (10^6 with --quick). `python -m benchmarks.scale --profile N`
prints a cProfile of compiling the N-op chain.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from benchmarks.latency import compile_breakdown
from benchmarks.timing import QUICK, format_seconds, format_table, median_seconds, settle_compiles
from benchmarks.workloads import w2_elementwise

# The chain cycles through four ops (the constants keep values bounded, nothing folds away).
STEPS: list[Callable[[Any, Any], Any]] = [
    lambda x, y: x * 1.0001,
    lambda x, y: x + y,
    lambda x, y: np.tanh(x),
    lambda x, y: x - 0.5,
]
# Skip the next chain length when a linear extrapolation of the last compile exceeds this.
MAX_COMPILE_SECONDS = 600.0


def chain_function(n: int) -> Callable[[Any, Any], Any]:
    def chain(x, y):
        for i in range(n):
            x = STEPS[i % len(STEPS)](x, y)
        return x

    return chain


def traced_op_count(function: Callable[..., Any], inputs: tuple[Any, ...]) -> int:
    import tracejit as tj

    module = tj.function(function).get_concrete_function(*inputs).graph.module
    return sum(1 for _ in module.walk()) - 1


def ops_sweep(quick: bool) -> list[dict[str, Any]]:
    import tracejit as tj

    counts = [10, 100, 1000] if quick else [10, 100, 1000, 10000]
    rng = np.random.default_rng(0)
    inputs = (rng.random(1000, dtype=np.float32), rng.random(1000, dtype=np.float32) * 0.1)
    tj.function(chain_function(4))(*inputs)  # one-time imports and setup are not per op
    rows: list[dict[str, Any]] = []
    for n in counts:
        if rows and rows[-1]["compile_seconds"] * n / rows[-1]["numpy_ops"] > MAX_COMPILE_SECONDS:
            print(f"  skipping {n} ops: the compile would take over {MAX_COMPILE_SECONDS:.0f} s")
            break
        function = chain_function(n)
        stages, passes = compile_breakdown(function, inputs)
        compiled = tj.function(function)
        expected = function(*inputs)
        np.testing.assert_allclose(compiled(*inputs), expected, rtol=1e-4, atol=1e-5)
        settle_compiles()  # the first call was interpreted (tiered.py): time compiled code
        rows.append(
            {
                "numpy_ops": n,
                "traced_ops": traced_op_count(function, inputs),
                "stages": stages,
                "passes": passes,
                "compile_seconds": sum(stages.values()),
                "call_seconds": median_seconds(lambda c=compiled: c(*inputs), QUICK),
                "numpy_call_seconds": median_seconds(lambda f=function: f(*inputs), QUICK),
            }
        )
        if rows[-1]["compile_seconds"] > MAX_COMPILE_SECONDS:
            break
    return rows


def size_sweep(quick: bool) -> list[dict[str, Any]]:
    import tracejit as tj

    sizes = [10**k for k in range(1, 7 if quick else 9)]
    rng = np.random.default_rng(0)
    rows = []
    for size in sizes:
        x = rng.standard_normal(size, dtype=np.float32)
        y = rng.standard_normal(size, dtype=np.float32)
        compiled = tj.function(w2_elementwise)
        start = time.perf_counter()
        got = compiled(x, y)
        first = time.perf_counter() - start
        np.testing.assert_allclose(got, w2_elementwise(x, y), rtol=1e-5, atol=1e-5)
        settle_compiles()  # the first call was interpreted (tiered.py): time compiled code
        call = median_seconds(lambda c=compiled, a=x, b=y: c(a, b), QUICK)
        rows.append(
            {
                "size": size,
                "first_call_seconds": first,
                "call_seconds": call,
                "numpy_call_seconds": median_seconds(lambda a=x, b=y: w2_elementwise(a, b), QUICK),
            }
        )
        del x, y, got
    return rows


def print_ops(rows: list[dict[str, Any]]) -> None:
    stage_names = list(rows[0]["stages"])
    header = ["NumPy ops", "tj ops", *stage_names, "compile", "per tj op", "call", "NumPy call"]
    table = []
    for r in rows:
        table.append(
            [
                str(r["numpy_ops"]),
                str(r["traced_ops"]),
                *(format_seconds(r["stages"][s]) for s in stage_names),
                format_seconds(r["compile_seconds"]),
                format_seconds(r["compile_seconds"] / r["traced_ops"]),
                format_seconds(r["call_seconds"]),
                format_seconds(r["numpy_call_seconds"]),
            ]
        )
    print("\nCompile and call time vs number of ops (chain on 1000 f32 elements)")
    print(format_table(header, table))
    print_pass_growth(rows)


def print_pass_growth(rows: list[dict[str, Any]]) -> None:
    """Per pass: seconds at each size and the growth exponent between the two largest sizes
    (1.0 = linear in the number of ops, 2.0 = quadratic)."""
    if len(rows) < 2:
        return
    small, large = rows[-2], rows[-1]
    ratio = large["traced_ops"] / small["traced_ops"]
    table = []
    for i, (name, seconds) in enumerate(large["passes"]):
        before = small["passes"][i][1]
        exponent = np.log(seconds / before) / np.log(ratio) if before > 0 and seconds > 0 else 0
        table.append(
            [f"{i}: {name}", *(format_seconds(r["passes"][i][1]) for r in rows), f"{exponent:.2f}"]
        )
    for name in ("trace", "translate to LLVM IR", "LLVM O3", "MCJIT codegen"):
        before, seconds = small["stages"][name], large["stages"][name]
        exponent = np.log(seconds / before) / np.log(ratio) if before > 0 and seconds > 0 else 0
        table.append([name, *(format_seconds(r["stages"][name]) for r in rows), f"{exponent:.2f}"])
    header = ["pass / stage", *(f"{r['numpy_ops']} ops" for r in rows), "growth exponent"]
    print(format_table(header, table))


def print_sizes(rows: list[dict[str, Any]]) -> None:
    table = [
        [
            f"{r['size']:.0e}",
            format_seconds(r["first_call_seconds"]),
            format_seconds(r["call_seconds"]),
            format_seconds(r["numpy_call_seconds"]),
            f"{r['call_seconds'] / r['size'] * 1e9:.3g}",
            f"{r['numpy_call_seconds'] / r['call_seconds']:.2f}x",
        ]
        for r in rows
    ]
    header = ["elements", "first call", "call", "NumPy call", "ns/element", "NumPy/this"]
    print("\nW2 (x**2+3*y-tanh(x)*0.5, f32) vs array size")
    print(format_table(header, table))


def report(quick: bool) -> dict[str, Any]:
    ops = ops_sweep(quick)
    print_ops(ops)
    sizes = size_sweep(quick)
    print_sizes(sizes)
    return {"ops": ops, "sizes": sizes}


def profile(n: int, top: int = 30) -> None:
    """cProfile of compiling the n-op chain (trace + passes + LLVM), by own time."""
    import tracejit as tj

    rng = np.random.default_rng(0)
    inputs = (rng.random(1000, dtype=np.float32), rng.random(1000, dtype=np.float32))
    compiled = tj.function(chain_function(n))
    profiler = cProfile.Profile()
    profiler.enable()
    compiled(*inputs)
    profiler.disable()
    pstats.Stats(profiler).sort_stats("tottime").print_stats(top)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m benchmarks.scale")
    parser.add_argument("--profile", type=int, default=1000, help="ops in the profiled chain")
    profile(parser.parse_args().profile)
