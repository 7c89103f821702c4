"""First-call latency (W8 with a fresh function each time), stage by stage; first calls with
tiered execution (interpreted, compiled in the background) next to synchronous compiles; and
the persistent cache's hit latency in a second process.

The stage breakdown repeats the driver's steps with a clock around each: trace, every pass of
the pipeline (grouped as the tensor passes and the lowering passes), translation to LLVM IR,
LLVM parsing, LLVM's O3 pipeline, MCJIT machine-code generation, and the kernel handle.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.peers import all_impls, fresh_copy
from benchmarks.timing import format_seconds, format_table, settle_compiles
from benchmarks.workloads import WORKLOADS

REPO_ROOT = Path(__file__).resolve().parent.parent


def compile_breakdown(
    function: Any, inputs: tuple[Any, ...]
) -> tuple[dict[str, float], list[tuple[str, float]]]:
    """Seconds per compile stage of a fresh `tj.function(function)` on `inputs`, and
    (pass name, seconds) for each pass of the pipeline."""
    import llvmlite.binding as llvm

    import tracejit as tj
    from tracejit.codegen import jit, module_signatures, translate_module
    from tracejit.compiler import driver
    from tracejit.passes.pipeline import TENSOR_OPT_PIPELINE

    clock = time.perf_counter
    stages: dict[str, float] = {}
    start = clock()
    concrete = tj.function(fresh_copy(function)).get_concrete_function(*inputs)
    stages["trace"] = clock() - start

    passes: list[tuple[str, float]] = []
    last = [clock()]

    def after_pass(name: str, _module: Any) -> None:
        now = clock()
        passes.append((name, now - last[0]))
        last[0] = now

    lowered = driver.lower(concrete.graph.module, concrete.record.pipeline, after_pass=after_pass)
    stages["tensor passes"] = sum(s for _, s in passes[: len(TENSOR_OPT_PIPELINE)])
    stages["lowering passes"] = sum(s for _, s in passes[len(TENSOR_OPT_PIPELINE) :])

    start = clock()
    driver.error_messages(lowered.module)
    text = translate_module(lowered.module)
    signatures = module_signatures(lowered.module)
    stages["translate to LLVM IR"] = clock() - start

    start = clock()
    machine = jit._target_machine()
    module = llvm.parse_assembly(text)
    module.verify()
    module.triple = machine.triple
    module.data_layout = str(machine.target_data)
    jit._skip_optimizing_entry_points(module)
    stages["LLVM parse+verify"] = clock() - start

    start = clock()
    jit._optimize(module, machine)
    stages["LLVM O3"] = clock() - start

    start = clock()
    engine = llvm.create_mcjit_compiler(module, machine)
    engine.finalize_object()
    stages["MCJIT codegen"] = clock() - start

    start = clock()
    jit.JitModule(engine, machine, module, signatures).kernel(concrete.graph.function_name)
    stages["kernel handle"] = clock() - start
    return stages, passes


def median_breakdown(
    runs: list[tuple[dict[str, float], list[tuple[str, float]]]],
) -> tuple[dict[str, float], list[tuple[str, float]]]:
    stages = {name: statistics.median(r[0][name] for r in runs) for name in runs[0][0]}
    passes = [
        (name, statistics.median(r[1][i][1] for r in runs))
        for i, (name, _) in enumerate(runs[0][1])
    ]
    return stages, passes


def first_call_seconds(function: Any, inputs: tuple[Any, ...], tiered: bool = False) -> float:
    """Trace + compile + run of a fresh `tj.function`, as a user sees it; with `tiered`, trace
    + interpret (the compile then runs in the background: waited for, untimed)."""
    import tracejit as tj

    has_tiering = hasattr(tj.config, "set_tiered_compilation")  # absent before issue 20
    was_on = has_tiering and tj.config.tiered_compilation()
    if has_tiering:
        tj.config.set_tiered_compilation(tiered)
    try:
        fresh = tj.function(fresh_copy(function))
        start = time.perf_counter()
        fresh(*inputs)
        seconds = time.perf_counter() - start
        settle_compiles()
    finally:
        if has_tiering:
            tj.config.set_tiered_compilation(was_on)
    return seconds


def peer_first_calls(workload_key: str, repeats: int) -> dict[str, float | str]:
    workload = WORKLOADS[workload_key]
    inputs = workload.inputs(np.random.default_rng(0))
    found: dict[str, float | str] = {}
    impls, _ = all_impls()
    for impl in impls:
        if impl.name in ("numpy", "tracejit"):
            continue
        try:
            source, args = impl.source(workload), impl.convert(inputs)
            samples = []
            for _ in range(repeats):
                start = time.perf_counter()
                impl.finish(impl.wrap(fresh_copy(source))(*args))
                samples.append(time.perf_counter() - start)
            found[impl.name] = statistics.median(samples)
        except Exception as error:
            found[impl.name] = f"{type(error).__name__}: {error}"
    return found


def report_first_call(quick: bool) -> dict[str, Any]:
    workload = WORKLOADS["W8"]
    inputs = workload.inputs(np.random.default_rng(0))
    repeats = 3 if quick else 7
    first_call_seconds(workload.function, inputs)  # warm up imports and one-time setup
    total = statistics.median(first_call_seconds(workload.function, inputs) for _ in range(repeats))
    stages, passes = median_breakdown(
        [compile_breakdown(workload.function, inputs) for _ in range(repeats)]
    )
    peers = peer_first_calls("W8", repeats)

    print(f"\nW8 first call of a fresh function, tiering off (median of {repeats}, warm process)")
    rows = [["tracejit, end to end", format_seconds(total), ""]]
    rows += [
        [f"  {name}", format_seconds(s), f"{100 * s / total:.0f}%"] for name, s in stages.items()
    ]
    rows += [["  sum of stages", format_seconds(sum(stages.values())), ""]]
    rows += [
        [name, format_seconds(s) if isinstance(s, float) else s[:70], ""]
        for name, s in peers.items()
    ]
    print(format_table(["", "time", "share"], rows))
    print("  passes: " + ", ".join(f"{n} {format_seconds(s)}" for n, s in passes))
    return {"tracejit_seconds": total, "stages": stages, "passes": passes, "peers": peers}


def run_probe(directory: Path, preimport: bool) -> dict[str, Any]:
    command = [sys.executable, "-m", "benchmarks.cache_probe", "--dir", str(directory)]
    if preimport:
        command.append("--preimport")
    done = subprocess.run(command, cwd=REPO_ROOT, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        return {"error": done.stderr.strip().splitlines()[-1] if done.stderr else "failed"}
    return json.loads(done.stdout.strip().splitlines()[-1])


def report_cache_hit(quick: bool) -> dict[str, Any]:
    """W8 in fresh processes: a miss that stores, then hits (with and without the one-time
    imports of the code generator counted)."""
    repeats = 1 if quick else 3
    with tempfile.TemporaryDirectory(prefix="tracejit-cache-") as directory:
        miss = run_probe(Path(directory), preimport=False)
        hits = [run_probe(Path(directory), preimport=False) for _ in range(repeats)]
        warm_hits = [run_probe(Path(directory), preimport=True) for _ in range(repeats)]
    probes = {
        "miss": miss,
        "hit": _median_probe(hits),
        "hit, codegen imported": _median_probe(warm_hits),
    }
    print("\nPersistent cache, W8 in a new process (first call = compile or load, plus run)")
    rows = []
    for name, p in probes.items():
        if "error" in p:
            rows.append([name, p["error"][:80], "", "", ""])
            continue
        rows.append(
            [
                name,
                format_seconds(p["trace"]),
                format_seconds(p["first_call"]),
                format_seconds(p.get("preimport", 0.0)),
                f"{p['stats']} ({p.get('loaded_as', '')})",
            ]
        )
    print(format_table(["", "trace", "first call", "one-time imports", "cache stats"], rows))
    return probes


def _median_probe(probes: list[dict[str, Any]]) -> dict[str, Any]:
    good = [p for p in probes if "error" not in p]
    if not good:
        return probes[0]
    merged = dict(good[0])
    for field in ("trace", "first_call", "preimport"):
        merged[field] = statistics.median(p.get(field, 0.0) for p in good)
    return merged


# --- tiered execution (issue 20): the first call interpreted, the compile in the background -----
def trivial(x):
    return x + 1


def chain_1000(x):
    """1,000 element-wise ops (4 per step; a list is unrolled while tracing, not staged)."""
    for _ in list(range(250)):
        x = np.tanh(x * 0.5 + 0.25) - x
    return x


# key -> (title, function, inputs, issue 20's target for the first call with tiering)
def tiered_cases() -> dict[str, tuple[str, Any, tuple[Any, ...], float]]:
    rng = np.random.default_rng(0)
    cases: dict[str, tuple[str, Any, tuple[Any, ...], float]] = {}
    for key, target in (("W8", 0.040), ("W4", 0.150), ("W7", 0.060)):
        w = WORKLOADS[key]
        cases[key] = (w.title, w.function, w.inputs(rng), target)
    cases["trivial"] = ("x + 1, 4 f32", trivial, (np.ones(4, np.float32),), 0.060)
    x = rng.standard_normal(1000).astype(np.float32)
    cases["chain"] = ("1,000-op element-wise chain, 1000 f32", chain_1000, (x,), 1.5)
    return cases


PROCESS_FIRST_CALL = """
import json, os, sys, time
import numpy as np
import tracejit as tj
# `import tracejit` loads its frontend when the API is first touched (PEP 562): touch it here,
# so that the import is excluded, as the docstring says, and the clock sees only the call
tj.function
start = time.perf_counter()
@tj.function
def trivial(x):
    return x + 1
