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

from tracejit.compiler.options import DEFAULT_CACHE_MAX_BYTES, FROM_ENVIRONMENT, OPTIONS
from tracejit.frontend.autograph import index_loops
from tracejit.frontend.autograph.index_loops import DEFAULT_LOOP_UNROLL_LIMIT
from tracejit.runtime import buffer_pool, settings

_run_functions_eagerly = False


def run_functions_eagerly(run_eagerly: bool) -> None:
    """Run every `tj.function` as plain Python on NumPy arrays (for debugging and as the
    reference the tests compare compiled results against).

    While on, calls neither trace nor compile: the Python function runs on the arguments as
    they are, so `print` and a debugger see values. Off again, calls use their traces.

    Parameters
    ----------
    run_eagerly : bool
        On (True) or off (False, the default).

    Examples
    --------
    >>> @tj.function
    ... def f(x):
    ...     print("running on", type(x).__name__)
    ...     return x + 1
    >>> tj.config.run_functions_eagerly(True)
    >>> f(np.ones(2))
    running on ndarray
    array([2., 2.])
    >>> tj.config.run_functions_eagerly(False)
    >>> f(np.ones(2))  # traced: while tracing, x is a tj.Tensor
    running on Tensor
    array([2., 2.])
    """
    global _run_functions_eagerly
    _run_functions_eagerly = bool(run_eagerly)


def functions_run_eagerly() -> bool:
    """Whether `tj.function`s run as plain Python (`run_functions_eagerly`).

    >>> tj.config.functions_run_eagerly()
    False
    """
    return _run_functions_eagerly


def set_cache_dir(path: str | os.PathLike[str] | None, max_bytes: int | None = None) -> None:
    """Store compiled code in `path` and reuse it in later processes (None turns it off).

    The directory is created on first store, private (mode 0700); `max_bytes` (default
    256 MiB, or `TRACEJIT_CACHE_MAX_BYTES`) bounds its size, evicting least-recently-used
    entries. Whoever can write the directory can run code in every process that reads it (as
    with pickle), so a directory or entry that the group or everyone can write, or that
    another user owns, is not read: a warning, and the code is compiled instead.

    Parameters
    ----------
    path : str or os.PathLike or None
        The directory (`~` is expanded); None turns the cache off.
    max_bytes : int, optional
        The size bound in bytes.

    Raises
    ------
    ValueError
        `max_bytes` is negative.

    Examples
    --------
    >>> import tempfile
    >>> previous = tj.config.cache_dir(), tj.config.cache_max_bytes()
    >>> with tempfile.TemporaryDirectory() as directory:
    ...     tj.config.set_cache_dir(directory, max_bytes=2**30)
    ...     print(str(tj.config.cache_dir()) == directory, tj.config.cache_max_bytes())
    ...     tj.config.set_cache_dir(*previous)
    True 1073741824
    """
    if max_bytes is not None and int(max_bytes) < 0:
        raise ValueError(f"set_cache_dir: max_bytes must be >= 0, got {max_bytes}")
    OPTIONS.cache_dir = None if path is None else Path(path).expanduser()
    OPTIONS.cache_max_bytes = (
        FROM_ENVIRONMENT.cache_max_bytes if max_bytes is None else int(max_bytes)
    )


def cache_dir() -> Path | None:
    """The compiled-code cache directory, or None when the cache is off (the default).

    >>> previous = tj.config.cache_dir(), tj.config.cache_max_bytes()
    >>> tj.config.set_cache_dir(None)
    >>> print(tj.config.cache_dir())
    None
    >>> tj.config.set_cache_dir(*previous)
    """
    return OPTIONS.cache_dir


def cache_max_bytes() -> int:
    """The size bound of the cache directory in bytes (`set_cache_dir`).

    >>> tj.config.cache_max_bytes() > 0
    True
    """
    return OPTIONS.cache_max_bytes


# --- tiered execution (frontend/api/tiered.py, runtime/graph_interpreter.py) --------------------
def set_tiered_compilation(enabled: bool) -> None:
    """Interpret the first call of each new trace with NumPy and compile it in a background
    thread, instead of compiling before the first call returns (default on, or
    `TRACEJIT_TIERED=0|1`). Every later call waits for that compile and runs machine code.

    Only pure traces are interpreted (element-wise math, shape ops, matmul, reductions,
    if/while over those); anything else compiles before its first call, as with tiering off.
    The one visible difference: a first call's floats are NumPy's own results, the later
    calls' those of the compiled code, which may differ in the last bits (transcendental
    functions, the order a reduction adds in).

    Parameters
    ----------
    enabled : bool
        On (True) or off (False: every first call waits for its compile).

    Examples
    --------
    >>> previous = tj.config.tiered_compilation()
    >>> tj.config.set_tiered_compilation(False)
    >>> tj.config.tiered_compilation()
    False
    >>> tj.config.set_tiered_compilation(previous)
    """
    OPTIONS.tiered = bool(enabled)


