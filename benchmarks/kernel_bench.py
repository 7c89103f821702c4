"""The kernels of kernels.py on NumPy, tracejit and numba: first call and steady run time.

For each kernel: NumPy runs the source eagerly (its result is the reference); tracejit and
numba each compile a fresh copy of the same source (so no cache of either helps) and the
first call's time is trace + compile + run (the median of up to three such compiles in a full
run); then the steady time is the median of repeated calls (timing.py). Every result is
checked against NumPy's before it is timed. A loop-style kernel's NumPy time is the Python
interpreter's: when one call takes over a second, that one call is the measurement.
"""

from __future__ import annotations

import statistics
import time
import warnings
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

import numpy as np

from benchmarks.kernels import KERNELS, Kernel, cumsum_loop
from benchmarks.peers import fresh_copy, importable
from benchmarks.timing import (
    FULL,
    QUICK,
    Budget,
    format_seconds,
    format_table,
    median_seconds,
    settle_compiles,
)

SLOW_CALL = 1.0  # seconds: time such a call once
FIRST_CALLS_SECONDS = 3.0  # compile again for another first call while under this in all
TARGET_KERNEL = "K1"  # issue 19: within 1.5x numba's run time, compiled in under 1 s
TARGET_RATIO, TARGET_COMPILE = 1.5, 1.0


@dataclass
class Timing:
    status: str = "ok"  # "ok", "error", "wrong result", "not installed"
    first: float | None = None  # seconds of the first call (compile + run)
    run: float | None = None  # seconds of a steady call
    detail: str = ""
    warnings: list[str] = field(default_factory=list)


@dataclass
class KernelResult:
    key: str
    title: str
    size: str
    numpy: Timing
    tracejit: Timing
    numba: Timing


class Checked(Protocol):
    """What timing and checking need of a kernel (kernels.py's and loop_kernels.py's)."""

    @property
    def function(self) -> Callable[..., Any]: ...
    @property
    def rtol(self) -> float: ...
    @property
    def atol(self) -> float: ...


def check(kernel: Checked, got: Any, want: Any, same_dtype: bool) -> None:
    if isinstance(want, tuple):  # several results: each is checked
        assert isinstance(got, tuple | list), f"{type(got).__name__}, NumPy a tuple"
        assert len(got) == len(want), f"{len(got)} results, NumPy {len(want)}"
        for one, wanted in zip(got, want, strict=True):
            check(kernel, one, wanted, same_dtype)
        return
    got_array, want_array = np.asarray(got), np.asarray(want)
    if same_dtype:
        assert got_array.dtype == want_array.dtype, f"dtype {got_array.dtype}, NumPy {want.dtype}"
    assert got_array.shape == want_array.shape, f"shape {got_array.shape}, NumPy {want.shape}"
    np.testing.assert_allclose(got_array, want_array, rtol=kernel.rtol, atol=kernel.atol)


def steady_seconds(call: Any, budget: Budget) -> float:
    """The median of repeated calls; one call's time when a call takes over SLOW_CALL."""
    start = time.perf_counter()
    call()
    once = time.perf_counter() - start
    return once if once > SLOW_CALL else median_seconds(call, budget)


def time_numpy(kernel: Checked, inputs: tuple[Any, ...], budget: Budget) -> tuple[Timing, Any]:
    start = time.perf_counter()
    expected = kernel.function(*inputs)
    first = time.perf_counter() - start
    call = lambda: kernel.function(*inputs)  # noqa: E731
    run = first if first > SLOW_CALL else steady_seconds(call, budget)
    return Timing(first=first, run=run), expected


def time_compiled(
    kernel: Checked,
    compiler: Any,
    inputs: tuple[Any, ...],
    expected: Any,
    budget: Budget,
    same_dtype: bool,
    source: Callable[..., Any] | None = None,
    finish: Callable[[Any], Any] = lambda result: result,
) -> Timing:
    """First calls of `compiler(fresh copy of the source)` (the median of a few, each a new
    compile, while they take under FIRST_CALLS_SECONDS in all), the check of the result,
    then steady calls. The source is the kernel's unless given (a peer's own version);
    `finish` waits for an asynchronous result (JAX's), inside the timed region."""
    firsts: list[float] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            while len(firsts) < budget.first_calls and sum(firsts) < FIRST_CALLS_SECONDS:
                compiled = compiler(fresh_copy(source or kernel.function))
                start = time.perf_counter()
                got = finish(compiled(*inputs))
                firsts.append(time.perf_counter() - start)
                settle_compiles()  # tracejit's background compile (tiered.py), untimed
        except Exception as error:
            return Timing("error", detail=_one_line(error), warnings=_messages(caught))
    timing = Timing(first=statistics.median(firsts), warnings=_messages(caught))
    try:
        check(kernel, got, expected, same_dtype)
    except AssertionError as error:
        timing.status, timing.detail = "wrong result", _one_line(error)
        return timing
    timing.run = steady_seconds(lambda: finish(compiled(*inputs)), budget)
    return timing


