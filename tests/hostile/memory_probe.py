"""Resident-memory probes, run in a fresh interpreter by `test_memory.py` (so the numbers
are this workload's, not the test session's). Prints one JSON object.

    python memory_probe.py calls N       # RSS before/after N calls of one compiled kernel
    python memory_probe.py functions N   # RSS growth per compiled-and-discarded Function
"""

from __future__ import annotations

import gc
import json
import os
import sys
import weakref

import numpy as np

import tracejit as tj


def rss() -> int:
    """Resident set size in bytes (/proc/self/statm, field 2, in pages)."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def calls(count: int) -> dict:
    f = tj.function(lambda a, b: np.sum(a * b + 1.0) + a[::-1])
    a, b = np.linspace(0, 1, 64), np.linspace(1, 2, 64)
    for _ in range(min(count // 10, 10_000)):  # warm up: caches, arenas, the fast path
        f(a, b)
    gc.collect()
    before = rss()
    for _ in range(count):
        f(a, b)
    gc.collect()
    return {"before": before, "after": rss(), "calls": count}


def _kernel(i: int):
    def kernel(x):
        return np.sum(np.tanh(x) * (i + 1), axis=0) + x[0]

    return kernel


def functions(count: int) -> dict:
    """Compile and drop `count` Functions. Weak references to each one's user function
    and LLVM execution engine (the object owning the machine code) tell whether they were
    freed; RSS growth per Function is compared with `llvmlite_baseline`."""
    x = np.ones((4, 5))
    for i in range(20):  # warm up: LLVM's and xDSL's one-time state
        tj.function(_kernel(i))(x)
    baseline = llvmlite_baseline(max(count // 2, 25))  # first: freed memory would hide it
    gc.collect()
    before = rss()
    engines, user_functions = [], []
    for i in range(count):
        kernel = _kernel(i)
        f = tj.function(kernel)
        f(x)
        engines.append(weakref.ref(f.get_concrete_function(x).compilation.jit._engine))
        user_functions.append(weakref.ref(kernel))
        del f, kernel
    gc.collect()
    return {
        "before": before,
        "after": rss(),
        "functions": count,
        "alive_engines": sum(ref() is not None for ref in engines),
        "alive_user_functions": sum(ref() is not None for ref in user_functions),
        "llvmlite_bytes_per_compile": baseline,
    }


def llvmlite_baseline(count: int) -> float:
    """RSS growth per compile of llvmlite alone (parse, O3, MCJIT, engine freed) for one
    of these kernels' LLVM IR. llvmlite 0.50 never frees the PassInstrumentationCallbacks
    its PassBuilder allocates nor the callbacks each O3 run registers there (~100 KB per
    compile, ffi/newpassmanagers.cpp): growth tracejit cannot avoid with O3 on."""
    from tracejit.codegen import jit

    text = _llvm_text()
    for _ in range(30):  # until memory freed earlier is used up
        jit.compile_llvm_ir(text, {})
    gc.collect()
    before = rss()
    for _ in range(count):
        jit.compile_llvm_ir(text, {})
    gc.collect()
    return (rss() - before) / count


def _llvm_text() -> str:
    from tracejit.codegen import jit

    captured = []
    compile_llvm_ir = jit.compile_llvm_ir
    jit.compile_llvm_ir = lambda text, *args, **kw: (
        captured.append(text) or compile_llvm_ir(text, *args, **kw)
    )
    try:
        tj.function(_kernel(-1))(np.ones((4, 5)))
    finally:
        jit.compile_llvm_ir = compile_llvm_ir
    return captured[-1]


if __name__ == "__main__":
    probe = {"calls": calls, "functions": functions}[sys.argv[1]]
    print(json.dumps(probe(int(sys.argv[2]))))
