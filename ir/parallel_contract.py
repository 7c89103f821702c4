"""The multi-core contract: how loops are marked parallel, and the process-wide thread count.

Stated once because three layers meet here:

- `lower-to-loops` and `tile-matmul` put the unit attribute PARALLEL_LOOP_ATTR on an
  `scf.for` whose iterations are independent (each writes its own output elements and reads
  nothing another iteration writes). Scratch `memref.alloca`s used only inside such a loop
  are per-iteration scratch (the matmul's register tile): a copy per thread is correct.
- `parallelize` (passes/parallelize.py) outlines such a loop into a function of a chunk of
  iterations and calls it with PARALLEL_WORK_ATTR (estimated work per iteration) on the
  `func.call`; the code generator (codegen/emit_parallel.py) turns that call into a fork/join
  over threads when the call's work reaches MIN_PARALLEL_WORK, and into the plain call below.
  `dedupe-loop-nests` (passes/dedupe_loop_nests.py) outlines repeated loop nests the same
  way and calls them with OUTLINED_CALL_ATTR instead: a plain call, never forked.
  Either function returns the status of a bounds check failing inside (0 when none did),
  which the call returns at once.
- The thread count is read by compiled code at run time from one C int per process
  (runtime/settings.py's THREAD_COUNT, which `tj.config.set_num_threads` writes), so changing
  it never recompiles and object code cached on disk stays valid. A compiled module holds a
  pointer to it (a global filled in after loading, THREADS_GLOBAL); while that pointer is
  null the module runs serially.
"""

from __future__ import annotations

PARALLEL_LOOP_ATTR = "tj.parallel"
PARALLEL_WORK_ATTR = "tj.parallel_work"
OUTLINED_CALL_ATTR = "tj.outlined"

MIN_PARALLEL_WORK = 1 << 20
"""Estimated scalar operations a loop must do before threads are used. Handing a loop to the
pool's workers and waiting for their pieces costs ~2 us (starting threads, where there is no
pool, 30-60 us). The estimate counts scalar ops, and vectorised code does 8-16 per
instruction, so the bound is set well above the break-even of `x * 2 + 1` (float32: 125k
elements, 2^18 ops, take 7.6 us on one thread and 4.4 on two; 500k, 2^20 ops, 42 and 23 us):
at 2^18, W9's 10k-element staged loop forked every iteration and ran 1.5x slower."""

MAX_THREADS = 64
"""Threads one parallel loop is split over at most (the runtime's fixed-size tables)."""

THREADS_GLOBAL = "tracejit_num_threads_ptr"
POOL_GLOBAL = "tracejit_parallel_pool_ptr"  # the thread pool's run function (thread_pool.py)
POOL_BUSY = -(1 << 31)
"""What `tracejit_pool_run` returns when another call holds the pool (no check status is
negative: they are message indices)."""
PIECES_PER_THREAD = 4
"""Iterations are cut into this many pieces per thread, taken from a shared counter: on a
loaded machine a thread that runs late takes fewer (a fixed split would wait for it)."""
