"""OpenBLAS's thread count, fitted to the cores other processes leave free.

OpenBLAS splits a large product over its threads and waits for the slowest. When other
processes keep the cores busy, one of its threads is preempted for a scheduler time slice
and the call waits for it: `A.T @ (A @ x)` (2000 x 2000 float64) took 31 ms on two threads
against 11 ms on one, with both cores of this machine busy (1.7 ms against 2.8 ms idle).
NumPy's own `@` collapses the same way. tracejit's thread pool backs off by itself
(runtime/thread_pool.py), but compiled code that calls BLAS runs OpenBLAS's threads.

So once a module calling BLAS is loaded, a daemon thread (`watch`) samples every
SAMPLE_SECONDS how much CPU time other processes used: the machine's busy time
(/proc/stat) minus this process's own (getrusage). It sets OpenBLAS's thread count to the
cores they leave, rounded, at least one and at most the count OpenBLAS had (its
`OPENBLAS_NUM_THREADS`, or its default: every core) and tracejit's thread count. An idle
machine keeps every thread. The count is OpenBLAS's process-wide setting, so NumPy's own
products in the process follow it too. A count set by someone else (threadpoolctl,
`openblas_set_num_threads`) between two samples becomes the new most;
TRACEJIT_FIT_BLAS_THREADS=0 (`ENABLED`, set by compiler/options.py) turns the fitting off.

Sampling takes ~20 us of one core (and the GIL) per SAMPLE_SECONDS; Linux only.
"""

from __future__ import annotations

import ctypes
import os
import resource
import threading
from dataclasses import dataclass
from typing import Any

from tracejit.runtime import settings

SAMPLE_SECONDS = 0.05
PROC_STAT = "/proc/stat"
ENABLED = True
"""Whether `watch` fits the count (TRACEJIT_FIT_BLAS_THREADS, read by compiler/options.py)."""


@dataclass
class _Sample:
    wall: float  # seconds since boot, as /proc/stat counts (its ticks)
    machine_busy: float  # CPU seconds every process has used, the whole machine
    own: float  # CPU seconds this process has used


def others_busy_cores(before: _Sample, after: _Sample) -> float:
    """How many cores' worth of CPU time other processes used between two samples."""
    elapsed = after.wall - before.wall
    if elapsed <= 0:
        return 0.0
    others = (after.machine_busy - before.machine_busy) - (after.own - before.own)
    return max(others, 0.0) / elapsed


def fitted_thread_count(others: float, cores: int, most: int) -> int:
    """The threads that fit beside `others` busy cores: the free cores, rounded, in [1, most]."""
    return max(1, min(most, round(cores - others)))


def _read_sample(ticks_per_second: float) -> _Sample:
    """The machine's CPU times (its first line: user nice system idle iowait irq softirq
    steal ...; idle and iowait are not busy) and this process's, now."""
    with open(PROC_STAT, "rb") as stat:
        fields = [int(v) for v in stat.readline().split()[1:]]
    total = sum(fields[:8])  # guest times are already counted in user and nice
    busy = total - fields[3] - fields[4]
    usage = resource.getrusage(resource.RUSAGE_SELF)
    cores = settings.available_cpus()
    return _Sample(total / ticks_per_second / cores, busy / ticks_per_second,
                   usage.ru_utime + usage.ru_stime)  # fmt: skip


class _OpenBlasThreads:
    """Reads and sets the thread count of the OpenBLAS NumPy bundles."""

    def __init__(self, library: Any) -> None:
        self._get = library.scipy_openblas_get_num_threads64_
        self._set = library.scipy_openblas_set_num_threads64_
        self._get.restype = ctypes.c_int
        self._set.argtypes = [ctypes.c_int]

    def get(self) -> int:
        return int(self._get())

    def set(self, count: int) -> None:
        self._set(count)


class _Fitter:
    """The sampling loop: fits OpenBLAS's count every SAMPLE_SECONDS until `stop`."""

    def __init__(self, blas: _OpenBlasThreads) -> None:
        self.blas = blas
        self.most = blas.get()
        self.last_set = self.most
        self.stopped = threading.Event()
        self.ticks = float(os.sysconf("SC_CLK_TCK"))
        self.thread = threading.Thread(target=self.run, name="tracejit-blas-threads", daemon=True)

    def run(self) -> None:
        before = _read_sample(self.ticks)
        while not self.stopped.wait(SAMPLE_SECONDS):
            after = _read_sample(self.ticks)
            self.fit(others_busy_cores(before, after))
            before = after

    def fit(self, others: float) -> None:
        current = self.blas.get()
        if current != self.last_set:  # set by someone else: their count is the most now
            self.most = self.last_set = current
            return
        most = min(self.most, settings.THREAD_COUNT.value)
        wanted = fitted_thread_count(others, settings.available_cpus(), most)
        if wanted != current:
            self.blas.set(wanted)
            self.last_set = wanted

    def stop(self) -> None:
        """Stop sampling and give OpenBLAS back the count it had, unless someone changed it."""
        self.stopped.set()
        self.thread.join()
        if self.blas.get() == self.last_set:
            self.blas.set(self.most)


_lock = threading.Lock()
_fitter: _Fitter | None = None


def watch(library: Any) -> None:
    """Start fitting the thread count of `library` (NumPy's OpenBLAS) once per process, on
    Linux, unless TRACEJIT_FIT_BLAS_THREADS=0 or it has one thread already."""
    global _fitter
    if _fitter is not None or not ENABLED:
        return
    with _lock:
        if _fitter is not None or not os.path.exists(PROC_STAT):
            return
        try:
            blas = _OpenBlasThreads(library)
        except AttributeError:  # not the OpenBLAS NumPy's wheels bundle
            return
        if blas.get() <= 1:
            return
        _fitter = _Fitter(blas)
        _fitter.fit(others=0.0)  # tj.config.num_threads() caps it from the first call
        _fitter.thread.start()


def stop() -> None:
    """Stop fitting (tests); OpenBLAS gets its count back."""
    global _fitter
    with _lock:
        if _fitter is not None:
            _fitter.stop()
            _fitter = None


def _after_fork_in_child() -> None:
    global _fitter, _lock
    _lock = threading.Lock()
    _fitter = None  # the sampling thread is not in the child: the next bound module starts one


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
