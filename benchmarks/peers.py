"""The implementations compared: NumPy, tracejit, and the peers when they are importable.

An `Impl` turns a workload into a callable in three steps, so the harness can time steady-state
calls and first calls alike: `source(workload)` is the Python function in that framework's
idiom, `convert(inputs)` moves the NumPy inputs into the framework (outside the timed region),
and `wrap(fresh_copy_of_source)` is the framework's compiler (`tf.function`, `jax.jit`, ...).
`finish` waits for asynchronous results (JAX). Where a peer needs its own control-flow idiom
(JAX's `lax.while_loop`) or NumPy code it rejects (numba's integer matmul), the function is
written here for it.
"""

from __future__ import annotations

import importlib.util
import types
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from benchmarks.workloads import Workload


class NotSupported(Exception):
    """This implementation has no version of the workload (shown in the table, not an error)."""


@dataclass
class Impl:
    name: str
    source: Callable[[Workload], Callable[..., Any]]
    wrap: Callable[[Callable[..., Any]], Callable[..., Any]]
    convert: Callable[[tuple[Any, ...]], tuple[Any, ...]] = lambda inputs: inputs
    finish: Callable[[Any], Any] = lambda result: result


def fresh_copy(fn: Callable[..., Any], **globals_override: Any) -> Callable[..., Any]:
    """A new function object with the same code (so no JIT finds it in its caches),
    optionally with some globals rebound (`np=jax.numpy`)."""
    namespace = {**fn.__globals__, **globals_override}
    copy = types.FunctionType(fn.__code__, namespace, fn.__name__, fn.__defaults__, fn.__closure__)
    copy.__kwdefaults__ = fn.__kwdefaults__
    return copy


def importable(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


# --- NumPy and tracejit ----------------------------------------------------------------------
def numpy_impl() -> Impl:
    return Impl("numpy", source=lambda w: w.function, wrap=lambda fn: fn)


def tracejit_impl() -> Impl:
    import tracejit as tj

    return Impl("tracejit", source=lambda w: w.function, wrap=tj.function)


# --- TensorFlow ------------------------------------------------------------------------------
def _tf_sources(tf: Any) -> dict[str, Callable[..., Any]]:
    def w1(x, y):
        return x * y + 1

    def w2(x, y):
        return x**2 + 3 * y - tf.tanh(x) * 0.5

    def w3(x, y):
        return tf.reduce_mean((x - y) ** 2)

    def w4(x, y=100):
        result = tf.eye(10, dtype=tf.int32)
        for _ in range(y):
            result = tf.matmul(x, result)
        return result

    def w5(x):
        while tf.reduce_sum(x) > 1:
            x = tf.tanh(x)
        return x

    def w6(a, b):
        return tf.matmul(a, b)

    def w7(x, w1, b1, w2, b2):
        return tf.matmul(tf.nn.relu(tf.matmul(x, w1) + b1), w2) + b2

    def w8(x, y):
        a = x * y + 1.0
        b = tf.exp(-a * a)
        c = tf.tanh(b - x)
        d = tf.sqrt(tf.abs(c) + 1.0)
        e = tf.maximum(d, y) - tf.minimum(a, x)
        f = e / (1.0 + x * x)
        return tf.reduce_sum(f) + tf.reduce_max(c) * tf.reduce_mean(b)

    def w9(n):
        x = n
        steps = tf.zeros_like(n)
        while tf.reduce_any(x != 1):
            active = x != 1
            x = tf.where(active, tf.where(x % 2 == 0, x // 2, 3 * x + 1), x)
            steps = steps + tf.cast(active, n.dtype)
        return steps

    return {
        "W1": w1,
        "W2": w2,
        "W3": w3,
        "W4": w4,
        "W5": w5,
        "W6": w6,
        "W7": w7,
        "W8": w8,
        "W9": w9,
    }


def tensorflow_impls() -> list[Impl]:
    import tensorflow as tf

    sources = _tf_sources(tf)

    def source(w: Workload) -> Callable[..., Any]:
        return sources[w.key]

    def convert(inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return tuple(tf.constant(a) for a in inputs)

    return [
        Impl("tf.function", source, tf.function, convert),
        Impl(
            "tf.function(jit_compile)",
            source,
            lambda fn: tf.function(fn, jit_compile=True),
            convert,
        ),
    ]


# --- JAX -------------------------------------------------------------------------------------
def _jax_sources(jnp: Any, lax: Any) -> dict[str, Callable[..., Any]]:
    def w5(x):
        return lax.while_loop(lambda x: jnp.sum(x) > 1, jnp.tanh, x)

    def w9(n):
        def cond(state):
            return jnp.any(state[0] != 1)

        def body(state):
            x, steps = state
            active = x != 1
            x = jnp.where(active, jnp.where(x % 2 == 0, x // 2, 3 * x + 1), x)
            return x, steps + active.astype(n.dtype)

        return lax.while_loop(cond, body, (n, jnp.zeros_like(n)))[1]

    return {"W5": w5, "W9": w9}


def jax_impl() -> Impl:
    import jax
    import jax.numpy as jnp
    from jax import lax

    jax.config.update("jax_enable_x64", True)  # W9 is int64
    special = _jax_sources(jnp, lax)

    def source(w: Workload) -> Callable[..., Any]:
        # The NumPy source itself, with `np` bound to jax.numpy.
        return special.get(w.key) or fresh_copy(w.function, np=jnp)

    return Impl(
        "jax.jit",
        source,
        jax.jit,
        convert=lambda inputs: tuple(jax.device_put(a) for a in inputs),
        finish=lambda result: result.block_until_ready(),
    )


# --- numba -----------------------------------------------------------------------------------
def numba_w4_power(x, y=100):
    # numba's `@` only takes floats (it calls BLAS): integer matmul as loops.
    n = x.shape[0]
    result = np.zeros_like(x)
    for i in range(n):
        result[i, i] = 1
    for _ in range(y):
        product = np.zeros_like(result)
        for i in range(n):
            for k in range(n):
                xik = x[i, k]
                for j in range(n):
                    product[i, j] += xik * result[k, j]
        result = product
    return result


def numba_w9_collatz(n):
    # Idiomatic numba: one scalar loop per lane instead of lock-step array code.
    steps = np.empty_like(n)
    for i in range(n.size):
        v = n[i]
        count = 0
        while v != 1:
            v = v // 2 if v % 2 == 0 else 3 * v + 1
            count += 1
        steps[i] = count
    return steps


NUMBA_SOURCES = {"W4": numba_w4_power, "W9": numba_w9_collatz}


def numba_impl() -> Impl:
    import numba

    return Impl("numba.njit", lambda w: NUMBA_SOURCES.get(w.key, w.function), numba.njit)


# --- discovery -------------------------------------------------------------------------------
PEER_FACTORIES: list[tuple[str, Callable[[], list[Impl]]]] = [
    ("tensorflow", tensorflow_impls),
    ("jax", lambda: [jax_impl()]),
    ("numba", lambda: [numba_impl()]),
]


def all_impls() -> tuple[list[Impl], list[str]]:
    """NumPy, tracejit and every importable peer; plus notes on peers that are missing."""
    impls = [numpy_impl(), tracejit_impl()]
    notes = []
    for module, factory in PEER_FACTORIES:
        if not importable(module):
            notes.append(f"{module}: not installed (pip install -e '.[bench]')")
            continue
        try:
            impls += factory()
        except Exception as error:  # a broken peer install must not stop the benchmarks
            notes.append(f"{module}: failed to import: {type(error).__name__}: {error}")
    return impls, notes
