"""The workloads W1-W9: NumPy source (traced as is by tracejit), inputs and tolerances.

Each function below is plain NumPy: NumPy runs it directly, `tj.function` traces it, numba
compiles it where numba accepts it, and JAX runs the same source with `np` bound to `jax.numpy`
(`peers.py`). W4 and W5 are the `power` and `while sum(x) > 1` examples of TensorFlow's
tf.function guide, written in NumPy.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np


def w1_small(x, y):
    return x * y + 1


def w2_elementwise(x, y):
    return x**2 + 3 * y - np.tanh(x) * 0.5


def w3_mse(x, y):
    return np.mean((x - y) ** 2)


def w4_power(x, y=100):
    result = np.eye(10, dtype=np.int32)
    for _ in range(y):
        result = x @ result
    return result


def w5_while(x):
    while np.sum(x) > 1:
        x = np.tanh(x)
    return x


def w6_matmul(a, b):
    return a @ b


def w7_mlp(x, w1, b1, w2, b2):
    h = np.maximum(x @ w1 + b1, 0)
    return h @ w2 + b2


def w8_twenty_ops(x, y):
    """20 NumPy operations: 16 element-wise, 3 reductions, and the scalar tail."""
    a = x * y + 1.0
    b = np.exp(-a * a)
    c = np.tanh(b - x)
    d = np.sqrt(np.abs(c) + 1.0)
    e = np.maximum(d, y) - np.minimum(a, x)
    f = e / (1.0 + x * x)
    return np.sum(f) + np.max(c) * np.mean(b)


def w9_collatz(n):
    """Collatz step counts, all lanes stepped together until every lane reaches 1."""
    x = n
    steps = np.zeros_like(n)
    while np.any(x != 1):
        active = x != 1
        x = np.where(active, np.where(x % 2 == 0, x // 2, 3 * x + 1), x)
        steps = steps + active.astype(n.dtype)
    return steps


@dataclass(frozen=True)
class Workload:
    key: str
    title: str
    function: Callable[..., Any]
    inputs: Callable[[np.random.Generator], tuple[Any, ...]]
    rtol: float = 1e-5
    atol: float = 0.0
    calls: int = 1  # the reported time is for this many calls
    flops: float | None = None  # per call, for a GFLOP/s column
    needs_autograph: bool = False  # staged Python control flow on tensors


def _f32(rng: np.random.Generator, *shape: int) -> np.ndarray:
    return rng.standard_normal(shape, dtype=np.float32)


def _uniform_f32(rng: np.random.Generator, *shape: int) -> np.ndarray:
    return rng.random(shape, dtype=np.float32)


N_LARGE = 10_000_000

WORKLOADS: dict[str, Workload] = {
    w.key: w
    for w in [
        Workload(
            "W1",
            "x*y+1, 4 elements (per call)",
            w1_small,
            lambda r: (_f32(r, 4), _f32(r, 4)),
        ),
        Workload(
            "W2",
            "x**2+3*y-tanh(x)*0.5, 10M f32",
            w2_elementwise,
            lambda r: (_f32(r, N_LARGE), _f32(r, N_LARGE)),
            rtol=1e-5,
            atol=1e-5,
        ),
        Workload(
            "W3",
            "mean((x-y)**2), 10M f32",
            w3_mse,
            lambda r: (_f32(r, N_LARGE), _f32(r, N_LARGE)),
            rtol=1e-4,
        ),
        Workload(
            "W4",
            "power(x,100), 10x10 i32, 1000 calls",
            w4_power,
            lambda r: (r.integers(-1, 2, (10, 10), dtype=np.int32),),
            rtol=0,
            calls=1000,
        ),
        Workload(
            "W5",
            "while sum(x)>1: x=tanh(x), 5 el.",
            w5_while,
            lambda r: (_uniform_f32(r, 5),),
            rtol=1e-5,
            atol=1e-6,
            needs_autograph=True,
        ),
        Workload(
            "W6",
            "512x512 f32 matmul",
            w6_matmul,
            lambda r: (_f32(r, 512, 512), _f32(r, 512, 512)),
            rtol=1e-3,
            atol=1e-3,
            flops=2 * 512**3,
        ),
        Workload(
            "W7",
            "MLP 256x784->512->10, relu",
            w7_mlp,
            lambda r: (
                _f32(r, 256, 784),
                _f32(r, 784, 512) * 0.05,
                _f32(r, 512),
                _f32(r, 512, 10) * 0.05,
                _f32(r, 10),
            ),
            rtol=1e-3,
            atol=1e-3,
            flops=2 * 256 * (784 * 512 + 512 * 10),
        ),
        Workload(
            "W8",
            "20-op elementwise+reductions, 1000 f32",
            w8_twenty_ops,
            lambda r: (_f32(r, 1000), _f32(r, 1000)),
            rtol=1e-4,
        ),
        Workload(
            "W9",
            "collatz steps 1..1e4, i64, staged loop",
            w9_collatz,
            lambda r: (np.arange(1, 10_001, dtype=np.int64),),
            rtol=0,
            needs_autograph=True,
        ),
    ]
}
