"""Large kernel outputs come from reused memory (runtime/buffer_pool.py): a block goes back to
the pool when the last array over it dies, never earlier, and the pool stays bounded."""

from __future__ import annotations

import json
import os
import pickle
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import tracejit as tj
from tests.conftest import assert_same, run_eagerly
from tracejit.runtime import buffer_pool
from tracejit.runtime.buffer_pool import POOL, POOLED_BYTES, bucket_size

BIG = POOLED_BYTES // 4 + 1000  # float32 elements: just over the pooled size


@pytest.fixture(autouse=True)
def fresh_pool():
    limit = POOL.limit
    tj.config.clear_buffer_cache()
    yield
    tj.config.set_buffer_cache_bytes(limit)
    tj.config.clear_buffer_cache()


def w2(x, y):
    return x**2 + 3 * y - np.tanh(x) * 0.5


def two_outputs(x):
    return {"double": x * 2.0, "sum": np.sum(x), "negated": -x}


def inputs(n: int = BIG) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    return rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)


def test_a_dead_output_block_serves_the_next_call():
    f = tj.function(w2)
    x, y = inputs()
    first = f(x, y)
    address = first.ctypes.data
    del first
    second = f(x, y)
    assert second.ctypes.data == address
    assert_same(second, run_eagerly(w2, x, y), rtol=1e-5, atol=1e-6)


def test_a_block_is_never_reused_while_an_array_or_view_over_it_lives():
    f = tj.function(w2)
    x, y = inputs()
    first = f(x, y)
    view = first[::3]
    expected = view.copy()
    address = first.ctypes.data
    del first
    second = f(x * 2, y)  # a different result: it must not land in `view`'s memory
    assert second.ctypes.data != address
    np.testing.assert_array_equal(view, expected)
    del view, second
    assert POOL.cached_bytes >= bucket_size(BIG * 4)


def test_pooled_outputs_are_ordinary_arrays():
    f = tj.function(two_outputs)
    x, _ = inputs()
    result = f(x)
    assert_same(result, run_eagerly(two_outputs, x), rtol=1e-5)
    for name in ("double", "negated"):
        out = result[name]
        assert type(out) is np.ndarray and out.flags.writeable and out.flags.c_contiguous
        assert out.ctypes.data % 64 == 0
        out[0] = 42.0  # writeable, and the write stays in this array
        assert pickle.loads(pickle.dumps(out))[0] == 42.0
    assert result["double"].ctypes.data != result["negated"].ctypes.data


def test_small_outputs_keep_numpy_allocation():
    f = tj.function(w2)
    x, y = inputs(1000)
    assert f(x, y).base is None


def test_the_slow_path_pools_too():
    f = tj.function(w2)
    x, y = inputs(2 * BIG)
    strided = x[::2]  # not contiguous: the full call path copies it
    first = f(strided, y[:BIG])
    assert_same(first, run_eagerly(w2, strided, y[:BIG]), rtol=1e-5, atol=1e-6)
    assert isinstance(first.base, buffer_pool._PooledBlock)


def test_the_cache_is_bounded_and_can_be_cleared():
    f = tj.function(w2)
    x, y = inputs()
    block = bucket_size(BIG * 4)
    tj.config.set_buffer_cache_bytes(block)  # room for one block
    results = [f(x, y) for _ in range(3)]
    del results
    assert POOL.cached_bytes == block  # two were freed, not kept
    tj.config.clear_buffer_cache()
    assert POOL.cached_bytes == 0
    tj.config.set_buffer_cache_bytes(0)
    assert tj.config.buffer_cache_bytes() == 0
    f(x, y)  # its output dies at once: with a zero bound it is freed, not kept
    assert POOL.cached_bytes == 0
    with pytest.raises(ValueError, match=">= 0"):
        tj.config.set_buffer_cache_bytes(-1)