trivial(np.ones(4, np.float32))
print(json.dumps({"seconds": time.perf_counter() - start}))
"""


def process_first_call(tiered: bool) -> float | str:
    """The first call of `x + 1` in a new process, the imports of numpy and tracejit excluded."""
    env = {**os.environ, "TRACEJIT_TIERED": "1" if tiered else "0"}
    with tempfile.TemporaryDirectory(prefix="tracejit-first-") as directory:
        script = Path(directory) / "first_call.py"  # a file: AutoGraph reads the source
        script.write_text(PROCESS_FIRST_CALL)
        done = subprocess.run([sys.executable, str(script)], cwd=REPO_ROOT, env=env,
                              capture_output=True, text=True, check=False)  # fmt: skip
    if done.returncode != 0:
        return done.stderr.strip().splitlines()[-1] if done.stderr else "failed"
    return float(json.loads(done.stdout.strip().splitlines()[-1])["seconds"])


def report_tiered(quick: bool) -> dict[str, Any]:
    """First calls of fresh functions with tiering on (trace + interpret) and off (trace +
    compile + run), each measurement after the previous one's background compile finished."""
    import tracejit as tj

    repeats = 3 if quick else 7
    has_tiering = hasattr(tj.config, "set_tiered_compilation")
    was_on = tj.config.tiered_compilation() if has_tiering else False
    report: dict[str, Any] = {}
    rows = []
    try:
        for key, (title, function, inputs, target) in tiered_cases().items():
            first_call_seconds(function, inputs, tiered=True)  # warm up imports and setup
            tiered = (
                statistics.median(
                    first_call_seconds(function, inputs, tiered=True) for _ in range(repeats)
                )
                if has_tiering
                else None
            )
            sync_repeats = 1 if key == "chain" and quick else repeats
            sync = statistics.median(
                first_call_seconds(function, inputs, tiered=False) for _ in range(sync_repeats)
            )
            report[key] = {"tiered_seconds": tiered, "sync_seconds": sync, "target": target}
            shown = format_seconds(tiered) if tiered is not None else "-"
            met = "" if tiered is None else ("yes" if tiered <= target else "no")
            rows.append([key, title, shown, format_seconds(sync), format_seconds(target), met])
    finally:
        if has_tiering:
            tj.config.set_tiered_compilation(was_on)
    process = {"tiered": process_first_call(True), "sync": process_first_call(False)}
    report["trivial, first in a process"] = process
    rows.append(
        [
            "trivial",
            "x + 1, first call in a new process",
            _seconds_or_error(process["tiered"]) if has_tiering else "-",
            _seconds_or_error(process["sync"]),
            format_seconds(0.060),
            "" if not isinstance(process["tiered"], float) or not has_tiering
            else "yes" if process["tiered"] <= 0.060 else "no",
        ]
    )  # fmt: skip
    print(f"\nFirst call of a fresh function (median of {repeats}, warm process unless said)")
    header = ["", "function", "tiered (trace+interpret)", "sync compile (tiering off)",
              "target", "met"]  # fmt: skip
    print(format_table(header, rows))
    return report


def _seconds_or_error(value: float | str) -> str:
    return format_seconds(value) if isinstance(value, float) else value[:60]
