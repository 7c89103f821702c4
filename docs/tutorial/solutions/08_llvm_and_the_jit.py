"""Solutions to the exercises of chapter 08 (LLVM and the JIT). Run: .venv/bin/python <file>."""

import re

import numpy as np

import tracejit as tj
from tracejit.compiler.driver import compile_to_machine_code, lower
from tracejit.passes.pipeline import DEFAULT_PIPELINE


def axpy(a, x, y):
    return a * x + y


def vector_widths(llvm_ir: str, element: str) -> set[int]:
    """Lanes of the vector types in `llvm_ir` (SVE's scalable `<vscale x 4 x float>`: 4)."""
    return {int(n) for n in re.findall(rf"<(?:vscale x )?(\d+) x {element}>", llvm_ir)}


# 1. float64 lanes: a register holds half as many doubles as floats: 4 and 8 with AVX2
#    (256 bits), 8 and 16 with AVX-512 on znver4 (512), 2 and 4 with NEON (128).
f32 = tj.function(axpy).get_concrete_function(np.float32(2), *[np.ones(64, np.float32)] * 2)
f64 = tj.function(axpy).get_concrete_function(np.float64(2), *[np.ones(64, np.float64)] * 2)
widths32 = vector_widths(f32.llvm_ir, "float")
widths64 = vector_widths(f64.llvm_ir, "double")
if widths32 and widths64:  # vectorised on this host
    assert max(widths32) == 2 * max(widths64), (widths32, widths64)


# 2. Without expand-math, exp stays a math.exp -> llvm.exp / expf call per element.
def exponential(x):
    return np.exp(x)


x = np.linspace(-3, 3, 256, dtype=np.float32)
traced = tj.function(exponential).get_concrete_function(x).graph.module
without = [p for p in DEFAULT_PIPELINE if p != "expand-math"]
plain = compile_to_machine_code(lower(traced, without).module).optimized_llvm_ir
expanded = compile_to_machine_code(lower(traced).module).optimized_llvm_ir
LIBRARY_EXP = r"call .*@(llvm\.exp|expf?)\b"
assert re.search(LIBRARY_EXP, plain), "a library call remains"
assert not re.search(LIBRARY_EXP, expanded), "expand-math left no call"
assert vector_widths(expanded, "float"), "the expanded loop is vectorised"

# 3. out aliasing x: the run-time overlap check sends the kernel to its scalar loop, which
#    reads each x[i] before writing out[i], so the result is still a * x + y element-wise.
a = np.float32(2.0)
x = np.arange(64, dtype=np.float32)
y = np.ones(64, np.float32)
expected = a * x + y
kernel = compile_to_machine_code(
    lower(tj.function(axpy).get_concrete_function(a, x, y).graph.module).module
).kernel("axpy")
status = kernel.raw(np.asarray(a).ctypes.data, x.ctypes.data, y.ctypes.data, x.ctypes.data)
assert status == 0
np.testing.assert_array_equal(x, expected)
x2 = np.arange(64, dtype=np.float32)
np.add(np.multiply(a, x2), y, out=x2)
np.testing.assert_array_equal(x2, expected)
print("ok")
