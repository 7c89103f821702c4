"""What expand-math buys: tj.function(lambda x: np.<fn>(x)) with and without the pass vs NumPy.

    taskset -c 0 env OMP_NUM_THREADS=1 .venv/bin/python -m tracejit.benchmarks.expand_math_speed

prints, for 1e6 float32 and float64 elements, the median time (ms) of NumPy, of the compiled
function with the default pipeline (expand-math on) and without expand-math (libm calls /
scalarised LLVM intrinsics), and the speed-ups.
"""

from __future__ import annotations

import statistics
import time

import numpy as np

import tracejit as tj
from tracejit.frontend import driver
from tracejit.passes.pipeline import DEFAULT_PIPELINE

N = 1_000_000
REPEATS = 15

FUNCTIONS = {
    "exp": np.exp, "expm1": np.expm1, "exp2": np.exp2, "log": np.log, "log1p": np.log1p,
    "log2": np.log2, "log10": np.log10, "tanh": np.tanh, "sin": np.sin, "cos": np.cos,
    "power": lambda x: np.power(x, x),
}  # fmt: skip


def inputs(name: str, dtype) -> np.ndarray:
    rng = np.random.default_rng(0)
    if name.startswith("log") or name == "power":
        return rng.uniform(0.01, 10.0, N).astype(dtype)
    return rng.uniform(-10.0, 10.0, N).astype(dtype)


def median_ms(call, *args) -> float:
    call(*args)
    times = []
    for _ in range(REPEATS):
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
    print(
        f"{'fn':8} {'dtype':8} {'numpy':>8} {'tj':>8} {'tj-noexp':>9} {'np/tj':>7} {'noexp/tj':>9}"
    )
    for name, fn in FUNCTIONS.items():
        for dtype in (np.float32, np.float64):
            x = inputs(name, dtype)
            compiled = tj.function(lambda v, fn=fn: fn(v))
            concrete = compiled.get_concrete_function(x)
            plain = without_pass(concrete)
            t_np = median_ms(fn, x)
            t_tj = median_ms(compiled, x)
            t_plain = median_ms(plain, x)
            print(
                f"{name:8} {np.dtype(dtype).name:8} {t_np:8.3f} {t_tj:8.3f} {t_plain:9.3f} "
                f"{t_np / t_tj:7.2f} {t_plain / t_tj:9.2f}"
            )


if __name__ == "__main__":
    main()
