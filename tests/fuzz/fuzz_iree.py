"""IREE as a second oracle for the fuzzer (`run_fuzz.py --oracle iree`).

Each generated program is run eagerly (NumPy, the reference) and compiled by tracejit;
then its traced module is exported with `export-linalg` (tools/iree_oracle.py), compiled
by IREE for the CPU and run on the same inputs. IREE's results are compared with NumPy's
and with tracejit's under the fuzzer's documented bound (`fuzz_oracle.compare_arrays`:
exact for ints, bools and exact floats, the generator's error bound for the others).

Each exported module is also imported back (`import-linalg`) and run by tracejit
(`tools/linalg_roundtrip.py`): the two directions must meet on the same answer.

Counts: programs tried / exported (the rest use an op `export-linalg` refuses) / agree /
disagree / IREE failures (IREE could not compile or run an exported module; those at a
known limit of IREE, `IREE_LIMITS`, are counted apart). Exported functions are compiled in
batches (one IREE module each), since an IREE compile costs a second whatever its size.

Known differences, not tracejit's (seen in `--oracle iree` runs; IREE 3.13):

* IREE approximates f32 `math.sin`/`math.cos` with a polynomial whose range reduction
  loses accuracy for large arguments: `np.cos(np.float32(65535))` is 0.19234402 in NumPy
  and tracejit, 0.1941-0.1945 under IREE (about 1e4 ulp). Reported as a disagreement.
* `IREE_LIMITS` below: compile failures of valid MLIR.
"""

from __future__ import annotations

import warnings
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from fuzz_oracle import compare_arrays, run
from fuzz_programs import draw_programs

import tracejit as tj
from tracejit.passes.export_linalg import ExportError
from tracejit.passes.import_linalg import ImportError_
from tracejit.runtime.structure import flatten
from tracejit.tools import iree_oracle
from tracejit.tools.linalg_roundtrip import run_upstream_text

BATCH = 25

# IREE compile errors that are IREE's limits, not tracejit's (counted apart, explained).
IREE_LIMITS = {
    "failed to legalize operation 'math.cbrt'": "IREE's llvm-cpu has no lowering of math.cbrt",
    "region branch point has": "IREE's stream conversion breaks an scf.while whose body "
    "ignores a carried tensor (valid MLIR: iree-opt verifies it)",
}


@dataclass
class Case:
    """One exported program, waiting for IREE: its kernel inputs, and for each kernel
    output a label, NumPy's value, tracejit's value and the error bound."""

    index: int
    program: Any
    exported: iree_oracle.Exported
    inputs: list[np.ndarray]
    expected: list[tuple[str, Any, Any, float | None]]


@dataclass
class Report:
    counts: Counter = field(default_factory=Counter)
    refused: Counter = field(default_factory=Counter)  # why a program was not exported
    limits: Counter = field(default_factory=Counter)  # IREE_LIMITS met
    import_refused: Counter = field(default_factory=Counter)  # ops import-linalg refused
    disagreements: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)

    def summary(self) -> str:
        c = self.counts
        lines = [
            f"programs tried: {c['tried']} / exported: {c['exported']} / agree: {c['agree']} "
            f"/ disagree: {c['disagree']} / IREE failures: {c['iree_failure']} "
            f"(+ {c['iree_limit']} at a known IREE limit)",
            "not exported: " + ", ".join(f"{n} {why}" for why, n in self.refused.most_common()),
        ]
        lines.append(
            f"export+import round trip (tracejit-opt --run of the export): "
            f"agree: {c['round_trip_agree']} / disagree: {c['round_trip_disagree']} / "
            f"import refused: {c['import_refused']} ("
            + ", ".join(f"{n} {op}" for op, n in self.import_refused.most_common())
            + ")"
        )
        lines += [f"IREE LIMIT ({n}x) {why}" for why, n in self.limits.items()]
        lines += [f"DISAGREE {d}" for d in self.disagreements]
        lines += [f"IREE FAILURE {f}" for f in self.failures]
        return "\n".join(lines)


def prepare(index: int, program, report: Report) -> Case | None:
    """Run the program eagerly and compiled, and export it; None (counted) if it cannot be."""
    namespace = program.build()
    eager = run(program, namespace, namespace["program"])
    if eager.error is not None or not isinstance(eager.result, dict):
        report.refused["eager raised"] += 1
        return None
    function = tj.function(namespace["program"])
    compiled = run(program, namespace, function)
    if compiled.error is not None:
        report.refused["tracejit refused or raised (checked by the main fuzzer)"] += 1
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            concrete = function.get_concrete_function(*program.inputs)
        exported = iree_oracle.export(concrete, f"program_{index}")
    except ExportError as error:
        report.refused[_op_named(str(error))] += 1
        return None
    expected = kernel_outputs(concrete.record.program, program, eager, compiled)
    if len(exported.result_dtypes) != len(expected):
        report.refused["results the export does not return"] += 1
        return None
    report.counts["exported"] += 1
    inputs = [program.inputs[i] for i in concrete.record.program.input_positions]
    return Case(index, program, exported, inputs, expected)


