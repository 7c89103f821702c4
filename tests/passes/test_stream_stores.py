"""stream-stores: line stores write exactly what the element loop wrote, for every bound.

The kernels run through `stream-stores{min-bytes=0},parallelize,scf-to-cf` and LLVM on a
static 4096-element output with the loop's bounds as arguments, so one compile per element
type covers every start, length and tail, and the output is also given at every
misalignment of its first line (the code generator writes a misaligned line with an
ordinary store). Elements outside [lo, hi) must keep their sentinel. Through the frontend,
a big output is checked against eager NumPy on one and two threads (the default pipeline
streams outputs bigger than the host's last-level cache).
"""

from __future__ import annotations

import functools
import platform

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.parser import Parser

import tracejit as tj
from tracejit.compiler import driver
from tracejit.compiler.host import host_last_level_cache_bytes
from tracejit.compiler.options import OPTIONS
from tracejit.ir import runtime_contract
from tracejit.ir.dialect import make_context
from tracejit.runtime import runtime_errors

LOWER = "stream-stores{min-bytes=0},parallelize,scf-to-cf"
SIZE = 4096
ELEMENTS = {  # mlir type -> (NumPy dtype, multiply op, add op)
    "f32": (np.float32, "arith.mulf", "arith.addf"),
    "f64": (np.float64, "arith.mulf", "arith.addf"),
    "i8": (np.int8, "arith.muli", "arith.addi"),
    "i16": (np.int16, "arith.muli", "arith.addi"),
    "i32": (np.int32, "arith.muli", "arith.addi"),
    "i64": (np.int64, "arith.muli", "arith.addi"),
}


def kernel_text(ty: str) -> str:
    """o[i] = x[i] * x[i] + x[i] for i in [lo, hi): one streamed store per element."""
    _, mul, add = ELEMENTS[ty]
    return f"""
func.func @k(%x: memref<{SIZE}x{ty}>, %o: memref<{SIZE}x{ty}>, %lo: index, %hi: index) -> i32 {{
  %c1 = arith.constant 1 : index
  scf.for %i = %lo to %hi step %c1 {{
    %a = memref.load %x[%i] : memref<{SIZE}x{ty}>
    %p = {mul} %a, %a : {ty}
    %s = {add} %p, %a : {ty}
    memref.store %s, %o[%i] : memref<{SIZE}x{ty}>
  }} {{tj.parallel}}
  %ok = arith.constant 0 : i32
  func.return %ok : i32
}}
"""


@functools.cache
def compiled(ty: str):
    module = Parser(make_context(), kernel_text(ty)).parse_module()
    lowered = driver.lower(module, LOWER).module
    assert "vector.store" in str(lowered)
    return driver.compile_to_machine_code(lowered)


def expected(x: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        return x * x + x


@settings(max_examples=60, deadline=None)
@given(
    ty=st.sampled_from(sorted(ELEMENTS)),
    bounds=st.tuples(st.integers(0, SIZE), st.integers(0, SIZE)),
    shift=st.integers(0, 15),
    seed=st.integers(0, 2**32 - 1),
)
def test_lines_and_tail_write_what_the_loop_wrote(ty, bounds, shift, seed):
    dtype = ELEMENTS[ty][0]
    lo, hi = bounds
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(SIZE) * 50).astype(dtype)
    room = np.full(SIZE + 64, 7, dtype)  # the output starts `shift` elements into it
    base = (-room.ctypes.data % 64) // room.itemsize
    out = room[base + shift : base + shift + SIZE]
    compiled(ty).kernel("k")(x, out, lo, hi)
    want = np.full(SIZE, 7, dtype)
    want[lo:hi] = expected(x[lo:hi])
    np.testing.assert_array_equal(out, want)


def test_the_line_store_is_non_temporal_and_fenced():
    jit = compiled("f32")
    ir = jit.optimized_llvm_ir
    assert "!nontemporal" in ir
    if platform.machine().lower() in ("x86_64", "amd64"):
        assert "vmovntps" in jit.asm
        assert "sfence" in jit.asm


