"""Global switches (`tj.config`).

The compiled-code cache (`set_cache_dir`) is **off by default**. Turn it on with
`tj.config.set_cache_dir("~/.cache/tracejit")` or the environment variable
`TRACEJIT_CACHE_DIR`. Why not on by default: a cache directory holds native code that every
process reading it will run, so where it lives (private, not shared, not on a network home used
by other machines' users) is a decision for the user, as for JAX's persistent compilation cache
and numba's `cache=True`, which are opt-in too; a library that writes into `$HOME` on import
surprises read-only containers and CI; and a compile costs ~0.1 s per trace, so the cache pays
off for programs with many traces or short-lived processes -- exactly the users who will set it.
"""

from __future__ import annotations

import os
from pathlib import Path

CACHE_DIR_ENV = "TRACEJIT_CACHE_DIR"
TIERED_ENV = "TRACEJIT_TIERED"
CACHE_MAX_BYTES_ENV = "TRACEJIT_CACHE_MAX_BYTES"
DEFAULT_CACHE_MAX_BYTES = 256 * 1024 * 1024

_run_functions_eagerly = False
_UNSET = object()
_cache_dir: object = _UNSET  # until set, the environment variable decides
_cache_max_bytes: int | None = None
_tiered: bool | None = None  # until set, the environment variable decides (default on)


def run_functions_eagerly(run_eagerly: bool) -> None:
    """Run every `tj.function` as plain Python on NumPy arrays (for debugging and as the
    reference the tests compare compiled results against)."""
    global _run_functions_eagerly
    _run_functions_eagerly = bool(run_eagerly)


def functions_run_eagerly() -> bool:
    return _run_functions_eagerly


def set_cache_dir(path: str | os.PathLike[str] | None, max_bytes: int | None = None) -> None:
    """Store compiled code in `path` and reuse it in later processes (None turns it off).

    The directory is created on first store, private (mode 0700); `max_bytes` (default
    256 MiB, or `TRACEJIT_CACHE_MAX_BYTES`) bounds its size, evicting least-recently-used
    entries. Whoever can write the directory can run code in every process that reads it (as
    with pickle), so a directory or entry that the group or everyone can write, or that
    another user owns, is not read: a warning, and the code is compiled instead.
    """
    global _cache_dir, _cache_max_bytes
    if max_bytes is not None and int(max_bytes) < 0:
        raise ValueError(f"set_cache_dir: max_bytes must be >= 0, got {max_bytes}")
    _cache_dir = None if path is None else Path(path).expanduser()
    _cache_max_bytes = None if max_bytes is None else int(max_bytes)


def cache_dir() -> Path | None:
    """The compiled-code cache directory, or None when the cache is off (the default)."""
    if _cache_dir is _UNSET:
        env = os.environ.get(CACHE_DIR_ENV)
        return Path(env).expanduser() if env else None
    return _cache_dir  # type: ignore[return-value]


def cache_max_bytes() -> int:
    """The size bound of the cache directory in bytes."""
    if _cache_max_bytes is not None:
        return _cache_max_bytes
    env = os.environ.get(CACHE_MAX_BYTES_ENV)
    return int(env) if env else DEFAULT_CACHE_MAX_BYTES


# --- tiered execution (frontend/api/tiered.py, runtime/graph_interpreter.py) --------------------
def set_tiered_compilation(enabled: bool) -> None:
    """Interpret the first call of each new trace with NumPy and compile it in a background
    thread, instead of compiling before the first call returns (default on, or
    `TRACEJIT_TIERED=0|1`). Every later call waits for that compile and runs machine code.

    Only pure traces are interpreted (element-wise math, shape ops, matmul, reductions,
    if/while over those); anything else compiles before its first call, as with tiering off.
    The one visible difference: a first call's floats are NumPy's own results, the later
    calls' those of the compiled code, which may differ in the last bits (transcendental
    functions, the order a reduction adds in)."""
    global _tiered
    _tiered = bool(enabled)


def tiered_compilation() -> bool:
    """Whether first calls are interpreted while the compile runs in the background."""
    if _tiered is None:
        return os.environ.get(TIERED_ENV, "1") not in ("", "0")
    return _tiered


def wait_for_compiles() -> None:
    """Block until every background compile has finished: those tiered execution started,
    then the thread pool's and the block cache's (compiled once per process, in the
    background, after the first kernel that needs them). Benchmarks call it between
    measurements, tests to see compiled code: afterwards calls run at their steady speed."""
    from tracejit.compiler import driver
    from tracejit.frontend.api import tiered

    tiered.wait_for_compiles()
    driver.wait_for_runtime()


# --- staging Python index loops (frontend/autograph/operators.py: for_stmt) ------------------
DEFAULT_LOOP_UNROLL_LIMIT = 8
_loop_unroll_limit: int | None = DEFAULT_LOOP_UNROLL_LIMIT