def kernel_outputs(traced, program, eager, compiled) -> list:
    """What each output of the traced function is: the returned values the kernel computes
    (`output_positions` among the flattened results), then the arguments it writes."""
    names = flatten({name: name for name in program.outputs})[0]
    eager_leaves, compiled_leaves = flatten(eager.result)[0], flatten(compiled.result)[0]
    expected = [
        (names[p], eager_leaves[p], compiled_leaves[p], program.outputs[names[p]])
        for p in traced.output_positions
    ]
    for k in traced.written_inputs:
        i = traced.input_positions[k]
        expected.append((f"a{i} after the call", eager.arguments[i], compiled.arguments[i], None))
    return expected


def _op_named(message: str) -> str:
    return message.split("'")[1] if "'" in message else message[:60]


def check_batch(cases: list[Case], report: Report) -> None:
    """Compile the batch with IREE (each case alone if the batch fails) and compare."""
    try:
        functions = iree_oracle.compile_many([c.exported.function for c in cases])
    except Exception as error:  # noqa: BLE001  one bad module: find it
        if len(cases) > 1:
            for case in cases:
                check_batch([case], report)
            return
        limit = next((why for key, why in IREE_LIMITS.items() if key in str(error)), None)
        if limit is not None:
            report.counts["iree_limit"] += 1
            report.limits[limit] += 1
            return
        report.counts["iree_failure"] += 1
        report.failures.append(_describe(cases[0], f"IREE compile failed: {_errors(error)}"))
        return
    for case in cases:
        name = case.exported.function.sym_name.data
        try:
            with np.errstate(all="ignore"):
                results = iree_oracle.call(
                    functions[name], case.inputs, case.exported.result_dtypes
                )
        except Exception as error:  # noqa: BLE001
            report.counts["iree_failure"] += 1
            report.failures.append(_describe(case, f"IREE run failed: {error}"))
            continue
        problem = compare(case, results)
        if problem is None:
            report.counts["agree"] += 1
        else:
            report.counts["disagree"] += 1
            report.disagreements.append(_describe(case, problem))


def compare(case: Case, results: list[np.ndarray], who: str = "IREE") -> str | None:
    for got, (label, eager, compiled, err) in zip(results, case.expected, strict=True):
        got = got.reshape(np.shape(compiled))
        against_numpy = compare_arrays(got, eager, err)
        if against_numpy:
            return f"{label}: {who} vs NumPy: {against_numpy}"
        against_tracejit = compare_arrays(got, compiled, err)
        if against_tracejit:
            return f"{label}: {who} vs tracejit: {against_tracejit}"
    return None


def check_round_trip(case: Case, report: Report) -> None:
    """The export imported back (`import-linalg`) and compiled by tracejit: NumPy's answer."""
    text = iree_oracle.module_text([case.exported.function])
    try:
        with np.errstate(all="ignore"):
            inputs = [iree_oracle.signless(np.asarray(a)) for a in case.inputs]
            results = run_upstream_text(text, inputs)
        dtypes = case.exported.result_dtypes
        results = [iree_oracle.as_dtype(r, d) for r, d in zip(results, dtypes, strict=True)]
    except ImportError_ as error:
        report.counts["import_refused"] += 1
        report.import_refused[_op_named(str(error))] += 1
        return
    except Exception as error:  # noqa: BLE001  a crash, not a clear refusal: a finding
        report.counts["round_trip_disagree"] += 1
        report.disagreements.append(_describe(case, f"export+import raised {error!r}"))
        return
    problem = compare(case, results, "export+import")
    if problem is None:
        report.counts["round_trip_agree"] += 1
    else:
        report.counts["round_trip_disagree"] += 1
        report.disagreements.append(_describe(case, problem))


def _errors(error: Exception) -> str:
    """The `error:` lines of an IREE compiler diagnostic."""
    lines = [line for line in str(error).splitlines() if "error:" in line]
    return "\n".join(lines[:5]) or str(error)[:1000]


def _describe(case: Case, problem: str) -> str:
    return f"program {case.index}: {problem}\n{case.program.source()}"


def fuzz_iree(count: int, seed: int) -> Report:
    report = Report()
    pending: list[Case] = []
    for index, program in enumerate(draw_programs(count, seed)):
        report.counts["tried"] += 1
        case = prepare(index, program, report)
        if case is not None:
            check_round_trip(case, report)
            pending.append(case)
        if len(pending) >= BATCH:
            check_batch(pending, report)
            pending = []
    if pending:
        check_batch(pending, report)
    return report
