"""Matmuls big enough for `tile-matmul` (M*N*K >= 4096), compiled vs eager NumPy.

Every shape here goes through the tiled, packed nest (the pass's own tests cover sizes 0 and
1 with dynamic dims): sizes that are not multiples of the tiles, a single row or column,
vector @ matrix, batched stacks with broadcast batch dims, K above the depth block, every
element type the pass handles, and integer overflow. Float sums run in a different order than
NumPy's (blocked, fused multiply-add), so they match within rtol of k * max|a| * max|b|.
"""

import numpy as np
import pytest

import tracejit as tj


def products(a, b, row, column, vector, stack):
    return {
        "a@b": a @ b,  # 50x300 @ 300x70: K > 256, M and N not multiples of 6 and 16
        "row@b": row @ b,  # M = 1
        "vector@b": vector @ b,  # 1-D @ 2-D
        "a@column": a @ column,  # N = 1
        "stack@b": stack @ b,  # batched A, shared B
        "a@stack.T": a[:4] @ np.swapaxes(stack, -1, -2),  # 2-D @ batched
    }


def operands(dtype, rng):
    def draw(*shape):
        if np.dtype(dtype).kind == "f":
            return rng.standard_normal(shape).astype(dtype)
        if dtype == np.bool_:
            return rng.random(shape) < 0.1
        info = np.iinfo(dtype)  # the whole range: products and sums wrap
        return rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)

    return draw(50, 300), draw(300, 70), draw(1, 300), draw(300, 1), draw(300), draw(3, 20, 300)


def tolerance(dtype, k: int, *arrays) -> dict:
    if np.dtype(dtype).kind != "f":
        return {}
    rtol = 1e-5 if dtype == np.float32 else 1e-12
    biggest = max(float(np.max(np.abs(x), initial=0)) for x in arrays)
    return {"rtol": rtol, "atol": rtol * k * biggest * biggest}


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.uint8, np.bool_])
def test_tiled_products_match_eager(check_against_eager, dtype) -> None:
    args = operands(dtype, np.random.default_rng(1))
    with np.errstate(over="ignore"):
        check_against_eager(tj.function(products), *args, **tolerance(dtype, 300, *args))


@tj.function
def broadcast_batches(a, b, c, v):
    return a @ b, c @ a[0, 0], v @ c


def test_batch_broadcasting(check_against_eager) -> None:
    """(3,1,20,30) @ (4,30,25) -> (3,4,20,25); (2,30,20) @ (20,30); (30,) @ (2,30,20)."""
    rng = np.random.default_rng(2)
    a = rng.standard_normal((3, 1, 20, 30), dtype=np.float32)
    b = rng.standard_normal((4, 30, 25), dtype=np.float32)
    c = rng.standard_normal((2, 30, 20), dtype=np.float32)
    v = rng.standard_normal(30, dtype=np.float32)
    check_against_eager(broadcast_batches, a, b, c, v, rtol=1e-5, atol=1e-4)


@tj.function
def matmul(a, b):
    return a @ b


def test_non_contiguous_and_special_values(check_against_eager) -> None:
    """Strided views; NaN and inf propagate through the fused multiply-adds."""
    rng = np.random.default_rng(3)
    a = rng.standard_normal((40, 200), dtype=np.float32)[:, ::2]
    b = np.asfortranarray(rng.standard_normal((100, 60), dtype=np.float32))
    a[3, 7], a[5, 0], b[9, 10] = np.nan, np.inf, -np.inf
    with np.errstate(invalid="ignore"):
        check_against_eager(matmul, a, b, rtol=1e-5, atol=1e-4)


@tj.function
def mlp(x, w1, b1, w2, b2):
    h = np.maximum(x @ w1 + b1, 0)
    return h @ w2 + b2


def test_mlp(check_against_eager) -> None:
    """W7's network at a smaller batch: relu(x @ W1 + b1) @ W2 + b2."""
    rng = np.random.default_rng(4)
    x = rng.standard_normal((20, 784), dtype=np.float32)
    w1 = rng.standard_normal((784, 64), dtype=np.float32) * 0.05
    w2 = rng.standard_normal((64, 10), dtype=np.float32) * 0.05
    b1, b2 = rng.standard_normal(64, dtype=np.float32), rng.standard_normal(10, dtype=np.float32)
    check_against_eager(mlp, x, w1, b1, w2, b2, rtol=1e-4, atol=1e-4)
