"""Kernel temporaries come from the block cache (runtime/block_cache.py): a steady loop of
calls stops page-faulting them in, results stay those of eager NumPy, and the cache keeps
to its bound, clears, and starts afresh in the child of a fork."""

from __future__ import annotations

import ctypes
import resource

import numpy as np
import pytest

import tracejit as tj
from tests.conftest import assert_same, holds_in_forked_child, run_eagerly
from tracejit.runtime import block_cache, runtime_binding
from tracejit.runtime.buffer_pool import bucket_size

N = 2_000_003  # an 8 MB float32 temporary: cached (>= 1 MiB), not a multiple of a bucket


@tj.function
def pairwise_of_running_sum(x):
    """`cumsum` is not fused with what reads it twice: its result is a kernel temporary."""
    c = np.cumsum(x)
    return c[:-1] + c[1:]


@pytest.fixture(autouse=True)
def _restore_cache_bound():
    before = tj.config.buffer_cache_bytes()
    yield
    tj.config.set_buffer_cache_bytes(before)


def values() -> np.ndarray:
    return np.random.default_rng(3).standard_normal(N).astype(np.float32)


def minor_faults() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def test_a_steady_loop_reuses_its_temporaries():
    x = values()
    expected = np.asarray(run_eagerly(pairwise_of_running_sum, x))
    pairwise_of_running_sum(x)
    assert runtime_binding.wait_until_ready(60)  # bound after a background compile
    for _ in range(3):
        assert_same(pairwise_of_running_sum(x), expected, rtol=1e-4, atol=1e-2)
    assert block_cache.kept_bytes() >= 4 * N
    before = minor_faults()
    for _ in range(10):
        pairwise_of_running_sum(x)
    # An 8 MB temporary from the C heap faults ~2,000 pages in per call.
    assert minor_faults() - before < 500


def test_clearing_and_a_zero_bound_keep_nothing():
    x = values()
    pairwise_of_running_sum(x)
    assert runtime_binding.wait_until_ready(60)
    pairwise_of_running_sum(x)
    assert block_cache.kept_bytes() > 0
    tj.config.clear_buffer_cache()
    assert block_cache.kept_bytes() == 0
    tj.config.set_buffer_cache_bytes(0)
    expected = np.asarray(run_eagerly(pairwise_of_running_sum, x))
    assert_same(pairwise_of_running_sum(x), expected, rtol=1e-4, atol=1e-2)
    assert block_cache.kept_bytes() == 0


def test_the_bound_is_kept():
    x = values()
    pairwise_of_running_sum(x)
    assert runtime_binding.wait_until_ready(60)
    tj.config.set_buffer_cache_bytes(4 << 20)  # less than one 8 MB temporary
    pairwise_of_running_sum(x)
    assert block_cache.kept_bytes() == 0
    tj.config.set_buffer_cache_bytes(64 << 20)
    pairwise_of_running_sum(x)
    assert 0 < block_cache.kept_bytes() <= 64 << 20


def test_data_dependent_outputs_still_free_with_the_c_heap():
    """A kernel-allocated output the caller adopts is freed by `free`, whichever allocator
    gave it: big selections in a loop neither crash nor leak into the cache's count."""

    @tj.function
    def positives(x):
        return x[x > 0]

    x = values()
    for _ in range(5):
        np.testing.assert_array_equal(positives(x), x[x > 0])


def test_the_child_of_a_fork_forgets_the_kept_blocks():
    x = values()
    pairwise_of_running_sum(x)
    assert runtime_binding.wait_until_ready(60)
    pairwise_of_running_sum(x)
    assert block_cache.kept_bytes() > 0

    def child() -> bool:
        forgot = block_cache.kept_bytes() == 0
        return forgot and np.array_equal(pairwise_of_running_sum(x), pairwise_of_running_sum(x))

    assert holds_in_forked_child(child), "the child kept its parent's blocks, or went wrong"


def test_blocks_from_before_the_binding_are_freed_safely():
    """A kernel that allocated a temporary with `aligned_alloc` (its global still null) and
    frees it through the cache: the block is smaller than its bucket, so the cache passes it
    to `free` instead of keeping it (a later bucket-sized alloc would overrun it)."""
    pairwise_of_running_sum(values())
    assert runtime_binding.wait_until_ready(60)
    tj.config.clear_buffer_cache()
    alloc, free = block_cache.addresses()
    libc = ctypes.CDLL(None)
    libc.aligned_alloc.restype = ctypes.c_void_p
    libc.aligned_alloc.argtypes = [ctypes.c_size_t, ctypes.c_size_t]
    size = (1 << 20) + 64  # its bucket is 1 MiB + 128 KiB, as the output pool rounds it
    block = libc.aligned_alloc(64, size)
    ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int64)(free)(block, size)
    assert block_cache.kept_bytes() == 0
    take = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64)(alloc)
    ours = take(size, 64)
    ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int64)(free)(ours, size)
    assert block_cache.kept_bytes() == bucket_size(size) == (1 << 20) + (128 << 10)
