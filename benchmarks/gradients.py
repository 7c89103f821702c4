"""Gradients (issue 21): `value_and_grad` of the W7 MLP with a mean-squared loss.

Side by side in one run: tracejit's `tj.value_and_grad`, the same backward pass written out
by hand in NumPy, and `jax.jit(jax.value_and_grad(...))` when JAX is installed (whose
gradients also check tracejit's). Also the compile cost: the first call of the gradient
function against the first call of the forward function alone (target: at most 3x).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from benchmarks.timing import (
    FULL,
    QUICK,
    format_seconds,
    format_table,
    on_one_cpu,
    paired_medians,
)


def mlp_loss(w1, b1, w2, b2, x, y):
    h = np.maximum(x @ w1 + b1, 0)
    out = h @ w2 + b2
    return np.mean((out - y) ** 2)


def numpy_value_and_grad(w1, b1, w2, b2, x, y):
    """The backward pass by hand: what a NumPy user writes without a gradient library."""
    pre = x @ w1 + b1
    h = np.maximum(pre, 0)
    out = h @ w2 + b2
    diff = out - y
    loss = np.mean(diff**2)
    g_out = diff * (2 / diff.size)
    g_w2, g_b2 = h.T @ g_out, g_out.sum(axis=0)
    g_pre = (g_out @ w2.T) * (pre >= 0)  # the tie at 0 goes to the first operand (TF's rule)
    return loss, (x.T @ g_pre, g_pre.sum(axis=0), g_w2, g_b2)


def inputs(rng: np.random.Generator) -> tuple[np.ndarray, ...]:
    def f32(*shape: int, scale: float = 1.0) -> np.ndarray:
        return (rng.standard_normal(shape) * scale).astype(np.float32)

    return (f32(784, 512, scale=0.05), f32(512), f32(512, 10, scale=0.05), f32(10),
            f32(256, 784), f32(256, 10))


def _first_call_seconds(make: Any, args: tuple) -> float:
    start = time.perf_counter()
    make()(*args)
    return time.perf_counter() - start


def _steady_rows(tracejit_fn: Any, args: tuple, grads: Any, budget: Any) -> tuple[list, dict]:
    """tracejit's, NumPy's and (when installed) JAX's time of one value_and_grad, and of the
    forward pass alone (issue 39's target: no slower than JAX), sampled in alternation
    (`paired_medians`)."""
    import tracejit as tj

    argnums = (0, 1, 2, 3)
    forward = tj.function(mlp_loss)
    forward(*args)
    runs = {
        "tracejit value_and_grad": lambda: tracejit_fn(*args),
        "NumPy, backward by hand": lambda: numpy_value_and_grad(*args),
        "tracejit forward": lambda: forward(*args),
    }
    try:
        import jax
        import jax.numpy as jnp

        def jax_loss(w1, b1, w2, b2, x, y):
            h = jnp.maximum(x @ w1 + b1, 0)
            return jnp.mean((h @ w2 + b2 - y) ** 2)

        jax_fn = jax.jit(jax.value_and_grad(jax_loss, argnums=argnums))
        jax_forward = jax.jit(jax_loss)
        jax_args = [jnp.asarray(a) for a in args]
        _, jax_grads = jax_fn(*jax_args)
        for g, r in zip(grads, jax_grads, strict=True):
            np.testing.assert_allclose(g, np.asarray(r), rtol=2e-3, atol=1e-5)
        np.testing.assert_allclose(forward(*args), jax_forward(*jax_args), rtol=2e-3)
        runs["jax.jit(jax.value_and_grad)"] = lambda: jax.block_until_ready(jax_fn(*jax_args))
        runs["jax.jit forward"] = lambda: jax.block_until_ready(jax_forward(*jax_args))
    except ImportError:
        pass
    seconds = dict(zip(runs, paired_medians(list(runs.values()), budget), strict=True))
    rows = [[name, format_seconds(time)] for name, time in seconds.items()]
    found: dict[str, Any] = {"tracejit": rows[0][1], "numpy": rows[1][1]}
    if "jax.jit forward" in seconds:
        found["jax"] = format_seconds(seconds["jax.jit(jax.value_and_grad)"])
        gradient = seconds["tracejit value_and_grad"] / seconds["jax.jit(jax.value_and_grad)"]
        ahead = seconds["tracejit forward"] / seconds["jax.jit forward"]
        found["vs_jax"] = {"value_and_grad": round(gradient, 3), "forward": round(ahead, 3)}
        rows.append(["tracejit / JAX", f"value_and_grad {gradient:.3f}, forward {ahead:.3f}"])
    else:
        rows.append(["jax", "not installed"])
    return rows, found


def report(quick: bool) -> dict[str, Any]:
    import tracejit as tj

    budget = QUICK if quick else FULL
    args = inputs(np.random.default_rng(0))
    argnums = (0, 1, 2, 3)
    tracejit_fn = tj.value_and_grad(mlp_loss, argnums=argnums)
    loss, grads = tracejit_fn(*args)
    ref_loss, ref_grads = numpy_value_and_grad(*args)
    for g, r in zip(grads, ref_grads, strict=True):
        np.testing.assert_allclose(g, r, rtol=2e-3, atol=1e-5)
    with on_one_cpu(pin=tj.config.num_threads() == 1):
        rows, found = _steady_rows(tracejit_fn, args, grads, budget)
    forward = _first_call_seconds(lambda: tj.function(mlp_loss), args)
    gradient = _first_call_seconds(lambda: tj.value_and_grad(mlp_loss, argnums=argnums), args)
    rows.append(["first call: forward only", format_seconds(forward)])
    rows.append(["first call: value_and_grad", f"{format_seconds(gradient)} "
                 f"({gradient / forward:.1f}x the forward)"])
    one = "one thread, every peer's threads pinned to one CPU"
    print(f"\nGradients: W7 MLP 256x784->512->10 with an MSE loss, f32, {one}")
    print(format_table(["", "time"], rows))
    found["compile_ratio"] = gradient / forward
    return found
