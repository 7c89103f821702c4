"""The process's worker threads (runtime/thread_pool.py): started once and reused by every
parallel loop, asleep when idle, started again in the child of a fork, and giving the same
bits as one thread."""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import tracejit as tj
from tests.conftest import holds_in_forked_child
from tracejit.runtime import runtime_binding, thread_pool

BIG = 1_000_003


@pytest.fixture(autouse=True)
def _restore_thread_count():
    before = tj.config.num_threads()
    yield
    tj.config.set_num_threads(before)


@tj.function
def scaled(x):
    return np.tanh(x) * 2.0 + 1.0


def values() -> np.ndarray:
    return np.linspace(-4.0, 4.0, BIG).astype(np.float32)


def one_thread_result(x: np.ndarray) -> np.ndarray:
    """One thread's result, after the pool is compiled and bound (runtime_binding.py: the
    first calls start threads per call meanwhile)."""
    tj.config.set_num_threads(1)
    result = scaled(x)
    assert runtime_binding.wait_until_ready(60)
    return result


def test_workers_are_started_once_and_reused():
    x = values()
    expected = one_thread_result(x)
    tj.config.set_num_threads(2)
    assert np.array_equal(scaled(x), expected)
    started = thread_pool.started_workers()
    assert started >= 1
    for _ in range(20):
        assert np.array_equal(scaled(x), expected)
    assert thread_pool.started_workers() == started


def test_more_threads_start_more_workers():
    x = values()
    expected = one_thread_result(x)
    for count in (2, 4, 3, 2):
        tj.config.set_num_threads(count)
        assert np.array_equal(scaled(x), expected), f"{count} threads"
        assert thread_pool.started_workers() >= count - 1


def test_idle_workers_sleep():
    """After a short spin the workers wait on a futex: an idle process uses no CPU."""
    one_thread_result(values())
    tj.config.set_num_threads(4)
    scaled(values())
    time.sleep(0.2)  # past the spin
    before = time.process_time()
    time.sleep(0.5)
    assert time.process_time() - before < 0.1


def test_the_child_of_a_fork_starts_its_own_workers():
    x = values()
    expected = one_thread_result(x)
    tj.config.set_num_threads(2)
    scaled(x)  # the parent's workers exist; the child has none
    assert thread_pool.started_workers() >= 1
    def child() -> bool:
        before = thread_pool.started_workers()
        same = np.array_equal(scaled(x), expected)
        return before == 0 and same and thread_pool.started_workers() >= 1

    assert holds_in_forked_child(child), "the child's result or worker count was wrong"


def test_calls_before_the_pool_is_bound_start_their_own_threads():
    """A module loaded before the pool is compiled forks with threads of its own meanwhile:
    the same bits, no pool worker involved (runtime_binding.py)."""
    x = values()
    expected = one_thread_result(x)

    @tj.function
    def fresh(x):
        return np.tanh(x) * 2.0 + 1.0

    tj.config.set_num_threads(2)
    engine = fresh.get_concrete_function(x).compilation.jit._engine
    slot = engine.get_global_value_address(thread_pool.POOL_GLOBAL)
    assert slot and ctypes.c_void_p.from_address(slot).value == thread_pool.pool_address()
    ctypes.c_void_p.from_address(slot).value = None  # as if the pool were not compiled yet
    assert np.array_equal(fresh(x), expected)


FRESH_PROCESS = """
import numpy as np
import tracejit as tj
from tracejit.runtime import runtime_binding

f = tj.function(lambda x: np.tanh(x) * 2.0 + 1.0)
f(np.ones(1_000_003, np.float32))  # a parallel kernel: the pool's compile is started
tj.config.wait_for_compiles()
print("pool ready:", runtime_binding.wait_until_ready(0))
"""


def test_wait_for_compiles_waits_for_the_pool_too(tmp_path):
    """In a new process the pool compiles in the background after the first kernel that
    needs it; `tj.config.wait_for_compiles()` waits for that as well, so that calls timed
    after it run on the pool (a benchmark's first samples ran on threads started per call
    while the compile took a core)."""
    script = tmp_path / "fresh.py"
    script.write_text(textwrap.dedent(FRESH_PROCESS))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          env={**os.environ, "TRACEJIT_NUM_THREADS": "2"}, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "pool ready: True", done.stdout


def _pool_run():
    address = thread_pool.pool_address()
    if address is None:
        pytest.skip("no thread pool on this platform (Linux on x86-64 or AArch64 only)")
    signature = ctypes.CFUNCTYPE(
        ctypes.c_int32, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64,
        ctypes.c_int64,
    )  # fmt: skip
    return signature(address)


def test_a_caller_that_waited_for_a_late_worker_runs_alone_then_recovers():
    """A worker preempted in its piece (other processes hold the cores) made the caller wait
    a time slice per call, 30x the one-thread time. Simulated here by a task whose pieces
    sleep on workers: the caller, done first, waits longer than it worked, so the next call
    runs on the calling thread alone (one task call for the whole range), with the penalty
    doubling while it happens again and halving while calls go well."""
    import threading

    run = _pool_run()
    caller = threading.get_ident()
    calls: list[tuple[int, int, bool]] = []

    @ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64)
    def task(ctx, lo, hi):
        on_caller = threading.get_ident() == caller
        calls.append((lo, hi, on_caller))
        time.sleep(0.001 if on_caller else 0.05 if slow_workers else 0)
        return 0

    slow_workers = False
    while thread_pool.backoff_state() != (0, 0):  # other tests' calls: let it settle
        run(task, None, 0, 64, 2)
    slow_workers = True
    for expected_penalty in (1, 2, 4):
        calls.clear()
        assert run(task, None, 0, 64, 2) == 0
        assert any(not on_caller for *_, on_caller in calls), "no worker took a piece"
        assert thread_pool.backoff_state() == (expected_penalty, expected_penalty)
        for _ in range(expected_penalty):  # backing off: the whole range, on this thread
            calls.clear()
            assert run(task, None, 0, 64, 2) == 0
            assert calls == [(0, 64, True)]
        assert thread_pool.backoff_state()[0] == 0
    slow_workers = False
    for _ in range(20):  # calls that go well halve the penalty back to 0
        run(task, None, 0, 64, 2)
    assert thread_pool.backoff_state() == (0, 0)
