"""Resident memory that compiled-and-dropped functions leave: `python -m benchmarks.memory_probe`.

Each step defines a fresh NumPy function (element-wise, a reduction, a staged loop or one
using a captured array, with a different constant each time so no two traces are alike),
wraps it with `tj.function`, calls it once so it compiles (tiered compilation is turned off:
an interpreted first call would compile nothing), drops every reference and collects. RSS
(/proc/self/statm) is read after a warm-up and at each checkpoint, both as it is and after
`malloc_trim(0)`, which hands glibc's free pages back to the system: growth that survives
the trim is memory still in use (a leak), growth that the trim removes was fragmentation of
the C heap. "slope" is the trimmed growth per function since the previous checkpoint.

`--stage` stops each step after one compiler stage, to find which one keeps the memory:

    trace     tracing only (get_concrete_function)
    lower     + the xDSL pass pipeline, down to cf
    llvm-ir   + translation to LLVM IR text
    parse     + llvmlite parse and verify (a TargetMachine is made, as the JIT makes it)
    optimize  + O3
    engine    + an MCJIT engine, finalized (all of codegen/jit.py's compile_llvm_ir)
    full      the whole call (ctypes entry points, the runtime binding): the default

    python -m benchmarks.memory_probe --counts 200,500,1000 --stage full

`make bench`'s "memory" section (`report`) runs it in a fresh interpreter, whole calls, and
checks issue 39's bound: 1,000 functions compiled and dropped leave at most 20 MB, as RSS is.
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import json
import os
import subprocess
import sys

import numpy as np

import tracejit as tj

KINDS = 4
STAGES = ("trace", "lower", "llvm-ir", "parse", "optimize", "engine", "full")


def rss() -> int:
    """Resident set size in bytes (/proc/self/statm, field 2, in pages)."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


_libc = ctypes.CDLL(None)


def trimmed_rss() -> int:
    """RSS after glibc returned every free page it could (so only memory in use counts)."""
    gc.collect()
    _libc.malloc_trim(0)
    return rss()


def make_function(i: int):
    """The i-th fresh function: one of four shapes of code, with `i` as a constant."""
    k = float(i + 1)
    kind = i % KINDS
    if kind == 0:

        def elementwise(x):
            return np.tanh(x) * k + np.exp(-x) / (x * x + k)

        return elementwise
    if kind == 1:

        def reduction(x):
            return np.sum(x * k, axis=0) + np.max(x, axis=1).mean()

        return reduction

    if kind == 3:
        table = np.arange(20.0).reshape(4, 5) * k  # a captured array: a constant of the trace

        def captured(x):
            return x * table + 1.0

        return captured

    def staged_loop(x, n):
        total = np.zeros_like(x[0])
        for j in tj.range(n):
            total = total + x[j % x.shape[0]] * k
        return total

    return staged_loop


def arguments(i: int) -> tuple:
    x = np.linspace(0.0, 1.0, 20).reshape(4, 5)
    return (x, np.int64(3)) if i % KINDS == 2 else (x,)


def compile_up_to(stage: str, i: int) -> None:
    """Run function i through the compiler up to `stage`, then drop everything."""
    f = tj.function(make_function(i))
    args = arguments(i)
    if stage == "full":
        f(*args)
        return
    concrete = f.get_concrete_function(*args)
    if stage == "trace":
        return
    from tracejit.compiler import driver

    lowered = driver.lower(concrete.graph.module, concrete.record.pipeline)
    if stage == "lower":
        return
    from tracejit import codegen
    from tracejit.codegen import jit
    from tracejit.codegen.emit_llvm import translate_module

    text = translate_module(lowered.module)
    if stage == "llvm-ir":
        return
    if stage == "engine":  # the whole of codegen/jit.py: parse, O3, MCJIT, load hooks
        jit.compile_llvm_ir(text, codegen.module_signatures(lowered.module))
        return
    jit._initialize()
    tm = jit._target_machine()
    context = jit._Context()  # as compile_llvm_ir parses: into a context of its own
    try:
        module = jit._parsed(text, tm, context)
        if stage == "optimize":
            jit._optimized(module, text, tm, context)
    finally:
        context.close()


def measure(stage: str, counts: list[int], warmup: int) -> list[dict]:
    for i in range(warmup):  # one-time state: LLVM, xDSL, the runtime, glibc's arenas
        compile_up_to(stage, 10**6 + i)
    tj.config.wait_for_compiles()
    base, base_trimmed = rss(), trimmed_rss()
    rows, done, last_trimmed = [], 0, base_trimmed
    for count in counts:
        previous = done
        while done < count:
            compile_up_to(stage, done)
            done += 1
        gc.collect()
        now = rss()
        trimmed = trimmed_rss()
        rows.append({
            "functions": count,
            "rss_mib": now / 2**20,
            "kib_per_function": (now - base) / count / 1024,
            "trimmed_kib_per_function": (trimmed - base_trimmed) / count / 1024,
            # the slope since the previous checkpoint: early growth (arenas, caches filling
            # up to their bounds) weighs less here than in the averages
            "trimmed_kib_per_function_since": (trimmed - last_trimmed) / (done - previous) / 1024,
        })
        last_trimmed = trimmed
    return rows


BOUND_BYTES_PER_1000 = 20 * 10**6


def report(quick: bool) -> list[dict]:
    """The probe in a fresh interpreter (whole calls), its table, and the bound's check."""
    counts = "100" if quick else "200,1000"
    command = [sys.executable, "-m", "benchmarks.memory_probe", "--counts", counts, "--json"]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    rows = json.loads(done.stdout.splitlines()[-1])
    print("\n== memory: functions compiled and dropped (fresh interpreter, tiering off) ==")
    print(done.stdout.split("\n", 1)[1].rsplit("\n", 2)[0])
    last = rows[-1]
    per_1000 = last["kib_per_function"] * 1024 * 1000
    verdict = "met" if per_1000 <= BOUND_BYTES_PER_1000 else "NOT met"
    print(f"RSS as it is: {per_1000 / 1e6:.1f} MB per 1,000 functions (bound 20 MB: {verdict})")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.memory_probe")
    parser.add_argument("--stage", choices=STAGES, default="full")
    parser.add_argument("--counts", default="200,500,1000",
                        help="comma-separated checkpoints (cumulative numbers of functions)")
    parser.add_argument("--warmup", type=int, default=30)
    parser.add_argument("--json", action="store_true", help="also print the rows as JSON, last")
    args = parser.parse_args()
    tj.config.set_tiered_compilation(False)
    counts = sorted(int(c) for c in args.counts.split(","))
    print(f"stage {args.stage}, warm-up {args.warmup} functions, RSS {rss() / 2**20:.1f} MiB")
    print(f"{'functions':>9} {'RSS MiB':>9} {'KiB/function':>13} {'trimmed':>9} {'slope':>7}")
    rows = measure(args.stage, counts, args.warmup)
    for row in rows:
        print(f"{row['functions']:>9} {row['rss_mib']:>9.1f} {row['kib_per_function']:>13.1f}"
              f" {row['trimmed_kib_per_function']:>9.1f}"
              f" {row['trimmed_kib_per_function_since']:>7.1f}")
    if args.json:
        print(json.dumps(rows))


if __name__ == "__main__":
    main()
