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


def tracing_count(function):
    """Run on each worker (client.run): its pid and how often `function` traced there. The
    Function arrives pickled, like the tasks' copies, and a process keeps one Function per
    original, so this is the one the tasks ran."""
    return os.getpid(), function.experimental_get_tracing_count()


@tj.function
def softsign(x):
    return x / (1 + np.abs(x))


def slow_blend(x, y):
    """A block that takes a while, so that a worker can be killed while the graph runs."""
    import time

    time.sleep(0.05)
    return blend(x, y)
