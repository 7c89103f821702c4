"""8 threads call one tj.Function at once with mixed shapes and dtypes, so tracing,
compiling and running overlap: every result is right, each signature is traced once,
and nothing deadlocks (every thread must finish within the timeout)."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import tracejit as tj

THREADS = 8
CALLS = 200  # per thread
TIMEOUT = 300  # seconds for the whole run: a deadlock fails instead of hanging


def kernel(x, y):
    return np.sum(np.tanh(x) * y, axis=-1) + np.max(x), x[::-1] - y


SIGNATURES = [((3, 4), np.float64), ((3, 4), np.float32), ((5,), np.float64),
              ((2, 2, 2), np.float32), ((300, 256), np.float64), ((0, 3), np.float64)]  # fmt: skip


def inputs(index: int):
    shape, dtype = SIGNATURES[index % len(SIGNATURES)]
    rng = np.random.default_rng(index)
    return (rng.standard_normal(shape).astype(dtype), rng.standard_normal(shape).astype(dtype))


@pytest.mark.filterwarnings("ignore::tracejit.RetracingWarning")
def test_concurrent_calls_trace_once_and_agree():
    f = tj.function(kernel)
    expected = {}
    for i in range(len(SIGNATURES) * 3):
        x, y = inputs(i)
        if x.size:
            expected[i] = kernel(x, y)
    errors: list[BaseException] = []
    start = threading.Barrier(THREADS)

    def worker(seed: int) -> None:
        order = np.random.default_rng(seed).permutation(np.arange(CALLS) % len(expected))
        keys = sorted(expected)
        start.wait()
        try:
            for position in order:
                key = keys[position]
                got = f(*inputs(key))
                for g, e in zip(got, expected[key], strict=True):
                    np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-5)
                    assert np.asarray(g).dtype == np.asarray(e).dtype
        except BaseException as error:  # reported by the main thread
            errors.append(error)

    threads = [threading.Thread(target=worker, args=(s,), daemon=True) for s in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(TIMEOUT)
    assert not any(t.is_alive() for t in threads), "deadlock: threads still running"
    assert not errors, errors[0]
    nonempty = sum(1 for shape, _ in SIGNATURES if np.prod(shape))
    assert f.experimental_get_tracing_count() == nonempty
