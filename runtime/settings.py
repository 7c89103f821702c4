"""The runtime's process-wide settings: the thread count and the bound of the block caches.

Compiled code reads both through pointers the loader fills in (ir/parallel_contract.py's
THREADS_GLOBAL; runtime/block_cache.py's bound), so changing them never recompiles and object
code cached on disk stays valid. Their values from the environment are applied once by
compiler/options.py; `tj.config.set_num_threads` and `set_buffer_cache_bytes` change them.
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Callable

from tracejit.ir.parallel_contract import MAX_THREADS

DEFAULT_CACHE_BYTES = 512 << 20


def available_cpus() -> int:
    """The CPUs this process may run on (its affinity mask), at most MAX_THREADS."""
    try:
        return clamp_thread_count(len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not Linux
        return clamp_thread_count(os.cpu_count() or 1)


def clamp_thread_count(count: int) -> int:
    if count < 1:
        raise ValueError(f"the thread count must be >= 1, got {count}")
    return min(count, MAX_THREADS)


THREAD_COUNT = ctypes.c_int32(available_cpus())
"""The thread count compiled code reads (through THREADS_GLOBAL) on every parallel loop."""

DEFAULT_THREAD_COUNT = THREAD_COUNT.value
"""What `set_thread_count(None)` goes back to (compiler/options.py sets it from the
environment)."""

CACHE_BYTES = ctypes.c_int64(DEFAULT_CACHE_BYTES)
"""The most bytes of freed blocks each cache keeps (outputs and temporaries)."""

CLEARS: list[Callable[[], None]] = []
"""Functions that free every cached temporary block (runtime/block_cache.py registers them;
runtime/buffer_pool.py's `set_cache_bytes` and `clear_caches` run them)."""


def set_thread_count(count: int | None) -> None:
    """`count` threads for parallel loops; None: DEFAULT_THREAD_COUNT."""
    THREAD_COUNT.value = DEFAULT_THREAD_COUNT if count is None else clamp_thread_count(count)
