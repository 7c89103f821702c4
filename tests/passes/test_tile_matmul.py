"""tile-matmul: the tiled nest computes C += A @ B exactly as NumPy does, for every size.

The kernels here are `linalg.generic`s on dynamic (`?`) memrefs, so one compile per element
type covers every shape, including 0, 1 and sizes that are not multiples of the tiles
(MR = 6 rows, NR = 16 columns of f32, KC = 256, MC = 72, NC = 512). They run through
`tile-matmul,lower-to-loops,canonicalize,scf-to-cf` and LLVM, against NumPy on the same
inputs (C starts non-zero: the generic accumulates into it). The same generic through the
tj frontend is in tests/numpy/test_matmul_perf_shapes.py.
"""

from __future__ import annotations

import functools
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser

import tracejit as tj
from tracejit.compiler import driver
from tracejit.ir.dialect import make_context
from tracejit.passes.tile_matmul import TileMatmulPass, match_matmul

LOWER = "tile-matmul,lower-to-loops,canonicalize,scf-to-cf"

# (mlir element type, NumPy dtype, product op, sum op)
ELEMENTS = {
    "f32": ("f32", np.float32, "arith.mulf", "arith.addf"),
    "f64": ("f64", np.float64, "arith.mulf", "arith.addf"),
    "i32": ("i32", np.int32, "arith.muli", "arith.addi"),
    "i64": ("i64", np.int64, "arith.muli", "arith.addi"),
    "i8": ("i8", np.int8, "arith.muli", "arith.addi"),
    "bool": ("i1", np.bool_, "arith.andi", "arith.ori"),
}


def matmul_text(
    key: str, fastmath: str = "fastmath<reassoc>", a: str = "?x?", b: str = "?x?", c: str = "?x?"
) -> str:
    ty, _, product, total = ELEMENTS[key]
    flags = fastmath if total == "arith.addf" else ""
    return f"""
func.func @mm(%a: memref<{a}x{ty}>, %b: memref<{b}x{ty}>, %c: memref<{c}x{ty}>) {{
  linalg.generic {{indexing_maps = [affine_map<(i, j, k) -> (i, k)>,
                                   affine_map<(i, j, k) -> (k, j)>,
                                   affine_map<(i, j, k) -> (i, j)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}}
      ins(%a, %b : memref<{a}x{ty}>, memref<{b}x{ty}>) outs(%c : memref<{c}x{ty}>) {{
  ^bb0(%x: {ty}, %y: {ty}, %acc: {ty}):
    %p = {product} %x, %y : {ty}
    %s = {total} %acc, %p {flags} : {ty}
    linalg.yield %s : {ty}
  }}
  func.return
}}
"""


def parse(text: str) -> ModuleOp:
    return Parser(make_context(), text).parse_module()


def tiled(text: str) -> ModuleOp:
    """`text` after tile-matmul (default options); the result verifies."""
    module = parse(text)
    TileMatmulPass(target="avx2").apply(make_context(), module)
    module.verify()
    return module


@functools.cache
def kernel(key: str):
    lowered = driver.lower(parse(matmul_text(key)), LOWER).module
    assert "linalg.generic" not in str(lowered)
    return driver.compile_to_machine_code(lowered).kernel("mm")


def random_operand(key: str, shape: tuple[int, ...], seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    dtype = ELEMENTS[key][1]
    if dtype == np.bool_:
        return rng.random(shape) < 0.2
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)  # full range: products and sums overflow and wrap
        return rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)
    return rng.standard_normal(shape).astype(dtype)


def check_matmul(key: str, m: int, n: int, k: int) -> None:
    a = random_operand(key, (m, k), m * 1000 + k)
    b = random_operand(key, (k, n), k * 1000 + n + 1)
    c = random_operand(key, (m, n), m + n + 2)
    with np.errstate(over="ignore"):
        expected = (c | (a @ b)) if key == "bool" else c + a @ b
    kernel(key)(a, b, c)
    if expected.dtype.kind == "f":
        tolerance = 1e-5 if expected.dtype == np.float32 else 1e-12
        scale = np.abs(a) @ np.abs(b) + np.abs(c)  # rounding error bound of any sum order
        np.testing.assert_array_less(np.abs(c - expected), tolerance * (scale + 1))
    else:
        np.testing.assert_array_equal(c, expected)


# M, N, K: zeros, ones, below/at/above MR=6, NR=16 (8 for 64-bit), MC=72, KC=256, NC=512
EDGE_SHAPES = [
    (0, 5, 3), (5, 0, 3), (5, 3, 0), (0, 0, 0), (1, 1, 1), (1, 17, 1), (6, 16, 4),
    (7, 17, 3), (12, 32, 5), (5, 15, 257), (73, 33, 300), (3, 530, 7), (80, 1030, 2),
]  # fmt: skip