def _messages(caught: list[warnings.WarningMessage]) -> list[str]:
    seen: list[str] = []
    for w in caught:
        text = f"{w.category.__name__}: {w.message}"
        if text not in seen:
            seen.append(text)
    return seen


def _one_line(error: BaseException) -> str:
    lines = [ln.strip() for ln in str(error).strip().splitlines() if ln.strip()]
    details = [ln for ln in lines if "Max relative" in ln or "Mismatched" in ln]
    first = lines[0] if lines else ""
    return f"{type(error).__name__}: {'; '.join([first, *details])}"


def compilers() -> tuple[Any, Any]:
    """tj.function and numba.njit (None when numba is not installed), both warmed up on a
    small kernel so neither first call below pays for one-time imports and setup."""
    import tracejit as tj

    warm_inputs = (np.arange(40.0),)
    tj.function(fresh_copy(cumsum_loop))(*warm_inputs)
    if not importable("numba"):
        return tj.function, None
    import numba

    numba.njit(fresh_copy(cumsum_loop))(*warm_inputs)
    return tj.function, numba.njit


def run_kernel(kernel: Kernel, tj_function: Any, njit: Any, budget: Budget) -> KernelResult:
    inputs = kernel.inputs(np.random.default_rng(0), False)
    numpy_timing, expected = time_numpy(kernel, inputs, budget)
    tracejit = time_compiled(kernel, tj_function, inputs, expected, budget, same_dtype=True)
    if njit is None:
        numba = Timing("not installed", detail="pip install numba (the bench extra)")
    else:
        numba = time_compiled(kernel, njit, inputs, expected, budget, same_dtype=False)
    return KernelResult(kernel.key, kernel.title, kernel.size, numpy_timing, tracejit, numba)


def time_cell(seconds: float | None) -> str:
    return "-" if seconds is None else format_seconds(seconds)


def ratio_cell(numerator: float | None, denominator: float | None) -> str:
    if numerator is None or denominator is None:
        return "-"
    return f"{numerator / denominator:.2f}x"


def _note(r: KernelResult) -> str:
    notes = []
    for name, t in (("tracejit", r.tracejit), ("numba", r.numba)):
        if t.status != "ok":
            notes.append(f"{name} {t.status}: {t.detail}")
        elif name == "tracejit":
            notes += [w.split(" (")[0] for w in t.warnings]
    return " | ".join(notes)[:160]


def results_table(results: list[KernelResult]) -> str:
    header = [
        "", "kernel", "size", "tj first", "tj run", "NumPy", "numba first", "numba run",
        "NumPy/tj", "numba/tj", "note",
    ]  # fmt: skip
    rows = [
        [
            r.key,
            r.title,
            r.size,
            time_cell(r.tracejit.first),
            time_cell(r.tracejit.run),
            time_cell(r.numpy.run) + ("*" if KERNELS[r.key].loops else ""),
            time_cell(r.numba.first),
            time_cell(r.numba.run),
            ratio_cell(r.numpy.run, r.tracejit.run),
            ratio_cell(r.numba.run, r.tracejit.run),
            _note(r),
        ]
        for r in results
    ]
    return format_table(header, rows)


def target_line(results: list[KernelResult]) -> str | None:
    found = [r for r in results if r.key == TARGET_KERNEL]
    if not found or found[0].tracejit.run is None or found[0].numba.run is None:
        return None
    r = found[0]
    ratio = r.tracejit.run / r.numba.run
    first = r.tracejit.first or 0.0
    met = ratio <= TARGET_RATIO and first < TARGET_COMPILE
    return (
        f"issue 19 target ({r.key}, {r.title} {r.size}): tracejit run = {ratio:.2f}x numba's "
        f"(target <= {TARGET_RATIO}x), first call {format_seconds(first)} "
        f"(target < {TARGET_COMPILE:g} s): {'met' if met else 'NOT met'}"
    )


def report(quick: bool, keys: list[str] | None = None) -> list[dict[str, Any]]:
    budget = QUICK if quick else FULL
    tj_function, njit = compilers()
    selected = [KERNELS[k] for k in keys] if keys else list(KERNELS.values())
    results = []
    for kernel in selected:
        results.append(run_kernel(kernel, tj_function, njit, budget))
        print(f"  {kernel.key} done", flush=True)
    print("\nKernels: first call (trace/compile + run) and steady run time")
    print(results_table(results))
    print(
        "NumPy/tj, numba/tj > 1: tracejit is faster. *: loop-style source run by the Python "
        "interpreter (NumPy's time for it)."
    )
    line = target_line(results)
    if line:
        print(line)
    for r in results:
        for message in r.tracejit.warnings:
            print(f"  {r.key} tracejit: {message}")
    return [asdict(r) for r in results]
