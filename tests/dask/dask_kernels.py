"""tj.functions used as Dask block functions, in an importable module like a user's: the
tests put this directory on sys.path, which the worker processes inherit."""

import os

import numpy as np

import tracejit as tj


def blend_numpy(x, y):
    return x**2 + 3 * y - np.tanh(x) * 0.5


blend = tj.function(blend_numpy)


@tj.function
def outer_product(a, b):
    """blockwise's function for "ij" from "i" and "j" blocks."""
    return a[:, None] * b[None, :]


@tj.function
def chunk_sum_of_squares(x, axis, keepdims):
    """dask.array.reduction's chunk step: axis and keepdims are Python values (static)."""
    return np.sum(x * x, axis=axis, keepdims=keepdims)


@tj.function
def aggregate_sum(x, axis, keepdims):
    return np.sum(x, axis=axis, keepdims=keepdims)


def tracing_counts():
    """Run on each worker (client.run): its pid and how often each Function traced there."""
    from tracejit.frontend import pickling

    counts = {
        fn.__name__: fn.experimental_get_tracing_count() for fn in pickling._RESTORED.values()
    }
    return os.getpid(), counts


@tj.function
def softsign(x):
    return x / (1 + np.abs(x))


def slow_blend(x, y):
    """A block that takes a while, so that a worker can be killed while the graph runs."""
    import time

    time.sleep(0.05)
    return blend(x, y)
