"""Reused memory for large kernel outputs.

A fresh output of tens of megabytes costs more than the kernel filling it: glibc serves such
blocks with `mmap` and gives them back with `munmap`, so every call page-faults its output
in again (~4 ms per 40 MB here, about as long as W2's whole kernel). XLA and PyTorch keep
freed buffers for the next request; so does this pool.

Outputs of at least `POOLED_BYTES` come from size buckets of freed blocks (sizes rounded up
to 1/8 of a power of two, so a steady loop of calls meets the same bucket every time). The
array handed to the user is an ordinary writeable, C-contiguous, 64-byte-aligned ndarray
whose `base` is the block's owner: when the array and every view of it are gone, the owner
gives the block back to its bucket instead of freeing it. The free blocks are bounded by
`tj.config.set_buffer_cache_bytes` (default 512 MiB, or `TRACEJIT_BUFFER_CACHE_BYTES`);
beyond it a block is freed, and `tj.config.clear_buffer_cache()` frees them all. Smaller
outputs keep `np.empty`, whose cost the pool could not beat.

Blocks are returned from `__del__`, so from whichever thread drops the last reference, or
from the garbage collector in the middle of a pool operation: the one lock is re-entrant and
every step under it leaves the pool consistent.
"""

from __future__ import annotations

import contextlib
import ctypes
import math
import os
import threading
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import DTypeLike

from tracejit.ir.memory_contract import POOLED_OUTPUT_BYTES_MIN
from tracejit.runtime import settings

POOLED_BYTES = POOLED_OUTPUT_BYTES_MIN
ALIGNMENT = 64

_libc = ctypes.CDLL(None)
_aligned_alloc = _libc.aligned_alloc
_aligned_alloc.argtypes = [ctypes.c_size_t, ctypes.c_size_t]
_aligned_alloc.restype = ctypes.c_void_p
_free = _libc.free
_free.argtypes = [ctypes.c_void_p]
_free.restype = None


def bucket_size(nbytes: int) -> int:
    """`nbytes` rounded up to a multiple of an eighth of the power of two below it (and of 64)."""
    step = max(1 << max(max(nbytes - 1, 1).bit_length() - 4, 0), ALIGNMENT)
    return -(-nbytes // step) * step


class BufferPool:
    """Free blocks by bucket size, at most `limit` bytes of them."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.cached_bytes = 0
        self.reused = 0  # counters for tests and benchmarks
        self.allocated = 0
        self._free: dict[int, list[int]] = {}
        self._lock = threading.RLock()

    def empty(self, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
        """An uninitialised C-contiguous array of `shape` and `dtype` in a pooled block."""
        # math.prod, not np.prod: this runs on every call and np.prod costs ~10x more
        size = bucket_size(int(math.prod(shape)) * dtype.itemsize)
        address = self._take(size)
        if address is None:
            address = _aligned_alloc(ALIGNMENT, size)
            if not address:
                raise MemoryError(f"cannot allocate {size} bytes for a kernel output")
            self.allocated += 1
        return np.asarray(_PooledBlock(self, address, size, shape, dtype))

    def _take(self, size: int) -> int | None:
        with self._lock:
            blocks = self._free.get(size)
            if not blocks:
                return None
            address = blocks.pop()
            self.cached_bytes -= size
            self.reused += 1
            return address

    def give_back(self, address: int, size: int) -> None:
        """Keep the block for reuse, or free it when the pool is full."""
        with self._lock:
            if self.cached_bytes + size <= self.limit:
                self._free.setdefault(size, []).append(address)
                self.cached_bytes += size
                return
        _free(address)

    def clear(self) -> None:
        """Free every block not in use."""
        with self._lock:
            blocks = [a for bucket in self._free.values() for a in bucket]
            self._free = {}
            self.cached_bytes = 0
        for address in blocks:
            _free(address)

    def shrink_to(self, limit: int) -> None:
        self.limit = limit
        with self._lock:
            over = self.cached_bytes > limit
        if over:
            self.clear()


class _PooledBlock:
    """Owns one block while any array over it lives (NumPy keeps it as the array's base)."""

    __slots__ = ("__array_interface__", "_pool", "_address", "_size")

    def __init__(
        self, pool: BufferPool, address: int, size: int, shape: tuple[int, ...], dtype: np.dtype
    ) -> None:
        self._pool = pool
        self._address = address
        self._size = size
        self.__array_interface__ = {
            "data": (address, False),
            "shape": shape,
            "typestr": dtype.str,
            "version": 3,
        }

    def __del__(self) -> None:
        # at interpreter shutdown the pool may be gone: the process is ending anyway
        with contextlib.suppress(Exception):
            self._pool.give_back(self._address, self._size)


POOL = BufferPool(settings.CACHE_BYTES.value)


def _after_fork_in_child() -> None:
    # a thread of the parent may have held the lock at the fork; it does not exist in the
    # child, so the lock would never be released. The free blocks were copied with the
    # process and stay valid.
    POOL._lock = threading.RLock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)

Allocator = Callable[[tuple[int, ...], Any], np.ndarray]


def allocator(shape: tuple[int, ...], dtype: DTypeLike | None) -> Allocator:
    """How to allocate outputs of a static `shape` and `dtype`: np.empty for small ones, the
    pool for large ones (decided once per trace, so small calls pay nothing for the pool)."""
    nbytes = int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize
    return POOL.empty if nbytes >= POOLED_BYTES and POOL.limit > 0 else np.empty


def empty(shape: tuple[int, ...], dtype: DTypeLike | None) -> np.ndarray:
    """An output array of a shape known only now (the slow path): np.empty for a small one,
    the pool for a large one (math.prod: np.prod costs ~2 us a call)."""
    dtype = np.dtype(dtype)
    if math.prod(shape) * dtype.itemsize >= POOLED_BYTES and POOL.limit > 0:
        return POOL.empty(shape, dtype)
    return np.empty(shape, dtype)


def sized_allocator(dtype: np.dtype) -> Callable[[tuple[int, ...]], np.ndarray]:
    """`empty` for outputs of one `dtype` (a fast call of a trace with unknown dims)."""
    return lambda shape: empty(shape, dtype)


def set_cache_bytes(limit: int) -> None:
    """Bound the cache of freed outputs and that of freed temporaries by `limit` bytes each;
    cached blocks over the new bound are freed now."""
    if limit < 0:
        raise ValueError(f"set_buffer_cache_bytes: the limit must be >= 0, got {limit}")
    settings.CACHE_BYTES.value = limit
    for clear in settings.CLEARS:  # kept temporaries over the new bound go now
        clear()
    POOL.shrink_to(limit)


def clear_caches() -> None:
    """Free every cached block not in use: outputs (arrays still alive keep theirs) and
    kernel temporaries."""
    POOL.clear()
    for clear in settings.CLEARS:
        clear()
