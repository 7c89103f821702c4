"""Memory: calling a compiled kernel over and over leaves resident memory flat, and
compiled Functions that are dropped release their machine code (LLVM engines freed, seen
through weak references to the llvmlite ExecutionEngine objects) and their Python
functions.

Measured in a fresh interpreter (`memory_probe.py`) with /proc/self/statm. The short
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

PROBE = str(Path(__file__).with_name("memory_probe.py"))
TENSOR_ARRAY_PROBE = str(Path(__file__).with_name("tensor_array_probe.py"))
SLOW = os.environ.get("TRACEJIT_SLOW") == "1"
slow = pytest.mark.skipif(not SLOW, reason="long form: set TRACEJIT_SLOW=1 (minutes)")

# RSS growth per compiled-and-dropped Function beyond what llvmlite alone leaks per
# compile (`memory_probe.llvmlite_baseline`: 120-180 KB on x86-64, llvmlite 0.50's O3
# pass builder). Measured on top of that: ~280 KB per Function over 50 Functions (early
# growth of glibc arenas and LLVM/xDSL tables), ~65 KB over 200. A Function kept alive
# costs ~1.1 MB, so a leaked engine or trace exceeds this bound.
OURS_PER_FUNCTION_BYTES = 400 * 1024


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


def check_released(count: int) -> None:
    numbers = probe("functions", count)
    assert numbers["alive_engines"] == 0, numbers  # the machine code was freed
    assert numbers["alive_user_functions"] == 0, numbers  # nothing caches them strongly
    per_function = (numbers["after"] - numbers["before"]) / count
    ours = per_function - max(numbers["llvmlite_bytes_per_compile"], 0)
    assert ours < OURS_PER_FUNCTION_BYTES, (
        f"{per_function / 1024:.0f} KiB per Function, of which llvmlite alone "
        f"{numbers['llvmlite_bytes_per_compile'] / 1024:.0f} KiB: {numbers}"
    )


def test_100k_calls_keep_memory_flat():
    check_flat(100_000)


def test_10k_calls_with_a_dynamic_tensor_array_keep_memory_flat():
    check_flat(10_000, "tensor_array")


def test_dropped_functions_release_their_engines():
    check_released(50)


@pytest.mark.slow
@slow
def test_million_calls_keep_memory_flat():
    check_flat(1_000_000)


@pytest.mark.slow
@slow
def test_thousand_dropped_functions_release_their_engines():
    check_released(1000)


@pytest.mark.slow
@slow
def test_million_calls_with_a_dynamic_tensor_array_keep_memory_flat():
    check_flat(1_000_000, "tensor_array")
