"""Run the selected workloads on every implementation, print the tables, write the JSON."""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from benchmarks import (
    dask_bench,
    fft_accuracy,
    fft_bench,
    gradients,
    kernel_bench,
    latency,
    linalg_bench,
    load,
    loop_bench,
    matmul_bench,
    memory_probe,
    program_bench,
    scale,
)
from benchmarks.kernels import KERNELS
from benchmarks.loop_kernels import LOOP_KERNELS
from benchmarks.peers import Impl, all_impls, fresh_copy
from benchmarks.timing import (
    FULL,
    QUICK,
    Budget,
    format_seconds,
    format_table,
    median_seconds,
    on_one_cpu,
    settle_compiles,
)
from benchmarks.workloads import WORKLOADS, Workload

SECTIONS = (
    "latency", "cache", "scale", "kernels", "loops", "programs", "fft", "gradients", "linalg",
    "matmul", "dask", "load", "memory",
)  # fmt: skip
DEFAULT_SECTIONS = (
    "latency", "cache", "kernels", "loops", "programs", "fft", "gradients", "linalg", "matmul",
    "dask", "load", "memory",
)  # fmt: skip


@dataclass
class Result:
    workload: str
    impl: str
    status: str  # "ok", "not supported yet", "unsupported", "wrong result", "error"
    seconds: float | None = None
    detail: str = ""
    speedup_vs_numpy: float | None = None
    gflops: float | None = None


def check(workload: Workload, impl: str, got: Any, expected: Any) -> None:
    """Values (and for tracejit also dtype and shape) must match NumPy's."""
    got_array, want = np.asarray(got), np.asarray(expected)
    if impl.startswith("tracejit"):
        assert got_array.dtype == want.dtype, f"dtype {got_array.dtype}, NumPy {want.dtype}"
    assert got_array.shape == want.shape, f"shape {got_array.shape}, NumPy {want.shape}"
    np.testing.assert_allclose(got_array, want, rtol=workload.rtol, atol=workload.atol)


def build_runner(workload: Workload, impl: Impl, inputs: tuple[Any, ...]):
    function = impl.wrap(fresh_copy(impl.source(workload)))
    args = impl.convert(inputs)
    return lambda: impl.finish(function(*args))


def measure(
    workload: Workload, impl: Impl, inputs: tuple[Any, ...], expected: Any, budget: Budget
) -> Result:
    try:
        run = build_runner(workload, impl, inputs)
        got = run()
        if impl.name.startswith("tracejit"):  # the first call was interpreted (tiered.py):
            settle_compiles()  # check and time the compiled code
            got = run()
    except Exception as error:
        return _failure(workload, impl.name, error)
    try:
        check(workload, impl.name, got, expected)
    except AssertionError as error:
        lines = [ln.strip() for ln in str(error).splitlines() if "Max relative" in ln]
        detail = "; ".join([_first_line(error), *lines])
        return Result(workload.key, impl.name, "wrong result", detail=detail)
    return Result(workload.key, impl.name, "ok", median_seconds(run, budget) * workload.calls)


def _failure(workload: Workload, impl: str, error: Exception) -> Result:
    message = f"{type(error).__name__}: {_first_line(error)}"
    if workload.needs_autograph and impl == "tracejit":
        return Result(workload.key, impl, "not supported yet", detail=f"needs AutoGraph; {message}")
    return Result(workload.key, impl, "error", detail=message)


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def concrete_function_result(
    workload: Workload, inputs: tuple[Any, ...], expected: Any, budget: Budget
) -> Result:
    """W1 through the ConcreteFunction itself (the per-call path without the trace lookup)."""
    import tracejit as tj

    name = "tracejit (ConcreteFunction)"
    try:
        concrete = tj.function(fresh_copy(workload.function)).get_concrete_function(*inputs)
        concrete(*inputs)
        settle_compiles()  # the first call was interpreted (tiered.py)
        check(workload, name, concrete(*inputs), expected)
    except Exception as error:
        return _failure(workload, name, error)
    return Result(workload.key, name, "ok", median_seconds(lambda: concrete(*inputs), budget))


