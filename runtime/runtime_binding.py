"""Filling in a loaded module's runtime globals: the thread pool and the block cache.

A module that forks loops or allocates temporaries reaches the process's thread pool
(thread_pool.py) and block cache (block_cache.py) through globals the loader fills in. Both
are small LLVM modules compiled once per process, but that compile costs 30-60 ms, more than
loading a cached kernel and calling it (~11 ms in a new process). So the first module that
needs them starts their compile in a background thread (a moment later, START_DELAY_SECONDS)
and runs meanwhile on what its null globals mean: threads started per call, and
`aligned_alloc`/`free` (block_cache.py takes such blocks back safely). When the compile is
done, the globals of every module still alive are filled in; modules loaded later are filled
in at once.

The globals are written while kernels may run in other threads; kernels read them with
atomic (monotonic) loads, so a kernel sees either null or the address. A slot is written only
while its module is alive: the binding keeps a weak reference to the module's owner and
writes under the GIL with the owner held. `os.fork()` waits for the compile
(shared_library.BACKGROUND_LLVM); the child compiles again on its first need.
"""

from __future__ import annotations

import atexit
import ctypes
import os
import threading
import weakref
from typing import Any

from tracejit.codegen import interrupts, jit
from tracejit.ir.memory_contract import ALLOC_GLOBAL, FREE_GLOBAL
from tracejit.ir.parallel_contract import POOL_GLOBAL, THREADS_GLOBAL
from tracejit.runtime import lapack, load_fitting
from tracejit.runtime.settings import RUN_THREAD_COUNT

GLOBALS = (POOL_GLOBAL, ALLOC_GLOBAL, FREE_GLOBAL)
EXIT_WAIT_SECONDS = 5.0
START_DELAY_SECONDS = 0.1
"""The compile starts this long after the first module needs it: the first call of a new
process (~11 ms from the cache) then runs without a compile beside it taking the GIL."""

_lock = threading.Lock()
_ready: dict[str, int | None] | None = None
_pending: list[tuple[weakref.ref, list[tuple[str, int]]]] = []
_compiler: threading.Thread | None = None


def bind_loaded_module(owner: Any, engine: Any) -> None:
    """Fill in the globals through which a module reaches the process's runtime, those it
    has: the thread count `tj.config.set_num_threads` writes (until then the module runs
    serially), the Ctrl-C flag and the LAPACK routines now, and the thread pool and the
    block cache for temporaries when they are compiled (`bind`; until then threads per
    call, `aligned_alloc` and `free`). Registered with codegen/jit.py's LOAD_HOOKS below."""
    slot = engine.get_global_value_address(THREADS_GLOBAL)
    if slot:
        ctypes.c_void_p.from_address(slot).value = ctypes.addressof(RUN_THREAD_COUNT)
        load_fitting.watch()  # the default count fitted to the cores other processes leave
    interrupts.bind(engine)  # staged loops poll Ctrl-C (codegen/interrupts.py)
    lapack.bind(engine)  # the addresses of SciPy's LAPACK routines (runtime/lapack.py)
    bind(owner, engine)


def bind(owner: Any, engine: Any) -> None:
    """Fill in `engine`'s runtime globals now if the runtime is compiled, else when it is
    (`owner` keeps the engine's code alive: its slots are written only while it lives)."""
    slots = [(name, engine.get_global_value_address(name)) for name in GLOBALS]
    slots = [(name, slot) for name, slot in slots if slot]
    if not slots:
        return
    global _compiler
    with _lock:
        if _ready is None:
            _pending.append((weakref.ref(owner), slots))
            if _compiler is None:
                _compiler = threading.Timer(START_DELAY_SECONDS, _compile)
                _compiler.name, _compiler.daemon = "tracejit-runtime", True
                _compiler.start()
                atexit.register(_settle_at_exit)
            return
    _write(slots, _ready)


def wait_until_ready(timeout: float | None = None) -> bool:
    """Wait for the runtime's compile, if one was started; whether it is done (tests and
    benchmarks use this to measure the steady state)."""
    thread = _compiler
    if thread is not None:
        thread.join(timeout)
    return _ready is not None


def _settle_at_exit() -> None:
    """LLVM's static destructors run when the process exits: a compile still inside LLVM then
    could crash the exit (as shared_library.py says of its builds). A compile not started
    yet is cancelled; one under way is waited for (tens of milliseconds)."""
    thread = _compiler
    if isinstance(thread, threading.Timer):
        thread.cancel()
        thread.join(EXIT_WAIT_SECONDS)


def _compile() -> None:
    global _ready
    from tracejit.codegen.shared_library import BACKGROUND_LLVM
    from tracejit.runtime import block_cache, thread_pool

    with BACKGROUND_LLVM:
        alloc, free = block_cache.addresses()
        addresses = {
            POOL_GLOBAL: thread_pool.pool_address(),
            ALLOC_GLOBAL: alloc,
            FREE_GLOBAL: free,
        }
    with _lock:
        _ready = addresses
        pending = list(_pending)
        _pending.clear()
    for owner_ref, slots in pending:
        owner = owner_ref()
        if owner is not None:  # held while its slots are written: its code stays loaded
            _write(slots, addresses)
        del owner


def _write(slots: list[tuple[str, int]], addresses: dict[str, int | None]) -> None:
    for name, slot in slots:
        ctypes.c_void_p.from_address(slot).value = addresses[name]


def _after_fork_in_child() -> None:
    global _lock, _compiler
    _lock = threading.Lock()
    if _ready is None:  # the parent's compile thread does not exist here: start anew
        _compiler = None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)

jit.LOAD_HOOKS.append(bind_loaded_module)