def test_big_outputs_match_eager_on_any_thread_count():
    n = 9_000_001  # 36 MB of float32 per output, and a tail of one element
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    i = rng.integers(-(2**31), 2**31 - 1, n, dtype=np.int32)

    @tj.function
    def f(x, y, i):
        return x * 3 + y, x - y, i * 3 + 1

    results = []
    try:
        for threads in (1, 2):
            tj.config.set_num_threads(threads)
            f(x, y, i)
            tj.config.wait_for_compiles()
            results.append(f(x, y, i))
    finally:
        tj.config.set_num_threads(None)
    with np.errstate(over="ignore"):
        want = (x * 3 + y, x - y, i * 3 + 1)
    for got in results:
        for g, w in zip(got, want, strict=True):
            np.testing.assert_array_equal(g, w)
    streamed = "vector.store" in str(f.get_concrete_function(x, y, i).ir(after="stream-stores"))
    assert streamed == (4 * n >= host_last_level_cache_bytes())


@pytest.mark.parametrize("ty", ["f32", "i8"])
def test_bounds_checks_pass_whole_lines_inside(ty, monkeypatch):
    monkeypatch.setattr(OPTIONS, "check_bounds", True)
    module = Parser(make_context(), kernel_text(ty)).parse_module()
    jit = driver.compile_to_machine_code(driver.lower(module, LOWER).module)
    dtype = ELEMENTS[ty][0]
    x, out = np.ones(SIZE, dtype), np.zeros(SIZE, dtype)
    assert jit.kernel("k")(x, out, 0, SIZE) == 0
    np.testing.assert_array_equal(out, expected(x))


POKE = """
func.func @poke(%ones: memref<16xf32>, %o: memref<64xf32>, %i: index) -> i32 {
  %c0 = arith.constant 0 : index
  %v = vector.load %ones[%c0] : memref<16xf32>, vector<16xf32>
  vector.store %v, %o[%i] nontemporal = true : memref<64xf32>, vector<16xf32>
  %ok = arith.constant 0 : i32
  func.return %ok : i32
}
"""


def test_a_line_reaching_past_the_end_fails_its_check(monkeypatch):
    """A line store is checked at its last element too: 48 is the last line that fits."""
    monkeypatch.setattr(OPTIONS, "check_bounds", True)
    module = Parser(make_context(), POKE).parse_module()
    poke = driver.compile_to_machine_code(module).kernel("poke")
    messages = [m.data for m in module.attributes[runtime_contract.MESSAGES_ATTR]]
    ones, room = np.ones(16, np.float32), np.zeros(64 + 16, np.float32)
    out = room[(-room.ctypes.data % 64) // 4 :][:64]
    assert poke(ones, out, 48) == 0 and out[48:].sum() == 16 and out[:48].sum() == 0
    for index in (49, 64, -1):
        status = poke(ones, out, index)
        assert status > 0 and messages[status - 1].startswith("OutOfBoundsError: vector.store")
        with pytest.raises(IndexError, match="out-of-bounds access by vector.store"):
            runtime_errors.raise_for_status(status, messages)


def test_rows_that_start_off_a_line_boundary():
    """3001 float32 per row: most rows start inside a cache line, so their lines take the
    ordinary-store path, the rest the non-temporal one; broadcasting reads along the rows."""
    rng = np.random.default_rng(1)
    a = rng.standard_normal((3000, 3001)).astype(np.float32)
    b = rng.standard_normal(3001).astype(np.float32)
    f = tj.function(lambda a, b: (a - b[None, :], a[:, ::-1] * 2))
    try:
        for threads in (1, 2):
            tj.config.set_num_threads(threads)
            f(a, b)
            tj.config.wait_for_compiles()
            got = f(a, b)
            np.testing.assert_array_equal(got[0], a - b[None, :])
            np.testing.assert_array_equal(got[1], a[:, ::-1] * 2)
    finally:
        tj.config.set_num_threads(None)
    lowered = str(f.get_concrete_function(a, b).ir(after="stream-stores"))
    assert ("vector.store" in lowered) == (a.nbytes >= host_last_level_cache_bytes())
