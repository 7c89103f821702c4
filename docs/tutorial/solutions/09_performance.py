"""Solutions to the exercises of chapter 09 (performance). Run: .venv/bin/python <this file>.

Timings vary from machine to machine, so this checks the reasoning, not the numbers.
"""

import re
import timeit

import numpy as np
from course_checks import check_compiled

import tracejit as tj


def w8_twenty_ops(x, y):
    a = x * y + 1.0
    b = np.exp(-a * a)
    c = np.tanh(b - x)
    d = np.sqrt(np.abs(c) + 1.0)
    e = np.maximum(d, y) - np.minimum(a, x)
    f = e / (1.0 + x * x)
    return np.sum(f) + np.max(c) * np.mean(b)


# 1. The speed-up is largest for small arrays, where NumPy pays ~0.5-1 us per ufunc call
#    (20 of them) and the kernel pays one call; for large arrays both are bound by memory and
#    arithmetic, and the ratio shrinks towards what fusion and vectorisation buy.
compiled = tj.function(w8_twenty_ops)
ratios = {}
for n in (10, 1000, 100_000):
    rng = np.random.default_rng(n)
    x = rng.standard_normal(n, dtype=np.float32)
    y = rng.standard_normal(n, dtype=np.float32)
    check_compiled(compiled, x, y, rtol=1e-3)
    number = max(1, 20_000 // n)
    numpy_time = min(timeit.repeat(lambda x=x, y=y: w8_twenty_ops(x, y), number=number, repeat=3))
    compiled_time = min(timeit.repeat(lambda x=x, y=y: compiled(x, y), number=number, repeat=3))
    ratios[n] = numpy_time / compiled_time
# Typically ratios[10] > ratios[1000] > ratios[100_000] > 1; not asserted: timings are noisy.


# 2. A float64 sum vectorises with half as many lanes as a float32 one (same register width).
def lanes(dtype: type, element: str) -> set[int]:
    ir = tj.function(lambda x: np.sum(x)).get_concrete_function(np.ones(4096, dtype)).llvm_ir
    return {int(n) for n in re.findall(rf"fadd reassoc <(?:vscale x )?(\d+) x {element}>", ir)}


f32_lanes, f64_lanes = lanes(np.float32, "float"), lanes(np.float64, "double")
if f32_lanes and f64_lanes:
    assert max(f32_lanes) == 2 * max(f64_lanes), (f32_lanes, f64_lanes)

# 3. Memory traffic of W2 = x**2 + 3*y - tanh(x)*0.5, in arrays of n floats moved:
#    NumPy: x**2 (read 1, write 1), 3*y (1, 1), + (2, 1), tanh(x) (1, 1), *0.5 (1, 1),
#    - (2, 1): 8 reads + 6 writes = 14 array passes. Fused: read x, y, write out = 3.
numpy_passes = (1 + 1) + (1 + 1) + (2 + 1) + (1 + 1) + (1 + 1) + (2 + 1)
fused_passes = 3
assert numpy_passes / fused_passes > 4  # an upper bound on what fusion alone can buy
print("ok")