def unknown_dims_result(
    workload: Workload, inputs: tuple[Any, ...], expected: Any, budget: Budget
) -> Result:
    """W1 traced for dims unknown at trace time (an input signature of None dims), whose
    calls compute their output shapes from the arguments' (fast_path.py)."""
    import tracejit as tj

    name = "tracejit (unknown dims)"
    specs = [tj.TensorSpec([None] * np.ndim(x), np.asarray(x).dtype) for x in inputs]
    try:
        function = tj.function(fresh_copy(workload.function), input_signature=specs)
        function(*inputs)
        settle_compiles()  # the first call was interpreted (tiered.py)
        check(workload, name, function(*inputs), expected)
    except Exception as error:
        return _failure(workload, name, error)
    return Result(workload.key, name, "ok", median_seconds(lambda: function(*inputs), budget))


def run_workload(
    workload: Workload, impls: list[Impl], budget: Budget, threads: int = 1
) -> list[Result]:
    inputs = workload.inputs(np.random.default_rng(0))
    expected = workload.function(*inputs)
    results = [measure(workload, impl, inputs, expected, budget) for impl in impls]
    if workload.key == "W1":
        results.insert(2, concrete_function_result(workload, inputs, expected, budget))
        results.insert(3, unknown_dims_result(workload, inputs, expected, budget))
    if threads > 1:  # tracejit on one thread too, in the same run, for the threads' speedup
        position = next(i for i, impl in enumerate(impls) if impl.name == "tracejit") + 1
        results.insert(position, one_thread_result(workload, impls[position - 1], inputs,
                                                   expected, budget, threads))  # fmt: skip
    numpy_seconds = results[0].seconds
    for r in results:
        if r.seconds and numpy_seconds:
            r.speedup_vs_numpy = numpy_seconds / r.seconds
        if r.seconds and workload.flops:
            r.gflops = workload.flops * workload.calls / r.seconds / 1e9
    return results


ONE_THREAD = "tracejit (1 thread)"


def one_thread_result(
    workload: Workload, impl: Impl, inputs: tuple[Any, ...], expected: Any, budget: Budget,
    threads: int,
) -> Result:  # fmt: skip
    """`impl` (tracejit) measured with tj's thread count set to 1, then set back."""
    import tracejit as tj

    tj.config.set_num_threads(1)
    try:
        result = measure(workload, impl, inputs, expected, budget)
    finally:
        tj.config.set_num_threads(threads)
    result.impl = ONE_THREAD
    return result


def threads_table(results: list[Result], threads: int) -> str:
    """tracejit's time on one thread over its time on `threads` threads, per workload."""
    by_key: dict[str, dict[str, Result]] = {}
    for r in results:
        by_key.setdefault(r.workload, {})[r.impl] = r
    rows = []
    for key, found in by_key.items():
        one, many = found.get(ONE_THREAD), found.get("tracejit")
        if one is None or many is None or not one.seconds or not many.seconds:
            continue
        rows.append([key, format_seconds(one.seconds), format_seconds(many.seconds),
                     f"{one.seconds / many.seconds:.2f}x"])  # fmt: skip
    header = ["", "tracejit 1 thread", f"tracejit {threads} threads", "speedup"]
    return format_table(header, rows)


def results_table(results: list[Result]) -> str:
    rows = []
    for r in results:
        w = WORKLOADS[r.workload]
        time = format_seconds(r.seconds) if r.seconds is not None else "-"
        speedup = f"{r.speedup_vs_numpy:.2f}x" if r.speedup_vs_numpy else "-"
        gflops = f"{r.gflops:.1f}" if r.gflops else ""
        note = "" if r.status == "ok" else f"{r.status}: {r.detail}"[:140]
        rows.append([r.workload, w.title, r.impl, time, speedup, gflops, note])
    header = ["", "workload", "implementation", "time", "NumPy/this", "GFLOP/s", "note"]
    return format_table(header, rows)


@dataclass
class Selection:
    """What --only names: workloads, sections, and kernels of the kernels and loops sections
    (none named: all of that section's)."""

    workloads: list[str]
    sections: list[str]
    kernels: list[str]
    loops: list[str]


