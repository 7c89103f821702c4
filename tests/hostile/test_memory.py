"""Memory: calling a compiled kernel over and over leaves resident memory flat, and
compiled Functions that are dropped release their machine code (LLVM engines freed, seen
through weak references to the llvmlite ExecutionEngine objects) and their Python
functions.

Measured in a fresh interpreter (`memory_probe.py`) with /proc/self/statm (for dropped
Functions as it is and after `malloc_trim`, and the C heap's bytes in use besides). The short
forms run in `make test`; the long forms (a million calls, 1,000 Functions) are marked
slow and run with TRACEJIT_SLOW=1. The TensorArray form calls a function whose dynamic
TensorArray's `stack()` is allocated by the kernel and freed by NumPy
(`tensor_array_probe.py`).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tracejit.compiler.compiled_memo import MAX_BYTES as MEMO_MAX_BYTES

PROBE = str(Path(__file__).with_name("memory_probe.py"))
TENSOR_ARRAY_PROBE = str(Path(__file__).with_name("tensor_array_probe.py"))
SLOW = os.environ.get("TRACEJIT_SLOW") == "1"
slow = pytest.mark.skipif(not SLOW, reason="long form: set TRACEJIT_SLOW=1 (minutes)")

# Memory a compiled-and-dropped Function may leave behind: issue 20's bound, 20 MB per 1,000
# Functions, of resident memory once glibc has returned its free pages (`malloc_trim`).
# Measured after 30 warm-up Functions (varied: element-wise, reductions, a captured 40 KiB
# array): ~21 KiB per Function over 120 (the C heap's and Python's arenas still growing to
# their working size), ~10 over 300, then ~4 KiB per Function more. Of that, ~1.5 KiB is C
# heap still in use: llvmlite never frees a PassBuilder's instrumentation callbacks
# (codegen/jit.py's `_optimize`). Before each compile had an LLVM context of its own, the
# global context kept every kernel's constants (~19 KiB of heap per Function here); before
# llvmlite's O3 pass managers were freed (`jit._run_pipeline`), ~70 KiB more. A Function
# kept alive costs ~1.1 MB, so a leaked engine or trace exceeds either bound at once. RSS as
# it is, untrimmed: ~35 KiB per Function while the fast-call closures held their Function and
# ConcreteFunction in cycles (engines freed in bulk by the full collections); ~2.2 since.
PER_FUNCTION_BYTES = 20 * 1024 * 1024 // 1000
# (Besides the memo of compiled modules, compiler/compiled_memo.py: bounded, and emptied
# before measuring, it holds at most MAX_BYTES of the latest object code.)
SHORT_RUN_PER_FUNCTION_BYTES = 2 * PER_FUNCTION_BYTES  # 60 Functions: arenas still growing
HEAP_PER_FUNCTION_BYTES = 6 * 1024  # C heap in use (glibc's mallinfo2), all native leaks


def probe(kind: str, count: int) -> dict:
    env = {**os.environ, "PYTHONFAULTHANDLER": "1"}
    if kind == "tensor_array":
        command = [sys.executable, TENSOR_ARRAY_PROBE, str(count)]
    else:
        command = [sys.executable, PROBE, kind, str(count)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=3600, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])


def check_flat(count: int, kind: str = "calls") -> None:
    numbers = probe(kind, count)
    growth = (numbers["after"] - numbers["before"]) / numbers["before"]
    assert growth < 0.05, f"RSS grew {growth:.1%} over {count} calls: {numbers}"


def check_released(count: int, rss_bound: int) -> None:
    numbers = probe("functions", count)
    # the memo of compiled modules kept the latest ones, within its bound (the RSS and heap
    # below are measured once it is emptied)
    assert 0 < numbers["memo_bytes"] <= MEMO_MAX_BYTES, numbers
    assert numbers["alive_engines"] == 0, numbers  # the machine code was freed
    assert numbers["alive_user_functions"] == 0, numbers  # nothing caches them strongly
    # ... at once, when the last reference goes: machine code kept by a reference cycle
    # waits for Python's full collection, rare in a process of many long-lived objects,
    # and freed then in bulk it leaves the C heap fragmented (~35 MB per 1,000 Functions
    # of resident memory that only malloc_trim returned)
    assert numbers["engines_kept_for_the_collector"] == 0, numbers
    for key in ("", "_trimmed"):
        per_function = (numbers[f"after{key}"] - numbers[f"before{key}"]) / count
        message = f"{per_function / 1024:.0f} KiB per Function (RSS{key}): {numbers}"
        assert per_function <= rss_bound, message
    if numbers["before_heap"] is not None:
        heap = (numbers["after_heap"] - numbers["before_heap"]) / count
        message = f"{heap / 1024:.1f} KiB of C heap in use per Function: {numbers}"
        assert heap <= HEAP_PER_FUNCTION_BYTES, message


def test_100k_calls_keep_memory_flat():
    check_flat(100_000)


def test_10k_calls_with_a_dynamic_tensor_array_keep_memory_flat():
    check_flat(10_000, "tensor_array")


def test_dropped_functions_release_their_engines():
    check_released(60, SHORT_RUN_PER_FUNCTION_BYTES)


@pytest.mark.slow
@slow
def test_million_calls_keep_memory_flat():
    check_flat(1_000_000)


@pytest.mark.slow
@slow
def test_thousand_dropped_functions_release_their_engines():
    check_released(1000, PER_FUNCTION_BYTES)


@pytest.mark.slow
@slow
def test_million_calls_with_a_dynamic_tensor_array_keep_memory_flat():
    check_flat(1_000_000, "tensor_array")
