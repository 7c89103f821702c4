"""Threads on a busy machine: kernels called with other work between calls, while other
processes keep every core busy (issue 39's first point).

A kernel split over the thread pool's workers is only as fast as its slowest piece. When
other processes hold the cores, a worker that claimed a piece can be preempted for a whole
scheduler time slice, and the caller waits for it: on this 2-core machine a 0.1 ms kernel
took 3.3 ms on two threads. This section starts one busy process per core, calls each kernel
in a loop with a little Python work between calls (so the workers go to sleep, as in an
application), and prints the median and 90th percentile on the default thread count and on
one thread, and their ratios (targets: <= 1.3x at the median, <= 2x at the 90th percentile).
The default row runs with the default thread count, which runtime/load_fitting.py fits to the
cores the busy processes leave. The last kernel calls OpenBLAS, whose threads tracejit leaves
as they are (its results depend on its thread count): it shows what OpenBLAS does under load.

    python -m benchmarks --only load
"""

from __future__ import annotations

import multiprocessing
import os
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np


def _busy(stop: Any) -> None:
    """Spin until told to stop: a process that keeps one core busy."""
    x = 0
    while not stop.is_set():
        for _ in range(10_000):
            x += 1


class BusyMachine:
    """`with BusyMachine(n):` n processes spinning on the cores, stopped on exit."""

    def __init__(self, processes: int):
        self.processes = processes
        context = multiprocessing.get_context("spawn")
        self.stop = context.Event()
        self.workers = [
            context.Process(target=_busy, args=(self.stop,), daemon=True) for _ in range(processes)
        ]

    def __enter__(self) -> BusyMachine:
        for worker in self.workers:
            worker.start()
        time.sleep(0.3)  # let them reach their loops
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        for worker in self.workers:
            worker.join(timeout=5)
            if worker.is_alive():
                worker.terminate()


def _other_work(seconds: float) -> None:
    """Python work between calls (long enough for the pool's workers to fall asleep)."""
    end = time.perf_counter() + seconds
    x = 0
    while time.perf_counter() < end:
        x += 1


def spaced_call_times(kernel: Callable[[], Any], calls: int, gap: float) -> list[float]:
    """Seconds of each of `calls` calls of `kernel`, with `gap` seconds of other work before
    each."""
    times = []
    for _ in range(calls):
        _other_work(gap)
        start = time.perf_counter()
        kernel()
        times.append(time.perf_counter() - start)
    return times


def _kernels(tj: Any, quick: bool) -> dict[str, tuple[Callable[[], Any], int]]:
    """name -> (a call of the compiled kernel, calls to time)."""

    @tj.function
    def var_and_sum(x):
        return np.var(x, axis=0), np.sum(x, axis=1)

    @tj.function
    def normal_product(a, x):
        return a.T @ (a @ x)  # two matrix @ vector products on OpenBLAS's threads

    small = np.random.default_rng(0).standard_normal((600, 600))
    large = np.random.default_rng(1).standard_normal((4000, 4000))
    matrix, vector = large[:2000, :2000].copy(), np.ones(2000)
    return {
        "var/sum 600x600 (~0.1 ms)": (lambda: var_and_sum(small), 100 if quick else 400),
        "var/sum 4000x4000 (~10 ms)": (lambda: var_and_sum(large), 20 if quick else 60),
        "A.T @ (A @ x) 2000^2 (BLAS, ~2 ms)": (
            lambda: normal_product(matrix, vector), 40 if quick else 120
        ),
    }


def _summary(times: list[float]) -> tuple[float, float]:
    ordered = sorted(times)
    return statistics.median(ordered), ordered[int(0.9 * (len(ordered) - 1))]


def run_load(gap: float = 0.0005, quick: bool = False) -> list[dict[str, Any]]:
    """Measure every kernel on the default thread count (what a user gets, whatever
    --threads says) and on one, the machine busy."""
    import tracejit as tj

    before = tj.config.num_threads()
    blas_threads = _openblas_threads()
    tj.config.set_num_threads(None)
    default = tj.config.num_threads()
    kernels = _kernels(tj, quick)
    for kernel, _ in kernels.values():  # compile, and start the pool, before the busy loops
        kernel()
    tj.config.wait_for_compiles()
    rows = []
    with BusyMachine(os.cpu_count() or 1):
        for name, (kernel, calls) in kernels.items():
            results = {}
            for threads in (default, 1):
                tj.config.set_num_threads(None if threads == default else threads)  # as users get
                _set_openblas_threads(blas_threads if threads == default else 1)
                kernel()
                time.sleep(0.15)  # runtime/load_fitting.py's next samples see the load
                results[threads] = _summary(spaced_call_times(kernel, calls, gap))
            rows.append({"kernel": name, "threads": default, "results": results})
    tj.config.set_num_threads(before)
    _set_openblas_threads(blas_threads)
    return rows


def _openblas() -> Any:
    """NumPy's own OpenBLAS (ctypes), or None."""
    from tracejit.runtime import lapack

    return lapack.numpy_blas_library()


def _openblas_threads() -> int:
    library = _openblas()
    return 1 if library is None else int(library.scipy_openblas_get_num_threads64_())


def _set_openblas_threads(count: int) -> None:
    """The one-thread rows run OpenBLAS on one thread too (the BLAS kernel's baseline)."""
    library = _openblas()
    if library is not None:
        library.scipy_openblas_set_num_threads64_(count)


def report(rows: list[dict[str, Any]]) -> None:
    print("\n== threads on a busy machine (one spinning process per core, calls spaced) ==")
    print(f"{'kernel':30} {'threads':>7} {'median':>10} {'p90':>10}   ratio to 1 thread")
    for row in rows:
        one = row["results"][1]
        for threads, (median, p90) in row["results"].items():
            ratio = f"{median / one[0]:.2f}x median, {p90 / one[1]:.2f}x p90"
            print(
                f"{row['kernel']:30} {threads:>7} {median * 1e3:>8.3f}ms {p90 * 1e3:>8.3f}ms"
                f"   {ratio if threads != 1 else ''}"
            )


if __name__ == "__main__":
    report(run_load())
