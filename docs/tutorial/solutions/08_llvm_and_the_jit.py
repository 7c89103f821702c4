"""Solutions to the exercises of chapter 08 (LLVM and the JIT). Run: .venv/bin/python <file>."""

import re

import numpy as np
from course_checks import check_compiled, tiering_off
from xdsl.dialects import func

import tracejit as tj
from tracejit.codegen import translate_module
from tracejit.compiler.driver import compile_to_machine_code, lower
from tracejit.ir.lapack_contract import LAPACK_PREFIX, ROUTINES
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


# 4. np.linalg.inv of a float32 stack: sgesv factors each matrix and solves against the
#    identity, in one call. Its address is table entry 44 (ROUTINES: s, d, c, z per family,
#    the families added later at the end); sgesv(n, nrhs, a, lda, ipiv, b, ldb, info) takes
#    8 pointers: every argument by reference, info last, no hidden string length.
def inverse(a):
    return np.linalg.inv(a)


def lapack_calls(function, *args) -> dict[str, tuple[int, int]]:
    """routine -> (its table entry, the pointers its indirect call passes), from the IR."""
    concrete = tj.function(function).get_concrete_function(*args)
    lowered = lower(concrete.graph.module).module
    declared = [
        op.sym_name.data.removeprefix(LAPACK_PREFIX)
        for op in lowered.walk()
        if isinstance(op, func.FuncOp) and op.sym_name.data.startswith(LAPACK_PREFIX)
    ]
    llvm_ir = translate_module(lowered)
    found = {}
    # %e = getelementptr ptr, ptr %table, i32 <entry> ; %f = load ptr, ptr %e ; call void %f(...)
    name = r'%"[.\d]+"'
    table_reads = (
        rf"({name}) = getelementptr ptr, ptr {name}, i32 (\d+)\n\s*({name}) = load ptr, ptr \1\n"
    )
    for _, entry, routine in re.findall(table_reads, llvm_ir):
        arguments = re.search(rf"call void {re.escape(routine)}\(([^)]*)\)", llvm_ir).group(1)
        found[ROUTINES[int(entry)]] = (int(entry), arguments.count("ptr "))
    assert set(found) == set(declared), (found, declared)
    return found


rng = np.random.default_rng(8)
stack = (rng.standard_normal((2, 3, 3)) + 3 * np.eye(3)).astype(np.float32)
assert lapack_calls(inverse, stack) == {"sgesv": (44, 8)}
compiled_inverse = tj.function(inverse)
check_compiled(compiled_inverse, stack, expected=np.linalg.inv(stack), rtol=1e-5, atol=1e-6)
singular = stack.copy()
singular[1] = [[1, 2, 3], [2, 4, 6], [0, 1, 1]]  # row 1 is twice row 0, exactly
for compute in (np.linalg.inv, compiled_inverse):
    try:
        with tiering_off():  # the machine code answers (the trace above is compiled)
            compute(singular)
    except np.linalg.LinAlgError as error:
        assert "Singular matrix" in str(error)
    else:
        raise AssertionError(f"{compute} inverted a singular matrix")
print("ok")
