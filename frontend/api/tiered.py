"""Tiered execution: interpret a trace's first call, compile it in the background.

Compiling a trace (passes, LLVM O3, MCJIT) takes 0.1-0.5 s; evaluating its ops with NumPy
takes well under a millisecond for most. So when `tj.config.tiered_compilation()` is on (the
default) and the trace is interpretable (`graph_interpreter.py`: pure ops only, static shapes,
no Variables, callbacks or writes into arguments) and not in the persistent cache (a hit
loads in ~10 ms: then it is simply loaded):

1. the first call evaluates the traced module with the interpreter and returns its results,
   shaped exactly as the compiled path returns them;
2. then it queues the compile for the one background worker thread of the process (started
   only after the first result is computed, so the interpreter does not share the GIL with
   the compiler);
3. every later call waits for that compile -- blocked on an Event, not holding the GIL -- and
   runs machine code (if the compile has not started yet, the caller takes it over and
   compiles in its own thread instead of waiting behind other queued compiles). A compile
   error raised in the background is raised again, the same exception, by each later call
   and by anything that asks for the kernel (`llvm_ir`, `asm`, `compilation`, ...).

Calls that arrive while the first call is still being interpreted are interpreted too. The
state of one ConcreteFunction (its `tier`) changes under the tier's `lock`; the queue's state
under this module's `_lock`. Only ConcreteFunction's public surface is used: `record`,
`graph`, `is_compiled`, `compile_fresh` and `install_compilation`.

At exit an atexit hook stops the worker -- it checks a stop flag after every pass -- and
joins it, so LLVM never runs while the interpreter shuts down (LLVM's exit-time destructors
crash otherwise). `os.fork()` waits for the compile in progress, if any, to end (a child
forked mid-compile would inherit LLVM's locks held by a thread it does not have). A forked
child has no worker: its pending compiles are handed back to the callers and it compiles
synchronously from then on.
"""

from __future__ import annotations

import atexit
import os
import queue
import threading
import weakref
from typing import TYPE_CHECKING, Any

import numpy as np

from tracejit.compiler import driver
from tracejit.frontend.api import config
from tracejit.runtime.graph_interpreter import Plan, Unsupported, plan

if TYPE_CHECKING:
    from tracejit.frontend.api.concrete_function import ConcreteFunction

# A job's states: waiting in the queue, compiling in the worker, taken over by a caller
# (which compiles synchronously), finished (compiled, failed or cancelled).
QUEUED, RUNNING, CLAIMED, FINISHED = "queued", "running", "claimed", "finished"


class _Stopped(Exception):
    """Raised between passes when the process exits: the compile is abandoned."""


class _Job:
    def __init__(self, concrete: ConcreteFunction) -> None:
        self.concrete = weakref.ref(concrete)
        self.state = QUEUED
        self.done = threading.Event()
        self.error: BaseException | None = None  # what the background compile raised
        self.traceback: Any = None  # its traceback then (each raise starts from it again)


class Tier:
    """One ConcreteFunction's part in tiered execution."""

    def __init__(self) -> None:
        self.lock = threading.Lock()  # guards the fields below
        self.plan: Plan | bool | None = None  # None: not decided; False: not interpretable
        self.finished = False  # interpreted once and the compile scheduled (or refused)
        self.job: _Job | None = None


# --- the calls ---------------------------------------------------------------------------------
def interpret_first_call(
    concrete: ConcreteFunction, inputs: list[np.ndarray]
) -> list[np.ndarray] | None:
    """The kernel outputs of the first call(s) of `concrete`, interpreted; None when the
    call must run compiled code (tiering off, not interpretable, or not the first call)."""
    tier = concrete.tier
    if tier.finished or not config.tiered_compilation() or _disabled:
        return None
    with tier.lock:
        if tier.finished or concrete.is_compiled:
            return None
    interpreter = _plan_for(concrete, tier)
    outputs = None
    if interpreter is not None:
        try:
            outputs = interpreter.run(inputs)
        except Unsupported:
            tier.plan = False  # this run left the subset: compile, from now on
    job = None
    with tier.lock:  # the first interpreted call to finish schedules the compile
        if not tier.finished and not concrete.is_compiled and outputs is not None:
            job = tier.job = _Job(concrete)
        tier.finished = True
        tier.plan = None  # never run again: let its constants go
    if job is not None and not _enqueue(job):
        job.state = FINISHED
        job.done.set()
    return outputs


def _plan_for(concrete: ConcreteFunction, tier: Tier) -> Plan | None:
    if tier.plan is None:
        tier.plan = _interpretable(concrete)
    return tier.plan if isinstance(tier.plan, Plan) else None


def _interpretable(concrete: ConcreteFunction) -> Plan | bool:
    program = concrete.record.program
    if (
        program.variables
        or program.py_functions
        or program.written_inputs
        or program.exported
        or program.has_unknown_dims
    ):
        return False
    module = concrete.graph.module
    try:
        found = plan(module, program.function_name)
    except Unsupported:
        return False
    if driver.is_cached(module, concrete.record.pipeline):
        return False  # loading it (cache or memo) costs less than interpreting and compiling it
    return found


