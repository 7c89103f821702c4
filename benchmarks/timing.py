"""Medians of repeated runs in one process, and unit formatting."""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Budget:
    """How long to measure: `repeats` samples, each at least `min_sample` seconds of calls."""

    repeats: int
    min_sample: float
    max_seconds: float  # stop repeating after this much wall time (slow implementations)
    first_calls: int = 1  # first calls (each a fresh compile) to take the median of


QUICK = Budget(repeats=5, min_sample=0.01, max_seconds=1.0)
FULL = Budget(repeats=15, min_sample=0.05, max_seconds=6.0, first_calls=3)


@contextmanager
def on_one_cpu(pin: bool = True) -> Iterator[None]:
    """Run the block with every thread of the process on one CPU (Linux; elsewhere, and
    with `pin` false, as it is). "One thread" then holds for peers whose runtimes start
    threads of their own whatever they are told: XLA's CPU runtime ran the W7 MLP's
    gradient on both cores of this machine with XLA_FLAGS asking for one (3.7 ms; 4.4 ms
    pinned, as NumPy's and tracejit's one thread)."""
    tasks = "/proc/self/task"
    if not pin or not hasattr(os, "sched_setaffinity") or not os.path.isdir(tasks):
        yield
        return
    before = os.sched_getaffinity(0)
    _set_affinity(tasks, {min(before)})
    try:
        yield
    finally:
        _set_affinity(tasks, before)


def _set_affinity(tasks: str, cpus: set[int]) -> None:
    """sched_setaffinity of pid 0 sets the calling thread's only: set each thread's."""
    for tid in os.listdir(tasks):
        with suppress(OSError):  # the thread ended meanwhile
            os.sched_setaffinity(int(tid), cpus)


def settle_compiles() -> None:
    """Wait for tracejit's background compiles, if it is imported: with tiered execution
    (frontend/api/tiered.py) a first call is interpreted and its compile runs in a background
    thread, which must neither overlap the next measurement nor be counted in it."""
    import sys

    tj = sys.modules.get("tracejit")
    if tj is not None:
        tj.config.wait_for_compiles()


def median_seconds(run: Callable[[], Any], budget: Budget) -> float:
    """The median time of one `run()` call; the caller has called `run` once already (the
    compile and the check against NumPy), so the first timed call is a sample too. Waits
    for tracejit's background compiles first: one still running would share the CPU with
    the calls timed (pinned to one CPU, NumPy's GEMM took twice its time beside one), and
    the calls of a function still interpreted would time NumPy."""
    settle_compiles()
    start = time.perf_counter()
    run()
    once = max(time.perf_counter() - start, 1e-9)
    inner = max(1, int(budget.min_sample / once))
    samples: list[float] = [once] if inner == 1 else []
    deadline = time.perf_counter() + budget.max_seconds
    while len(samples) < budget.repeats and (len(samples) < 3 or time.perf_counter() < deadline):
        start = time.perf_counter()
        for _ in range(inner):
            run()
        samples.append((time.perf_counter() - start) / inner)
    return statistics.median(samples)


def paired_medians(runs: list[Callable[[], Any]], budget: Budget) -> list[float]:
    """The median time of one call of each of `runs`, sampled in alternation (each round
    takes one sample of every run, in an order that turns each round): on a shared virtual
    machine the speed drifts by several percent over seconds, and timing one implementation
    after the other puts the drift into their ratio (two runs of the same MLP measured 4.8
    and 4.5 ms a minute apart). Each run was called once already, as for `median_seconds`."""
    settle_compiles()
    inner = []
    for run in runs:
        start = time.perf_counter()
        run()
        inner.append(max(1, int(budget.min_sample / max(time.perf_counter() - start, 1e-9))))
    samples: list[list[float]] = [[] for _ in runs]
    rounds = max(budget.repeats, 3) * 2
    for round_ in range(rounds):
        order = range(len(runs)) if round_ % 2 == 0 else reversed(range(len(runs)))
        for k in order:
            start = time.perf_counter()
            for _ in range(inner[k]):
                runs[k]()
            samples[k].append((time.perf_counter() - start) / inner[k])
    return [statistics.median(s) for s in samples]


def format_seconds(seconds: float) -> str:
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-9:.3g} ns"


def format_table(header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(str(c)) for c in column) for column in zip(header, *rows, strict=True)]
    lines = [" | ".join(str(c).ljust(w) for c, w in zip(header, widths, strict=True))]
    lines.append("-+-".join("-" * w for w in widths))
    lines += [" | ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows]
    return "\n".join(line.rstrip() for line in lines)
