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
    """Compile and drop `count` Functions, after 50 unmeasured ones (LLVM's and xDSL's
    one-time state, early growth of glibc's arenas). Weak references to each one's user
    function and LLVM execution engine (the object owning the machine code) tell whether
    they were freed."""
    x = np.ones((4, 5))
    for i in range(50):
        tj.function(_kernel(i))(x)
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
    }


if __name__ == "__main__":
    probe = {"calls": calls, "functions": functions}[sys.argv[1]]
    print(json.dumps(probe(int(sys.argv[2]))))
