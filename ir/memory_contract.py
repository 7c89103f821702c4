"""The reused-memory contract: one bound for the caches of freed blocks, stated once.

Two caches keep freed large blocks for the next call, so that a steady loop of calls stops
page-faulting fresh memory in: kernel outputs handed to Python (`runtime/buffer_pool.py`)
and kernel temporaries, allocated and freed inside compiled code (`runtime/block_cache.py`).
`tj.config.set_buffer_cache_bytes` bounds each of them by runtime/settings.py's CACHE_BYTES;
compiled code reads the bound through a pointer to it, as it reads the thread count
(ir/parallel_contract.py).
"""

from __future__ import annotations

ALLOC_GLOBAL = "tracejit_block_alloc_ptr"  # where a module finds the block cache's alloc
FREE_GLOBAL = "tracejit_block_free_ptr"  # and its free (runtime/block_cache.py)

CACHED_BYTES_MIN = 1 << 16
"""Kernel temporaries of fewer bytes are not cached: malloc serves them from memory it
already has. Larger ones are: glibc gives back the top of its heap once more than twice its
mmap threshold (128 KiB at first) is free there, so a kernel with a few temporaries of a few
hundred KiB (eight 200x200 float64 `np.roll`s) page-faulted them all in again on every call
(1.4 ms for 75 us of work), with 1 MiB as this bound."""

POOLED_OUTPUT_BYTES_MIN = 1 << 20
"""Outputs (runtime/buffer_pool.py) of fewer bytes come from np.empty: cheaper than the pool."""

CACHE_LINE_BYTES = 64
"""The cache line of every x86-64 and most AArch64 CPUs: what a non-temporal store writes
whole (passes/stream_stores.py, codegen/emit_vector.py)."""
