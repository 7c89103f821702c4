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
"""The thread count for parallel loops (`tj.config.num_threads()`)."""

RUN_THREAD_COUNT = ctypes.c_int32(THREAD_COUNT.value)
"""The thread count compiled code reads (through THREADS_GLOBAL) on every parallel loop:
THREAD_COUNT, or, while it is the default count, at most the cores other processes leave
free (runtime/load_fitting.py measures them)."""

DEFAULT_THREAD_COUNT = THREAD_COUNT.value
"""What `set_thread_count(None)` goes back to (compiler/options.py sets it from the
environment)."""

DEFAULT_IS_CHOSEN = False
"""Whether the default count is the user's (TRACEJIT_NUM_THREADS): then it is not fitted."""

_chosen = False  # a count set by `set_thread_count(n)`: kept whatever the load
_free_cores = MAX_THREADS

CACHE_BYTES = ctypes.c_int64(DEFAULT_CACHE_BYTES)
"""The most bytes of freed blocks each cache keeps (outputs and temporaries)."""

CLEARS: list[Callable[[], None]] = []
"""Functions that free every cached temporary block (runtime/block_cache.py registers them;
runtime/buffer_pool.py's `set_cache_bytes` and `clear_caches` run them)."""


def set_thread_count(count: int | None) -> None:
    """`count` threads for parallel loops; None: DEFAULT_THREAD_COUNT, fitted to the load."""
    global _chosen
    THREAD_COUNT.value = DEFAULT_THREAD_COUNT if count is None else clamp_thread_count(count)
    _chosen = count is not None or DEFAULT_IS_CHOSEN
    _set_run_count()


def fit_to_free_cores(cores: int) -> None:
    """The cores other processes leave free (runtime/load_fitting.py): the default count
    runs on at most that many, at least one."""
    global _free_cores
    _free_cores = cores
    _set_run_count()


def _set_run_count() -> None:
    count = THREAD_COUNT.value
    RUN_THREAD_COUNT.value = count if _chosen else max(1, min(count, _free_cores))
