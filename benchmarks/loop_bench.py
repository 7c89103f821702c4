"""The loop kernels of loop_kernels.py at N = 100, 400 and 1,000 on NumPy, tracejit, numba and
JAX: first call and steady run time (`python -m benchmarks --only loops [--loop-sizes 100]`,
or some of them: `--only L1,L6`).

For each kernel and N: NumPy runs the source eagerly in the Python interpreter (its result is
the reference). tracejit compiles synchronously (`tj.config.set_tiered_compilation(False)`,
so the first call is trace + compile + run, not an interpreted call), with the persistent
cache off and a fresh `tj.function` of a fresh copy of the source for every first call (the
median of up to three while they take under three seconds in all); numba's `njit` of the same
source and JAX's `jax.jit` of its version (loop_kernels.jax_sources) are timed the same way.
Then the steady time is the median of repeated calls, or one call's time when a call takes
over a second (kernel_bench.py). Every result is checked against NumPy's before it is timed.
An implementation whose call would take over MAX_CALL_SECONDS at the next N (the last time
scaled by the kernel's order) is skipped there.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from benchmarks.kernel_bench import (
    Timing,
    compilers,
    ratio_cell,
    time_cell,
    time_compiled,
    time_numpy,
)
from benchmarks.loop_kernels import LOOP_KERNELS, LoopKernel, jax_sources
from benchmarks.peers import fresh_copy, importable
from benchmarks.timing import FULL, QUICK, Budget, format_seconds, format_table

SIZES = (100, 400, 1000)
QUICK_SIZES = (100, 400)
MAX_CALL_SECONDS = 60.0
IMPLS = ("numpy", "tracejit", "numba", "jax")


@dataclass
class LoopResult:
    key: str
    title: str
    n: int
    numpy: Timing
    tracejit: Timing
    numba: Timing
    jax: Timing


@dataclass
class Compilers:
    """The compilers measured (None: not installed) and JAX's sources."""

    tracejit: Callable[..., Any]
    numba: Callable[..., Any] | None
    jax: Any  # the jax module, or None
    jax_sources: dict[str, Callable[..., Any]]
    peers: bool = True  # False: numba and JAX are not measured (the tests)


def _dot(a):
    return np.dot(a[1:], a[:-1])


def find_compilers(peers: bool = True) -> Compilers:
    """tj.function and numba.njit, warmed up (kernel_bench.compilers, and a dot: numba binds
    SciPy's BLAS on its first), and JAX with float64 on, warmed up on a small fori_loop, so
    no first call below pays for one-time setup. Without `peers`, tracejit alone."""
    import tracejit as tj

    tj_function, njit = compilers() if peers else (tj.function, None)
    for compiler in (tj_function, njit):
        if compiler is not None:
            compiler(fresh_copy(_dot))(np.arange(40.0))
    if not peers or not importable("jax"):
        return Compilers(tj_function, njit, None, {}, peers)
    import jax

    jax.config.update("jax_enable_x64", True)  # the kernels are float64
    sources = jax_sources(jax)
    jax.block_until_ready(jax.jit(sources["L8"])(np.arange(40.0)))
    return Compilers(tj_function, njit, jax, sources)


@contextlib.contextmanager
def synchronous_uncached_compiles() -> Iterator[None]:
    """tracejit compiles before its first call returns and never loads from a cache dir."""
    import tracejit as tj

    tiered, directory, max_bytes = (
        tj.config.tiered_compilation(), tj.config.cache_dir(), tj.config.cache_max_bytes()
    )  # fmt: skip
    tj.config.set_tiered_compilation(False)
    tj.config.set_cache_dir(None)
    try:
        yield
    finally:
        tj.config.set_tiered_compilation(tiered)
        tj.config.set_cache_dir(directory, max_bytes)


def too_long(kernel: LoopKernel, n: int, previous: tuple[int, Timing] | None) -> str | None:
    """Why this implementation is skipped at N = n, from its time at a smaller N, or None."""
    if previous is None:
        return None
    last_n, last = previous
    seconds = last.run if last.run is not None else last.first
    if seconds is None:
        return None
    estimate = seconds * (n / last_n) ** kernel.order
    if estimate <= MAX_CALL_SECONDS:
        return None
    return f"a call would take ~{format_seconds(estimate)} (N={last_n}: {format_seconds(seconds)})"


