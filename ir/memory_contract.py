"""The reused-memory contract: one bound for the caches of freed blocks, stated once.

Two caches keep freed large blocks for the next call, so that a steady loop of calls stops
page-faulting fresh memory in: kernel outputs handed to Python (`runtime/buffer_pool.py`)
and kernel temporaries, allocated and freed inside compiled code (`runtime/block_cache.py`).
`tj.config.set_buffer_cache_bytes` bounds each of them by CACHE_BYTES; compiled code reads
the bound through a pointer to it, as it reads the thread count (ir/parallel_contract.py).
`tj.config.clear_buffer_cache` runs CLEARS. Both live in `ir/` because every layer may
import it; they are plain ctypes and Python.
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Callable

ALLOC_GLOBAL = "tracejit_block_alloc_ptr"  # where a module finds the block cache's alloc
FREE_GLOBAL = "tracejit_block_free_ptr"  # and its free (runtime/block_cache.py)

CACHED_BYTES_MIN = 1 << 20
"""Blocks of fewer bytes are not cached: malloc serves them from memory it already has."""
CACHE_BYTES_ENV = "TRACEJIT_BUFFER_CACHE_BYTES"
DEFAULT_CACHE_BYTES = 512 << 20


def initial_cache_bytes() -> int:
    """TRACEJIT_BUFFER_CACHE_BYTES if set (a bad value counts as unset), else 512 MiB."""
    try:
        return max(int(os.environ.get(CACHE_BYTES_ENV, "")), 0)
    except ValueError:
        return DEFAULT_CACHE_BYTES


CACHE_BYTES = ctypes.c_int64(initial_cache_bytes())
"""The most bytes of freed blocks each cache keeps."""

CLEARS: list[Callable[[], None]] = []
"""Functions that free every cached block of one cache (run by `clear_buffer_cache`)."""