def test_bucket_sizes_round_up_by_at_most_an_eighth():
    for n in (1, 63, 64, 65, 1000, POOLED_BYTES, POOLED_BYTES + 1, 40_000_000, 3 << 30):
        size = bucket_size(n)
        assert size >= n and size % 64 == 0
        assert size <= max(n * 9 // 8 + 64, 64)
    assert bucket_size(40_000_000) == bucket_size(40_000_000 - 100)  # one bucket per shape


def test_threads_calling_at_once_get_their_own_correct_outputs():
    f = tj.function(w2)
    x, y = inputs()
    expected = run_eagerly(w2, x, y)
    errors: list[BaseException] = []

    def worker(k: int) -> None:
        try:
            for _ in range(10):
                out = f(x, y)
                np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-6)
                out[:] = k  # a block shared with another live array would show this
                assert np.all(out == k)
        except BaseException as error:  # noqa: BLE001  (reported below)
            errors.append(error)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[0]
    free = sum(len(blocks) * size for size, blocks in POOL._free.items())
    assert free == POOL.cached_bytes <= POOL.limit


# --- no leak: resident memory stays flat over many calls with pooled outputs ------------------
# Run in a fresh interpreter so the numbers are this loop's, not the test session's. Each round
# keeps a few results alive at once (so several blocks circulate) and drops them; the pool must
# end up serving every call from a handful of blocks and RSS must not grow.
_RSS_PROBE = """
import gc, json, os, sys
import numpy as np
import tracejit as tj
from tracejit.runtime.buffer_pool import POOL

def rss():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

n, rounds = int(sys.argv[1]), int(sys.argv[2])
f = tj.function(lambda x, y: x**2 + 3 * y - np.tanh(x) * 0.5)
x = np.linspace(-1, 1, n, dtype=np.float32)
y = np.linspace(2, 3, n, dtype=np.float32)
for _ in range(20):
    kept = [f(x, y) for _ in range(3)]
del kept
gc.collect()
before, allocated = rss(), POOL.allocated
for _ in range(rounds):
    kept = [f(x, y) for _ in range(3)]
    kept.append(kept[0][::2])  # a view keeps its block out of the pool until it dies
    del kept
gc.collect()
print(json.dumps({"before": before, "after": rss(), "allocated": POOL.allocated - allocated,
                  "reused": POOL.reused, "cached": POOL.cached_bytes, "limit": POOL.limit}))
"""


def _rss_probe(rounds: int) -> dict:
    env = {**os.environ, "PYTHONFAULTHANDLER": "1"}
    command = [sys.executable, "-c", _RSS_PROBE, str(BIG), str(rounds)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=3600, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])


def _check_rss_flat(rounds: int) -> None:
    numbers = _rss_probe(rounds)
    assert numbers["allocated"] == 0, numbers  # every steady-state call reused a block
    assert numbers["reused"] >= 3 * rounds, numbers
    assert numbers["cached"] <= numbers["limit"], numbers
    growth = numbers["after"] - numbers["before"]
    assert growth < max(0.05 * numbers["before"], 4 * POOLED_BYTES), numbers


def test_many_calls_keep_resident_memory_flat():
    _check_rss_flat(2_000)


@pytest.mark.skipif(os.environ.get("TRACEJIT_SLOW") != "1", reason="long form: TRACEJIT_SLOW=1")
def test_a_million_calls_keep_resident_memory_flat():
    _check_rss_flat(350_000)  # 3 calls per round: ~10^6 calls


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_child_forked_while_another_thread_holds_the_pool_lock_can_allocate():
    held, release = threading.Event(), threading.Event()

    def hold() -> None:
        with POOL._lock:
            held.set()
            release.wait(30)

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert held.wait(30)
        pid = os.fork()
        if pid == 0:  # the child: allocate a pooled block, report by exit status
            code = 1
            try:
                code = 0 if POOL.empty((BIG,), np.dtype(np.float32)).size == BIG else 2
            finally:
                os._exit(code)
        status = _wait_for(pid, seconds=30)
    finally:
        release.set()
        holder.join()
    assert status == 0, f"the forked child did not allocate (status {status})"


def _wait_for(pid: int, seconds: float) -> int | None:
    """The child's exit status, or None (after killing it) if it hangs."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        time.sleep(0.01)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    return None