def tiered_compilation() -> bool:
    """Whether first calls are interpreted while the compile runs in the background
    (`set_tiered_compilation`).

    >>> isinstance(tj.config.tiered_compilation(), bool)
    True
    """
    return OPTIONS.tiered


def wait_for_compiles() -> None:
    """Block until every background compile has finished: those tiered execution started,
    then the thread pool's and the block cache's (compiled once per process, in the
    background, after the first kernel that needs them). Benchmarks call it between
    measurements, tests to see compiled code: afterwards calls run at their steady speed.

    >>> @tj.function
    ... def f(x):
    ...     return np.log(x)
    >>> _ = f(np.ones(3))  # with tiered compilation, interpreted while it compiles
    >>> tj.config.wait_for_compiles()
    >>> f.concrete_functions()[0].is_compiled
    True
    """
    from tracejit.compiler import driver
    from tracejit.frontend.api import tiered

    tiered.wait_for_compiles()
    driver.wait_for_runtime()


# --- staging Python index loops (frontend/autograph/operators.py: for_stmt) ------------------
def set_loop_unroll_limit(limit: int | None) -> None:
    """Python `for` loops over `range(...)` (or a 1-d NumPy array, or `enumerate` of a
    tensor) with more iterations than `limit`, whose body uses traced values, are compiled
    as loops instead of being unrolled while tracing (default 8). None never stages them:
    every Python loop is unrolled, as in TensorFlow. `tj.range` always stages; iterating a
    list (`for i in list(range(n))`) always unrolls.

    Parameters
    ----------
    limit : int or None
        The most iterations a loop may have and still be unrolled (>= 0); None: unroll all.

    Raises
    ------
    ValueError
        `limit` is negative.

    Examples
    --------
    >>> def total(x):
    ...     s = x * 0.0
    ...     for i in range(20):
    ...         s = s + x * i
    ...     return s
    >>> staged = tj.function(total).get_concrete_function(np.float64(1.0))
    >>> "tj.while" in str(staged.graph)  # 20 > 8 iterations: one compiled loop
    True
    >>> previous = tj.config.loop_unroll_limit()
    >>> tj.config.set_loop_unroll_limit(None)  # unroll every loop, as TensorFlow does
    >>> unrolled = tj.function(total).get_concrete_function(np.float64(1.0))
    >>> "tj.while" in str(unrolled.graph), str(unrolled.graph).count("tj.add")
    (False, 20)
    >>> tj.config.set_loop_unroll_limit(previous)
    """
    if limit is not None and int(limit) < 0:
        raise ValueError(f"set_loop_unroll_limit: the limit must be >= 0 or None, got {limit}")
    index_loops.UNROLL_LIMIT = None if limit is None else int(limit)


def loop_unroll_limit() -> int | None:
    """The bound `set_loop_unroll_limit` set (`DEFAULT_LOOP_UNROLL_LIMIT`, 8, at first).

    >>> tj.config.DEFAULT_LOOP_UNROLL_LIMIT
    8
    """
    return index_loops.UNROLL_LIMIT


# --- reused memory (runtime/buffer_pool.py, runtime/block_cache.py, ir/memory_contract.py) --
def set_buffer_cache_bytes(limit: int) -> None:
    """Keep at most `limit` bytes of freed kernel outputs for reuse, and as much again of
    freed kernel temporaries (default 512 MiB each, or `TRACEJIT_BUFFER_CACHE_BYTES`); 0
    keeps none. Outputs and temporaries of 1 MiB and more come from these caches, so a loop
    of calls does not page-fault fresh memory in every time.

    Parameters
    ----------
    limit : int
        The bound of each cache in bytes.

    Examples
    --------
    >>> previous = tj.config.buffer_cache_bytes()
    >>> tj.config.set_buffer_cache_bytes(64 * 2**20)
    >>> tj.config.buffer_cache_bytes()
    67108864
    >>> tj.config.set_buffer_cache_bytes(previous)
    """
    buffer_pool.set_cache_bytes(int(limit))


def buffer_cache_bytes() -> int:
    """The bound set by `set_buffer_cache_bytes`, in bytes.

    >>> tj.config.buffer_cache_bytes() >= 0
    True
    """
    return buffer_pool.POOL.limit