def set_loop_unroll_limit(limit: int | None) -> None:
    """Python `for` loops over `range(...)` (or a 1-d NumPy array, or `enumerate` of a
    tensor) with more iterations than `limit`, whose body uses traced values, are compiled
    as loops instead of being unrolled while tracing (default 8). None never stages them:
    every Python loop is unrolled, as in TensorFlow. `tj.range` always stages; iterating a
    list (`for i in list(range(n))`) always unrolls."""
    global _loop_unroll_limit
    if limit is not None and int(limit) < 0:
        raise ValueError(f"set_loop_unroll_limit: the limit must be >= 0 or None, got {limit}")
    _loop_unroll_limit = None if limit is None else int(limit)


def loop_unroll_limit() -> int | None:
    return _loop_unroll_limit


# --- reused memory (runtime/buffer_pool.py, runtime/block_cache.py, ir/memory_contract.py) --
def set_buffer_cache_bytes(limit: int) -> None:
    """Keep at most `limit` bytes of freed kernel outputs for reuse, and as much again of
    freed kernel temporaries (default 512 MiB each, or `TRACEJIT_BUFFER_CACHE_BYTES`); 0
    keeps none. Outputs and temporaries of 1 MiB and more come from these caches, so a loop
    of calls does not page-fault fresh memory in every time."""
    from tracejit.ir.memory_contract import CACHE_BYTES, CLEARS
    from tracejit.runtime.buffer_pool import POOL

    if int(limit) < 0:
        raise ValueError(f"set_buffer_cache_bytes: the limit must be >= 0, got {limit}")
    CACHE_BYTES.value = int(limit)
    for clear in CLEARS:  # kept temporaries over the new bound go now
        clear()
    POOL.shrink_to(int(limit))


def buffer_cache_bytes() -> int:
    """The bound set by `set_buffer_cache_bytes`."""
    from tracejit.runtime.buffer_pool import POOL

    return POOL.limit


def clear_buffer_cache() -> None:
    """Free every cached block not in use: outputs (arrays still alive keep theirs) and
    kernel temporaries."""
    from tracejit.ir.memory_contract import CLEARS
    from tracejit.runtime.buffer_pool import POOL

    POOL.clear()
    for clear in CLEARS:
        clear()


# --- threads (ir/parallel_contract.py, passes/parallelize.py, codegen/emit_parallel.py) -------
def set_num_threads(count: int | None) -> None:
    """Run big loops of compiled code on up to `count` threads (1: never use threads; None:
    back to the default, `TRACEJIT_NUM_THREADS` or the CPUs in this process's affinity mask).

    Compiled code reads the count on every call that is big enough for threads (small calls
    never do), so changing it needs no recompilation; results are bit-identical for every
    count (each element is computed by the same code, and a whole-array sum adds the same
    fixed blocks in the same order whatever the count)."""
    from tracejit.ir.parallel_contract import THREAD_COUNT, clamp_thread_count, default_thread_count

    THREAD_COUNT.value = default_thread_count() if count is None else clamp_thread_count(int(count))


def num_threads() -> int:
    """The number of threads big loops of compiled code run on (`set_num_threads`)."""
    from tracejit.ir.parallel_contract import THREAD_COUNT

    return THREAD_COUNT.value


def set_log_compiles(enabled: bool) -> None:
    """Log every trace, compile and cache store at WARNING (logger "tracejit"), as JAX's
    `jax_log_compiles` does; off (the default), they are logged at DEBUG."""
    from tracejit.frontend.api import compile_log

    compile_log.set_log_compiles(enabled)


def log_compiles() -> bool:
    """Whether traces and compiles are logged at WARNING (`set_log_compiles`)."""
    from tracejit.frontend.api import compile_log

    return compile_log.log_compiles()


__all__ = [  # in the order they are defined (docs/reference.md lists them so)
    "run_functions_eagerly",
    "functions_run_eagerly",
    "set_cache_dir",
    "cache_dir",
    "cache_max_bytes",
    "set_tiered_compilation",
    "tiered_compilation",
    "wait_for_compiles",
    "set_loop_unroll_limit",
    "loop_unroll_limit",
    "set_buffer_cache_bytes",
    "buffer_cache_bytes",
    "clear_buffer_cache",
    "set_num_threads",
    "num_threads",
    "set_log_compiles",
    "log_compiles",
    "CACHE_DIR_ENV",
    "CACHE_MAX_BYTES_ENV",
    "DEFAULT_CACHE_MAX_BYTES",
    "DEFAULT_LOOP_UNROLL_LIMIT",
    "TIERED_ENV",
]


def __dir__() -> list[str]:
    """`dir(tj.config)`: the settings, not the modules this file imports."""
    return sorted(__all__)
