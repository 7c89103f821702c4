"""The default thread count fitted to the cores other processes leave free.

A parallel call is only as fast as its slowest thread. When other processes keep the cores
busy, one of its threads is preempted for a scheduler time slice and the call waits for it:
with both cores of this machine busy, a 10 ms `var`/`sum` kernel took 46 ms on two threads
against 27 ms on one. tracejit's thread pool backs off after a late call by itself
(runtime/thread_pool.py), but only after paying for one.

So once a module with parallel loops is loaded, a daemon thread (`watch`) samples every
SAMPLE_SECONDS how much CPU time other processes used on the CPUs this process may run on
(its affinity mask): their busy time (/proc/stat's `cpuN` lines) minus this process's own
(getrusage). The cores they leave, rounded (at least
one), cap the default thread count (`settings.fit_to_free_cores`); a count the user set,
by `tj.config.set_num_threads(n)` or TRACEJIT_NUM_THREADS, is kept. Results do not depend
on the count (emit_parallel.py), so they do not depend on the load. An idle machine keeps
every thread. TRACEJIT_FIT_THREADS=0 (`ENABLED`, set by compiler/options.py) turns the
fitting off. Sampling takes ~20 us of one core (and the GIL) per SAMPLE_SECONDS; Linux only.

OpenBLAS's own threads (the products compiled code hands to BLAS, and NumPy's) are left as
they are: its `?gemm` results depend on its thread count (measured: 301 x 700 @ 700 x 530
float64 differs between one and two threads), so fitting it would make results depend on
the load, and NumPy's own products in the process with them.
"""

from __future__ import annotations

import os
import resource
import threading
from dataclasses import dataclass

from tracejit.runtime import settings

SAMPLE_SECONDS = 0.05
PROC_STAT = "/proc/stat"
ENABLED = True
"""Whether `watch` fits the counts (TRACEJIT_FIT_THREADS, read by compiler/options.py)."""


@dataclass
class _Sample:
    wall: float  # seconds, as /proc/stat counts them (its ticks over every core)
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
    """The CPU times of the CPUs this process may run on (its affinity mask; their
    `cpuN` lines: user nice system idle iowait irq softirq steal ...; idle and iowait are
    not busy) and this process's, now. Busy CPUs outside the mask leave ours free."""
    mine = _allowed_cpus()
    total = busy = 0
    with open(PROC_STAT, "rb") as stat:
        for line in stat:
            name, *values = line.split()
            if not name.startswith(b"cpu") or name == b"cpu":
                continue
            if not name[3:].isdigit():
                break  # the cpuN lines come first
            if mine is None or int(name[3:]) in mine:
                fields = [int(v) for v in values[:8]]  # guest times are in user and nice
                total += sum(fields)
                busy += sum(fields) - fields[3] - fields[4]
    usage = resource.getrusage(resource.RUSAGE_SELF)
    cpus = len(mine) if mine is not None else settings.available_cpus()
    return _Sample(total / ticks_per_second / cpus, busy / ticks_per_second,
                   usage.ru_utime + usage.ru_stime)  # fmt: skip


def _allowed_cpus() -> set[int] | None:
    try:
        return set(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return None


class _Fitter:
    """The sampling loop: fits the counts every SAMPLE_SECONDS until stopped."""

    def __init__(self) -> None:
        self.stopped = threading.Event()
        self.ticks = float(os.sysconf("SC_CLK_TCK"))
        self.thread = threading.Thread(target=self.run, name="tracejit-load-fitting", daemon=True)

    def run(self) -> None:
        before = _read_sample(self.ticks)
        while not self.stopped.wait(SAMPLE_SECONDS):
            after = _read_sample(self.ticks)
            self.fit(others_busy_cores(before, after))
            before = after

    def fit(self, others: float) -> None:
        cores = settings.available_cpus()
        settings.fit_to_free_cores(fitted_thread_count(others, cores, cores))

    def stop(self) -> None:
        self.stopped.set()
        if self.thread.is_alive():
            self.thread.join()
        settings.fit_to_free_cores(settings.MAX_THREADS)


_lock = threading.Lock()
_fitter: _Fitter | None = None


def watch() -> None:
    """Start fitting, once per process, on Linux with two CPUs or more, unless
    TRACEJIT_FIT_THREADS=0."""
    global _fitter
    if not ENABLED or _fitter is not None:
        return
    with _lock:
        if _fitter is None and os.path.exists(PROC_STAT) and settings.available_cpus() > 1:
            _fitter = _Fitter()
            _fitter.thread.start()


def stop() -> None:
    """Stop fitting (tests): the default count back to every CPU."""
    global _fitter
    with _lock:
        if _fitter is not None:
            _fitter.stop()
            _fitter = None


def _after_fork_in_child() -> None:
    global _fitter, _lock
    _lock = threading.Lock()
    _fitter = None  # the sampling thread is not in the child: the next bound module starts one
    settings.fit_to_free_cores(settings.MAX_THREADS)  # unfitted until then


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
