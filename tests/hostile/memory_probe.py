"""Resident-memory probes, run in a fresh interpreter by `test_memory.py` (so the numbers
are this workload's, not the test session's). Prints one JSON object.

    python memory_probe.py calls N       # RSS before/after N calls of one compiled kernel
    python memory_probe.py functions N   # RSS growth per compiled-and-discarded Function
"""

from __future__ import annotations

import ctypes
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


_libc = ctypes.CDLL(None)


class _MallInfo2(ctypes.Structure):
    """glibc's `struct mallinfo2` (glibc >= 2.33)."""

    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks",
        "fordblks", "keepcost")]


def trimmed_rss() -> int:
    """RSS once glibc has handed every free page back (`malloc_trim`): what is left is memory
    in use, or free memory sharing pages with it, not free memory glibc merely kept."""
    gc.collect()
    _libc.malloc_trim(0)
    return rss()


def heap_in_use() -> int | None:
    """Bytes the C heap has handed out and not had back (every arena and mmapped block), or
    None without glibc's mallinfo2: native leaks (LLVM's) without the heap's fragmentation."""
    if not hasattr(_libc, "mallinfo2"):
        return None
    _libc.mallinfo2.restype = _MallInfo2
    info = _libc.mallinfo2()
    return info.uordblks + info.hblkhd


def _kernel(i: int):
    """The i-th fresh function: element-wise, a reduction, or one capturing an array (a
    constant of the trace, and so of its LLVM module), each with `i` in it."""
    k = float(i + 1)
    if i % 3 == 0:

        def elementwise(x):
            return np.tanh(x) * k + x[0]

        return elementwise
    if i % 3 == 1:

        def reduction(x):
            return np.sum(x * k, axis=0) + np.max(x)

        return reduction
    table = np.arange(5120.0).reshape(5, 1024) * k  # 40 KiB

    def captured(x):
        return np.sum(x @ table, axis=0)

    return captured


def functions(count: int) -> dict:
    """Compile and drop `count` Functions, after 30 unmeasured ones (LLVM's and xDSL's
    one-time state, early growth of glibc's arenas). Weak references to each one's user
    function and LLVM execution engine (the object owning the machine code) tell whether
    they were freed. RSS is read as it is and after `malloc_trim`, and the C heap's bytes
    in use (None without glibc's mallinfo2) before and after."""
    tj.config.set_tiered_compilation(False)  # each first call compiles (none interpreted)
    x = np.ones((4, 5))
    for i in range(30):
        tj.function(_kernel(10**6 + i))(x)
    from tracejit.compiler import driver

    driver.wait_for_runtime()  # the thread pool's and block cache's one compile
    before, before_trimmed, before_heap = rss(), trimmed_rss(), heap_in_use()
    engines, user_functions, kept_for_the_collector = [], [], 0
    for i in range(count):
        kernel = _kernel(i)
        f = tj.function(kernel)
        f(x)
        engines.append(weakref.ref(f.get_concrete_function(x).compilation.jit._engine))
        user_functions.append(weakref.ref(kernel))
        del f, kernel
        # freed now by reference counting, or kept by a cycle until a full collection
        kept_for_the_collector += engines[-1]() is not None
    gc.collect()
    # The memo of compiled modules (compiler/compiled_memo.py) keeps the object code of the
    # latest ones by design, bounded in bytes: reported, then emptied, so that what remains
    # is what nothing will ever free.
    from tracejit.compiler.compiled_memo import MEMO

    memo_bytes, memo_entries = MEMO.bytes, len(MEMO)
    MEMO.clear()
    after = rss()  # as it is: freed memory glibc keeps counts (fragmentation)
    after_trimmed, after_heap = trimmed_rss(), heap_in_use()
    return {
        "memo_bytes": memo_bytes,
        "memo_entries": memo_entries,
        "before": before,
        "after": after,
        "engines_kept_for_the_collector": kept_for_the_collector,
        "before_trimmed": before_trimmed,
        "after_trimmed": after_trimmed,
        "before_heap": before_heap,
        "after_heap": after_heap,
        "functions": count,
        "alive_engines": sum(ref() is not None for ref in engines),
        "alive_user_functions": sum(ref() is not None for ref in user_functions),
    }


if __name__ == "__main__":
    probe = {"calls": calls, "functions": functions}[sys.argv[1]]
    print(json.dumps(probe(int(sys.argv[2]))))