@pytest.mark.parametrize("key", sorted(ELEMENTS))
def test_edge_shapes_match_numpy(key: str) -> None:
    for m, n, k in EDGE_SHAPES:
        check_matmul(key, m, n, k)


@settings(max_examples=30, deadline=None)
@given(
    key=st.sampled_from(sorted(ELEMENTS)),
    m=st.integers(0, 40),
    n=st.integers(0, 70),
    k=st.integers(0, 40),
)
def test_random_shapes_match_numpy(key: str, m: int, n: int, k: int) -> None:
    check_matmul(key, m, n, k)


def test_int32_overflow_wraps_like_numpy() -> None:
    a = np.full((7, 300), 2**20, np.int32)
    b = np.full((300, 20), 2**15 + 3, np.int32)
    c = np.zeros((7, 20), np.int32)
    kernel("i32")(a, b, c)
    np.testing.assert_array_equal(c, a @ b)


# --- structure ---------------------------------------------------------------------------


def test_tiled_nest_structure() -> None:
    """Packing into a static [CW/NR][KC][NR] stack panel (dynamic sizes take the largest),
    an MRxNR tile, FMA, no generic and no heap scratch left."""
    text = str(tiled(matmul_text("f32")))
    assert "linalg.generic" not in text
    assert "memref.alloca() alignment = 64 : memref<4x256x16xf32>" in text
    assert "memref.alloca() alignment = 64 : memref<6x16xf32>" in text
    assert text.count("math.fma") == 1
    assert "memref.alloc(" not in text and "memref.dealloc" not in text
    assert "scf.if" in text  # dynamic M, N: edge tiles possible


def test_integer_and_bool_bodies_are_cloned_not_fused() -> None:
    int_text = str(tiled(matmul_text("i32")))
    assert "arith.muli" in int_text and "math.fma" not in int_text
    bool_text = str(tiled(matmul_text("bool")))
    assert "arith.andi" in bool_text and "arith.ori" in bool_text


def test_multiples_of_the_tile_need_no_edge_branch() -> None:
    text = str(tiled(matmul_text("f32", a="12x300", b="300x32", c="12x32")))
    assert "scf.if" not in text and "math.fma" in text


@pytest.mark.parametrize(
    "text",
    [
        matmul_text("f32", fastmath=""),  # float sum without reassoc: order is fixed
        matmul_text("f32", a="4x4", b="4x4", c="4x4"),  # below min-volume
    ],
)
def test_left_alone(text: str) -> None:
    module = tiled(text)
    assert "linalg.generic" in str(module)


MATVEC = """
func.func @mv(%a: memref<?x?xf32>, %x: memref<?xf32>, %y: memref<?xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (k)>,
                                   affine_map<(i, k) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%a, %x : memref<?x?xf32>, memref<?xf32>) outs(%y : memref<?xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %m fastmath<reassoc> : f32
    linalg.yield %s : f32
  }
  func.return
}
"""


def test_matrix_vector_is_not_a_match() -> None:
    """Its k loop is already contiguous in both inputs: lower-to-loops vectorises it."""
    generic = next(op for op in parse(MATVEC).walk() if op.name == "linalg.generic")
    assert match_matmul(generic) is None


def test_min_volume_option_parses() -> None:
    from tracejit.passes.pipeline import Pipeline

    (pass_,) = Pipeline.parse("tile-matmul{min-volume=0}").passes
    assert isinstance(pass_, TileMatmulPass) and pass_.min_volume == 0
    module = parse(matmul_text("f32", a="4x4", b="4x4", c="4x4"))
    pass_.apply(make_context(), module)
    assert "linalg.generic" not in str(module)


# --- what LLVM makes of it -----------------------------------------------------------------


def test_512_f32_matmul_is_vector_fma() -> None:
    """The optimised LLVM IR of a 512x512 f32 matmul has vector FMAs (8 or 16 lanes, as the
    host's preferred width) and keeps the accumulator tile in registers (no alloca in the
    micro-kernel: SROA promoted it)."""

    @tj.function
    def matmul(a, b):
        return a @ b

    x = np.ones((512, 512), np.float32)
    llvm_ir = matmul.get_concrete_function(x, x).llvm_ir
    assert re.search(r"<(8|16) x float> @llvm\.fma\.v(8|16)f32\(", llvm_ir)
    assert re.search(r"phi <(8|16) x float>", llvm_ir)  # accumulators carried in registers