def clear_buffer_cache() -> None:
    """Free every cached block not in use: outputs (arrays still alive keep theirs) and
    kernel temporaries.

    >>> tj.config.clear_buffer_cache()
    """
    buffer_pool.clear_caches()


# --- threads (ir/parallel_contract.py, passes/parallelize.py, codegen/emit_parallel.py) -------
def set_num_threads(count: int | None) -> None:
    """Run big loops of compiled code on up to `count` threads (1: never use threads; None:
    back to the default, `TRACEJIT_NUM_THREADS` or the CPUs in this process's affinity mask).

    Compiled code reads the count on every call that is big enough for threads (small calls
    never do), so changing it needs no recompilation; results are bit-identical for every
    count (each element is computed by the same code, and a whole-array sum adds the same
    fixed blocks in the same order whatever the count). The default count runs on fewer
    threads while other processes keep the cores busy (`TRACEJIT_FIT_THREADS=0`: never);
    a count given here is kept whatever the load.

    Parameters
    ----------
    count : int or None
        The most threads (1: none besides the caller's); None: the default.

    Examples
    --------
    >>> previous = tj.config.num_threads()
    >>> tj.config.set_num_threads(1)  # compiled loops run on the calling thread only
    >>> tj.config.num_threads()
    1
    >>> tj.config.set_num_threads(previous)  # (None would restore the default)
    """
    settings.set_thread_count(None if count is None else int(count))


def num_threads() -> int:
    """The number of threads big loops of compiled code run on (`set_num_threads`).

    >>> tj.config.num_threads() >= 1
    True
    """
    return settings.THREAD_COUNT.value


def set_log_compiles(enabled: bool) -> None:
    """Log every trace, compile and cache store at WARNING (logger "tracejit"), as JAX's
    `jax_log_compiles` does; off (the default), they are logged at DEBUG.

    At WARNING they show with no logging set up (Python's last-resort handler prints them
    to stderr). Each line says what was traced or compiled, how long it took (per pass and
    LLVM stage for a compile) and why (the first call, a new shape in argument 'x', ...).

    Parameters
    ----------
    enabled : bool
        On (True) or off (False).

    Examples
    --------
    >>> import logging, sys
    >>> handler = logging.StreamHandler(sys.stdout)
    >>> logging.getLogger("tracejit").addHandler(handler)
    >>> tj.config.set_log_compiles(True)
    >>> @tj.function
    ... def f(x):
    ...     return np.sqrt(x) + 3.25
    >>> _ = f(np.ones(3))
    traced f(float64[3]) in ... ms (its first call)
    compiled f(x) synchronously in ... ms (cache miss): inline ... ms, canonicalize ... ms, ...
    >>> tj.config.set_log_compiles(False)
    >>> logging.getLogger("tracejit").removeHandler(handler)
    """
    from tracejit.compiler import compile_log

    compile_log.set_log_compiles(enabled)


def log_compiles() -> bool:
    """Whether traces and compiles are logged at WARNING (`set_log_compiles`).

    >>> tj.config.log_compiles()
    False
    """
    from tracejit.compiler import compile_log

    return compile_log.log_compiles()


# --- bounds checks (codegen/emit_memref.py) ----------------------------------------------------
def set_check_bounds(enabled: bool) -> None:
    """Range-check every memory access of code compiled from now on (default off, or
    `TRACEJIT_CHECK_BOUNDS=1`). A failed check raises InvalidArgumentError naming the op: it
    is a compiler-bug detector (correct code never trips it), and the checks cost speed.
    Functions compiled before keep their code; the persistent cache keys on the setting.

    Parameters
    ----------
    enabled : bool
        On (True) or off (False).

    Examples
    --------
    >>> previous = tj.config.check_bounds()
    >>> tj.config.set_check_bounds(True)
    >>> tj.config.check_bounds()
    True
    >>> tj.config.set_check_bounds(previous)
    """
    OPTIONS.check_bounds = bool(enabled)


def check_bounds() -> bool:
    """Whether code compiled from now on range-checks its memory accesses
    (`set_check_bounds`).

    >>> isinstance(tj.config.check_bounds(), bool)
    True
    """
    return OPTIONS.check_bounds


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
    "set_check_bounds",
    "check_bounds",
    "DEFAULT_CACHE_MAX_BYTES",
    "DEFAULT_LOOP_UNROLL_LIMIT",
]


def __dir__() -> list[str]:
    """`dir(tj.config)`: the settings, not the modules this file imports."""
    return sorted(__all__)