def wait_for_background_compile(concrete: ConcreteFunction) -> None:
    """Before `concrete` compiles: wait for its background compile if one is running, or
    take it over if it has not started; raise what it raised."""
    job = concrete.tier.job
    if job is None:
        return
    with _lock:
        claimed = job.state == QUEUED
        if claimed:
            job.state = CLAIMED  # the worker skips it; the caller compiles
            _jobs.discard(job)
    if claimed:
        job.state = FINISHED
        job.done.set()
        return
    job.done.wait()
    if job.error is not None:
        raise job.error.with_traceback(job.traceback)


# --- the worker ----------------------------------------------------------------------------------
_lock = threading.Lock()
_queue: queue.Queue[_Job | None] | None = None
_worker: threading.Thread | None = None
_stopping = False  # set at exit: the worker abandons its compile at the next pass
_disabled = False  # set in a forked child: it compiles synchronously
_jobs: set[_Job] = set()  # queued or running
# Held by the worker while it compiles, and by a thread calling fork() until the fork is done:
# a child forked in the middle of a compile would inherit LLVM's and xDSL's state half-changed
# (locks held by a thread that does not exist there), so fork() waits for the compile to end.
_compiling = threading.Lock()


def _enqueue(job: _Job) -> bool:
    global _queue, _worker
    with _lock:
        if _stopping or _disabled:
            return False
        if _worker is None or not _worker.is_alive():
            _queue = queue.Queue()
            _worker = threading.Thread(
                target=_work, args=(_queue,), name="tracejit-compile", daemon=True
            )
            _worker.start()
            _stop_at_exit()
        _jobs.add(job)
        assert _queue is not None
        _queue.put(job)
    return True


def _work(jobs: queue.Queue[_Job | None]) -> None:
    while True:
        job = jobs.get()
        try:
            if job is None:
                return
            _run(job)
        finally:
            jobs.task_done()


def _run(job: _Job) -> None:
    with _lock:
        if job.state != QUEUED:
            return  # claimed by a caller
        job.state = RUNNING
    try:
        concrete = job.concrete()
        if concrete is not None and not _stopping:
            with _compiling:
                _compile(concrete)
    except _Stopped:
        pass  # a caller (if any, in an atexit hook) compiles synchronously
    except BaseException as error:  # noqa: BLE001  (handed to the next call, unchanged)
        job.error, job.traceback = error, error.__traceback__
    finally:
        with _lock:
            _jobs.discard(job)
        job.state = FINISHED
        job.done.set()


def _compile(concrete: ConcreteFunction) -> None:
    if concrete.is_compiled:  # compiled meanwhile by a caller that asked for the kernel
        return
    compilation = concrete.compile_fresh(after_pass=_check_stop, background=True)
    if _stopping:
        raise _Stopped
    concrete.install_compilation(compilation)  # unless a caller was faster


def _check_stop(_pass_name: str, _module: object) -> None:
    if _stopping:
        raise _Stopped


def wait_for_compiles() -> None:
    """Block until the background queue is empty and the worker idle."""
    with _lock:
        jobs, worker = _queue, _worker
    if jobs is not None and worker is not None and worker.is_alive():
        jobs.join()


_exit_hook_registered = False


def _stop_at_exit() -> None:
    global _exit_hook_registered
    if not _exit_hook_registered:
        _exit_hook_registered = True
        atexit.register(stop_worker)


def stop_worker() -> None:
    """Stop the worker (it abandons its compile at the next pass) and join it; pending
    compiles are handed back to their callers. Runs at exit."""
    global _stopping
    with _lock:
        _stopping = True
        worker, jobs = _worker, _queue
    if worker is not None and jobs is not None and worker.is_alive():
        jobs.put(None)
        worker.join()
    _cancel_pending()


def _cancel_pending() -> None:
    with _lock:
        pending = list(_jobs)
        _jobs.clear()
    for job in pending:
        job.state = FINISHED
        job.done.set()


def _before_fork() -> None:
    _compiling.acquire()


def _after_fork_in_parent() -> None:
    _compiling.release()


def _after_fork_in_child() -> None:
    """The child has no worker thread: hand its pending compiles back to their callers,
    which compile synchronously, as does everything in the child from now on."""
    global _lock, _compiling, _queue, _worker, _disabled
    _lock, _compiling = threading.Lock(), threading.Lock()
    _queue, _worker, _disabled = None, None, True
    for job in list(_jobs):
        job.state = FINISHED
        job.done = threading.Event()  # the parent's may be mid-use by a thread gone here
        job.done.set()
    _jobs.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(
        before=_before_fork,
        after_in_parent=_after_fork_in_parent,
        after_in_child=_after_fork_in_child,
    )
