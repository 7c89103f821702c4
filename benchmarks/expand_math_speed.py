"""What expand-math buys: tj.function(lambda x: np.<fn>(x)) with and without the pass vs NumPy.

    taskset -c 0 env OMP_NUM_THREADS=1 .venv/bin/python -m tracejit.benchmarks.expand_math_speed \
        [--n 10000000] [--repeats 5] [--only sin,arctan2]

prints, for N float32 and float64 elements (default 10M, one thread), the median time (ms)
of NumPy, of the compiled function with the default pipeline (expand-math on) and without
expand-math (libm calls / scalarised LLVM intrinsics), and the speed-ups. Inputs lie in
each function's usual range (never the huge-argument slow path of sin/cos/tan).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import tracejit as tj
from tracejit.compiler import driver
from tracejit.passes.pipeline import DEFAULT_PIPELINE

FUNCTIONS = {
    "exp": np.exp, "expm1": np.expm1, "exp2": np.exp2, "log": np.log, "log1p": np.log1p,
    "log2": np.log2, "log10": np.log10, "tanh": np.tanh, "sin": np.sin, "cos": np.cos,
    "tan": np.tan, "arctan": np.arctan, "arctan2": lambda x: np.arctan2(x, x[::-1]),
    "arcsin": np.arcsin, "arccos": np.arccos, "sinh": np.sinh, "cosh": np.cosh,
    "power": lambda x: np.power(x, x),
}  # fmt: skip


def inputs(name: str, dtype, n: int) -> np.ndarray:
    rng = np.random.default_rng(0)
    if name.startswith("log") or name == "power":
        return rng.uniform(0.01, 10.0, n).astype(dtype)
    if name in ("arcsin", "arccos"):
        return rng.uniform(-1.0, 1.0, n).astype(dtype)
    return rng.uniform(-10.0, 10.0, n).astype(dtype)


def median_ms(call, args, repeats: int) -> float:
    call(*args)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call(*args)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def without_pass(concrete):
    """The same trace compiled with the default pipeline minus expand-math."""
    pipeline = [p for p in DEFAULT_PIPELINE if p != "expand-math"]
    lowered = driver.lower(concrete.graph.module, pipeline).module
    jit = driver.compile_to_machine_code(lowered)
    kernel = jit.kernel(concrete.graph.function_name)

    def run(x):
        out = np.empty_like(x)
        kernel(x, out)
        return out

    run.jit = jit  # keep the engine alive
    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10_000_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--only", default="", help="comma-separated function names")
    parser.add_argument("--no-baseline", action="store_true", help="skip the tj-noexp column")
    args = parser.parse_args()
    names = args.only.split(",") if args.only else list(FUNCTIONS)
    print(
        f"{'fn':8} {'dtype':8} {'numpy':>8} {'tj':>8} {'tj-noexp':>9} {'np/tj':>7} {'noexp/tj':>9}"
    )
    for name in names:
        fn = FUNCTIONS[name]
        for dtype in (np.float32, np.float64):
            x = inputs(name, dtype, args.n)
            compiled = tj.function(lambda v, fn=fn: fn(v))
            t_np = median_ms(fn, (x,), args.repeats)
            t_tj = median_ms(compiled, (x,), args.repeats)
            t_plain = float("nan")
            if not args.no_baseline:
                plain = without_pass(compiled.get_concrete_function(x))
                t_plain = median_ms(plain, (x,), args.repeats)
            print(
                f"{name:8} {np.dtype(dtype).name:8} {t_np:8.2f} {t_tj:8.2f} {t_plain:9.2f} "
                f"{t_np / t_tj:7.2f} {t_plain / t_tj:9.2f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
