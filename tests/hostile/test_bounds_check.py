"""`TRACEJIT_CHECK_BOUNDS=1`: every memref.load/store/copy of a kernel is range-checked and
an out-of-range access raises IndexError("internal out-of-bounds access ...") instead of
reading or writing wild memory. It detects compiler bugs, so correct programs never trip
it: CI runs a subset of the NumPy kernel suite with it on (and the fuzzer can run under
it: `TRACEJIT_CHECK_BOUNDS=1 make fuzz`)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects import arith, builtin, func, memref
from xdsl.parser import Parser

from tracejit.codegen import compile_module
from tracejit.ir import runtime_contract
from tracejit.runtime import runtime_errors

ROOT = Path(__file__).resolve().parents[2]

PEEK = """
func.func @peek(%buf: memref<4xf32>, %i: index, %out: memref<f32>) -> i32 {
  %v = memref.load %buf[%i] : memref<4xf32>
  memref.store %v, %out[] : memref<f32>
  %ok = arith.constant 0 : i32
  func.return %ok : i32
}
"""


def compile_peek():
    ctx = Context()
    for dialect in (builtin.Builtin, func.Func, arith.Arith, memref.MemRef):
        ctx.load_dialect(dialect)
    module = Parser(ctx, PEEK).parse_module()
    return compile_module(module, check_bounds=True).kernel("peek"), module


def test_out_of_range_load_fails_its_own_check():
    peek, module = compile_peek()
    buf, out = np.arange(4, dtype=np.float32), np.zeros((), np.float32)
    assert peek(buf, 3, out) == 0 and out == 3
    messages = [m.data for m in module.attributes[runtime_contract.MESSAGES_ATTR]]
    assert messages[0].startswith("OutOfBoundsError: memref.load at "), messages
    for index in (4, 1 << 40, -1):
        status = peek(buf, index, out)
        assert messages[status - 1] == messages[0]
        with pytest.raises(IndexError, match="out-of-bounds access by memref.load .*tracejit bug"):
            runtime_errors.raise_for_status(status, messages)


VIEW = """
func.func @view(%n: index, %out: memref<f64>) -> i32 {
  %scratch = memref.alloca() : memref<32xi8>
  %c0 = arith.constant 0 : index
  %v = memref.view %scratch[%c0][%n] : memref<32xi8> to memref<?xf64>
  %x = arith.constant 1.5 : f64
  memref.store %x, %v[%c0] : memref<?xf64>
  %y = memref.load %v[%c0] : memref<?xf64>
  memref.store %y, %out[] : memref<f64>
  %ok = arith.constant 0 : i32
  func.return %ok : i32
}
"""


def test_a_view_larger_than_its_scratch_fails_its_own_check():
    """bufferize views a loop's temporary of run-time size into a scratch buffer of its
    static bound (passes/bufferize/builder.py): a wrong bound is caught at the view."""
    ctx = Context()
    for dialect in (builtin.Builtin, func.Func, arith.Arith, memref.MemRef):
        ctx.load_dialect(dialect)
    module = Parser(ctx, VIEW).parse_module()
    view = compile_module(module, check_bounds=True).kernel("view")
    out = np.zeros((), np.float64)
    assert view(4, out) == 0 and out == 1.5  # 4 f64 fill the 32 bytes
    status = view(5, out)
    messages = [m.data for m in module.attributes[runtime_contract.MESSAGES_ATTR]]
    assert messages[status - 1].startswith("OutOfBoundsError: memref.view at "), messages


def test_statuses_map_to_python_errors():
    with pytest.raises(MemoryError):
        runtime_errors.raise_for_status(runtime_contract.OUT_OF_MEMORY, [])


def test_kernel_suite_subset_passes_with_bounds_checks():
    """Indexing (gathers, slices with negative steps, run-time indices) is where an
    off-by-one would hide; run its suite with every buffer access checked. The gathers of
    `x[mask]` read unchecked (`tj.gather ... in_bounds`): their tests run checked here too."""
    env = {**os.environ, "TRACEJIT_CHECK_BOUNDS": "1", "PYTHONFAULTHANDLER": "1"}
    command = [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
               "tests/numpy/test_indexing.py", "tests/numpy/test_mask_gathers.py"]  # fmt: skip
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=900)  # fmt: skip
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
