"""Solutions to the exercises of chapter 07 (bufferization, loops). Run: .venv/bin/python <file>."""

import numpy as np
from course_checks import check_compiled

import tracejit as tj
from tracejit.compiler.driver import lower

TENSOR_PASSES = ["inline", "canonicalize", "cse", "fuse-elementwise", "lower-control-flow"]


def after(function, passes, *args) -> str:
    traced = tj.function(function).get_concrete_function(*args).graph.module
    return str(lower(traced, passes).module)


# 1. The transpose is a linalg.generic of its own (shape ops do not fuse) whose input map
#    swaps the dims; exp is a fused kernel before it, + 1 one after it.
def exp_transposed(x):
    return np.exp(x).T + 1


ir = after(exp_transposed, [*TENSOR_PASSES, "bufferize"], np.ones((4, 3), np.float32))
assert "affine_map<(d0, d1) -> (d1, d0)>" in ir, ir
assert ir.count("memref.alloca") >= 1  # the transposed (or exp) temporary


# 2. axis=1: the reduction is innermost with an iter_args accumulator; axis=0: no iter_args,
#    the parallel dim is innermost and walks the rows contiguously.
def sum0(x):
    return np.sum(x, axis=0)


def sum1(x):
    return np.sum(x, axis=1)


x = np.ones((64, 64), np.float32)
loops = [*TENSOR_PASSES, "bufferize", "lower-to-loops"]
assert "iter_args" in after(sum1, loops, x)
assert "iter_args" not in after(sum0, loops, x)


# 3. Tiled versus plain nest, and correctness on sizes that are not multiples of the tile.
def matmul(a, b):
    return a @ b


a = np.ones((64, 64), np.float32)
tiled = after(
    matmul, [*TENSOR_PASSES, "bufferize", "tile-matmul{min_volume=0}", "lower-to-loops"], a, a
)
plain = after(matmul, [*TENSOR_PASSES, "bufferize", "lower-to-loops"], a, a)
# 5 loops plain (the fill's two and i, j, k); 15 tiled, at the time of writing
assert tiled.count("scf.for") > plain.count("scf.for") == 5
rng = np.random.default_rng(1)
a = rng.standard_normal((37, 53), dtype=np.float32)
b = rng.standard_normal((53, 29), dtype=np.float32)
check_compiled(tj.function(matmul), a, b, rtol=1e-5, atol=1e-5)
print("ok")