def run_size(
    kernel: LoopKernel,
    n: int,
    found: Compilers,
    budget: Budget,
    previous: dict[str, tuple[int, Timing]],
) -> LoopResult:
    inputs = kernel.inputs(np.random.default_rng(0), n)
    timings: dict[str, Timing] = {}
    reason = too_long(kernel, n, previous.get("numpy"))
    if reason is not None:  # without NumPy's result nothing can be checked
        skipped = Timing("skipped", detail=f"NumPy: {reason}")
        return LoopResult(kernel.key, kernel.title, n, skipped, skipped, skipped, skipped)
    timings["numpy"], expected = time_numpy(kernel, inputs, budget)
    for name in IMPLS[1:]:
        reason = too_long(kernel, n, previous.get(name))
        if reason is not None:
            timings[name] = Timing("skipped", detail=reason)
        else:
            timings[name] = time_impl(name, kernel, inputs, expected, found, budget)
    for name, timing in timings.items():
        if timing.status == "ok":
            previous[name] = (n, timing)
    return LoopResult(kernel.key, kernel.title, n, **timings)


def time_impl(
    name: str,
    kernel: LoopKernel,
    inputs: tuple[Any, ...],
    expected: Any,
    found: Compilers,
    budget: Budget,
) -> Timing:
    if name == "tracejit":
        return time_compiled(kernel, found.tracejit, inputs, expected, budget, same_dtype=True)
    if not found.peers:
        return Timing("not measured")
    if name == "numba":
        if found.numba is None:
            return Timing("not installed", detail="pip install numba (the bench extra)")
        return time_compiled(kernel, found.numba, inputs, expected, budget, same_dtype=False)
    jax = found.jax
    if jax is None:
        return Timing("not installed", detail="pip install 'jax[cpu]' (the bench extra)")
    if kernel.key not in found.jax_sources:
        return Timing("not measured", detail=kernel.jax_note)
    on_device = tuple(jax.device_put(a) for a in inputs)
    return time_compiled(
        kernel,
        jax.jit,
        on_device,
        expected,
        budget,
        same_dtype=False,
        source=found.jax_sources[kernel.key],
        finish=jax.block_until_ready,
    )


# --- the table ----------------------------------------------------------------------------
def _note(r: LoopResult) -> str:
    notes = []
    for name in IMPLS:
        t: Timing = getattr(r, name)
        if t.status not in ("ok", "not installed", "not measured"):
            notes.append(f"{name} {t.status}: {t.detail}")
        elif name == "tracejit":
            notes += [w.split(" (")[0] for w in t.warnings]
    return " | ".join(notes)[:160]


def results_table(results: list[LoopResult]) -> str:
    header = [
        "", "kernel", "N", "tj first", "tj run", "NumPy", "numba first", "numba run",
        "jax first", "jax run", "NumPy/tj", "numba/tj", "jax/tj", "note",
    ]  # fmt: skip
    rows = [
        [
            r.key,
            r.title,
            str(r.n),
            time_cell(r.tracejit.first),
            time_cell(r.tracejit.run),
            time_cell(r.numpy.run),
            time_cell(r.numba.first),
            time_cell(r.numba.run),
            time_cell(r.jax.first),
            time_cell(r.jax.run),
            ratio_cell(r.numpy.run, r.tracejit.run),
            ratio_cell(r.numba.run, r.tracejit.run),
            ratio_cell(r.jax.run, r.tracejit.run),
            _note(r),
        ]
        for r in results
    ]
    return format_table(header, rows)


def report(
    quick: bool,
    keys: list[str] | None = None,
    sizes: tuple[int, ...] | None = None,
    peers: bool = True,
) -> list[dict[str, Any]]:
    """Measure the kernels named by `keys` (all by default) at `sizes`, print the table and
    return the results; without `peers`, NumPy and tracejit only (the tests)."""
    budget = QUICK if quick else FULL
    sizes = sizes or (QUICK_SIZES if quick else SIZES)
    selected = [LOOP_KERNELS[k] for k in keys] if keys else list(LOOP_KERNELS.values())
    results = []
    with synchronous_uncached_compiles():
        found = find_compilers(peers)
        for kernel in selected:
            previous: dict[str, tuple[int, Timing]] = {}
            for n in sorted(sizes):
                results.append(run_size(kernel, n, found, budget, previous))
                print(f"  {kernel.key} N={n} done", flush=True)
    print(
        "\nStaged loops (L1-L8 slice with the counter, L9-L13 are scalar nests): first call "
        "(trace/compile + run) and steady run time"
    )
    print(results_table(results))
    print(
        "NumPy/tj, numba/tj, jax/tj > 1: tracejit is faster. NumPy runs the loops in the Python "
        "interpreter; tracejit compiles synchronously (tiering off, no cache)."
    )
    print("JAX's versions: " + "; ".join(f"{k.key} {k.jax_note}" for k in selected))
    for r in results:
        for message in r.tracejit.warnings:
            print(f"  {r.key} N={r.n} tracejit: {message}")
    return [asdict(r) for r in results]