def selection(only: str) -> Selection:
    """The workloads and sections named by --only; everything but scale when empty. Naming
    kernels (K1, K3) or loop kernels (L1, L6) runs their section with just those."""
    if not only.strip():
        return Selection(list(WORKLOADS), list(DEFAULT_SECTIONS), [], [])
    names = [n.strip() for n in only.split(",") if n.strip()]
    known = [*WORKLOADS, *KERNELS, *LOOP_KERNELS]
    unknown = [n for n in names if n.upper() not in known and n.lower() not in SECTIONS]
    if unknown:
        raise SystemExit(f"--only: unknown {unknown}; choose from {known} {SECTIONS}")
    chosen = Selection(
        workloads=[n.upper() for n in names if n.upper() in WORKLOADS],
        sections=[n.lower() for n in names if n.lower() in SECTIONS],
        kernels=[n.upper() for n in names if n.upper() in KERNELS],
        loops=[n.upper() for n in names if n.upper() in LOOP_KERNELS],
    )
    for section, keys in (("kernels", chosen.kernels), ("loops", chosen.loops)):
        if keys and section not in chosen.sections:
            chosen.sections.append(section)
    return chosen


def environment(args: argparse.Namespace) -> dict[str, Any]:
    import llvmlite.binding as llvm

    return {
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "cpu": llvm.get_host_cpu_name(),
        "machine": platform.machine(),
        "cores": os.cpu_count(),
        "threads": args.threads,
        "quick": args.quick,
    }


def _workloads(keys: list[str], budget: Budget, threads: int) -> list[dict]:
    """W1-W9 on every implementation, their table (and the threads' speedups)."""
    impls, notes = all_impls()
    for note in notes:
        print(f"  {note}")
    results = []
    for key in keys:
        results += run_workload(WORKLOADS[key], impls, budget, threads)
    print()
    print(results_table(results))
    if threads > 1:
        print()
        print(threads_table(results, threads))
    print("NumPy/this > 1 means faster than NumPy; W4's time is for all 1000 calls.")
    return [asdict(r) for r in results]


def run(args: argparse.Namespace) -> int:
    import tracejit as tj

    tj.config.set_cache_dir(None)  # measure compiles, not cache hits (except in "cache")
    tj.config.set_num_threads(args.threads)  # like NumPy's BLAS (see __main__.pin_threads)
    budget = QUICK if args.quick else FULL
    chosen = selection(args.only)
    keys, sections = chosen.workloads, chosen.sections
    report: dict[str, Any] = {"environment": environment(args)}
    print(f"tracejit benchmarks, {report['environment']}")
    # "one thread" for every peer: XLA's CPU runtime uses both cores whatever XLA_FLAGS say
    # (timing.on_one_cpu): the sections with JAX beside us (and matmul, NumPy's BLAS only);
    # not those whose peers keep to one thread or that measure threads or memory
    pinned = args.threads == 1
    if pinned:
        print("  one thread: the sections with JAX run with every thread on one CPU")
    if keys:
        with on_one_cpu(pinned):
            report["workloads"] = _workloads(keys, budget, args.threads)
    if "latency" in sections:
        report["first_call"] = latency.report_first_call(args.quick)
        report["tiered"] = latency.report_tiered(args.quick)
    if "cache" in sections:
        report["cache"] = latency.report_cache_hit(args.quick)
    if "scale" in sections:
        report["scale"] = scale.report(args.quick)
    timed = {  # section: (its report, pinned)
        "gradients": (lambda: gradients.report(args.quick), pinned),
        "linalg": (lambda: linalg_bench.report(args.quick), pinned),
        "matmul": (lambda: matmul_bench.report(args.quick), pinned),
        "kernels": (lambda: kernel_bench.report(args.quick, chosen.kernels), False),
        "loops": (lambda: loop_bench.report(args.quick, chosen.loops, args.loop_sizes), pinned),
        "programs": (lambda: program_bench.report(args.quick), False),
        "fft": (lambda: fft_bench.report(args.quick), pinned),
    }
    for section, (measure, pin) in timed.items():
        if section in sections:
            with on_one_cpu(pin):
                report[section] = measure()
    if "fft" in sections:
        report["fft_accuracy"] = fft_accuracy.report(args.quick)
    if "dask" in sections:
        report["dask"] = dask_bench.report(args.quick)
    if "load" in sections:
        rows = load.run_load(quick=args.quick)
        load.report(rows)
        report["load"] = rows
    if "memory" in sections:
        report["memory"] = memory_probe.report(args.quick)
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(report, indent=2, default=str))
    print(f"\nwrote {args.json}")
    return 0
