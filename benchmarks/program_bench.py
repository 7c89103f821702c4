"""Whole programs (program_kernels.py): synchronous first call and steady time on tracejit,
NumPy and numba (`python -m benchmarks --only programs`).

The first call is trace + compile + run of a fresh `tj.function` with tiered compilation
off and no persistent cache: what issue 39's point 4 bounds (1.5 s). numba's `njit` of the
same source is timed the same way where it compiles it (numba rejects some of NumPy's
arguments these programs use, e.g. `np.sum(..., axis=(1, 2, 3))`: a note says so). Every
call gets fresh copies of the inputs (the programs write into them), made outside the timed
region; every result is checked against NumPy's before it is timed.
"""

from __future__ import annotations

import copy
import time
import types
from collections.abc import Callable
from typing import Any

import numpy as np

from benchmarks.kernel_bench import ratio_cell, time_cell
from benchmarks.peers import fresh_copy, importable
from benchmarks.program_kernels import PROGRAMS
from benchmarks.timing import format_table

STEADY_CALLS = 7


def _timed(call: Callable[[Any], Any], inputs: tuple) -> tuple[float, Any, tuple]:
    given = copy.deepcopy(inputs)
    start = time.perf_counter()
    result = call(*given)
    return time.perf_counter() - start, result, given


def _answer(kind: str, result: Any, given: tuple) -> list[np.ndarray]:
    """What a program computes: its value, or the arrays it wrote into."""
    if kind == "value":
        return [np.asarray(result)]
    return [np.asarray(a) for a in given if isinstance(a, np.ndarray)]


def _agrees(got: list[np.ndarray], want: list[np.ndarray]) -> bool:
    return all(np.allclose(g, w, rtol=1e-4, atol=1e-6) for g, w in zip(got, want, strict=True))


def _with_helpers(compiler, fn: types.FunctionType) -> Any:
    """numba's njit of `fn` with the functions it calls from its module njit-ed too (numba
    does not compile a plain Python function it meets as a global)."""
    helpers = {
        name: _with_helpers(compiler, g)
        for name in fn.__code__.co_names
        if isinstance(g := fn.__globals__.get(name), types.FunctionType)
        and g.__module__ == fn.__module__
    }
    return compiler(fresh_copy(fn, **helpers))


def _reason(error: Exception) -> str:
    """The line of a (numba) error that says what it did not compile."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    said = [line for line in lines if not line.startswith(("Failed in", "During", "-", "File"))]
    return (said or lines or [""])[0][:80]


def _measure(compiler, program, inputs, kind, want) -> dict[str, Any]:
    try:
        function = (
            _with_helpers(compiler, program)
            if compiler.__module__.startswith("numba")
            else compiler(fresh_copy(program))
        )
        first, result, given = _timed(function, inputs)
    except Exception as error:  # noqa: BLE001  (a peer that does not compile it: noted)
        return {"status": "error", "detail": f"{type(error).__name__}: {_reason(error)}"}
    if not _agrees(_answer(kind, result, given), want):
        return {"status": "wrong result", "detail": "differs from NumPy"}
    steady = min(_timed(function, inputs)[0] for _ in range(STEADY_CALLS))
    return {"status": "ok", "first": first, "run": steady}


def report(quick: bool) -> list[dict[str, Any]]:
    import tracejit as tj

    tj.config.set_tiered_compilation(False)
    compilers: dict[str, Any] = {"tracejit": tj.function}
    if importable("numba"):
        import numba

        compilers["numba"] = numba.njit
    for compiler in compilers.values():  # one-time setup is not any program's first call
        compiler(fresh_copy(_warm_up))(np.arange(40.0))
    rows, results = [], []
    for key, title, program, make_inputs, kind in PROGRAMS:
        inputs = make_inputs()
        numpy_seconds, result, given = _timed(program, inputs)
        want = _answer(kind, result, given)
        row: dict[str, Any] = {"key": key, "title": title, "numpy": numpy_seconds}
        for name, compiler in compilers.items():
            row[name] = _measure(compiler, program, inputs, kind, want)
        results.append(row)
        rows.append(_cells(row))
        print(f"  {key} done", flush=True)
    header = ["", "program", "tj first", "tj run", "NumPy", "numba first", "numba run",
              "NumPy/tj", "numba/tj", "note"]  # fmt: skip
    print("\nWhole programs: synchronous first call (trace + compile + run) and steady run")
    print(format_table(header, rows))
    print("NumPy/tj, numba/tj > 1: tracejit is faster. Target: every tj first call <= 1.5 s.")
    return results


def _cells(row: dict[str, Any]) -> list[str]:
    tj_, nb = row["tracejit"], row.get("numba", {"status": "not installed"})
    notes = [f"{n} {t['status']}: {t.get('detail', '')}" for n, t in (("tj", tj_), ("numba", nb))
             if t["status"] != "ok"]  # fmt: skip
    return [
        row["key"], row["title"], time_cell(tj_.get("first")), time_cell(tj_.get("run")),
        time_cell(row["numpy"]), time_cell(nb.get("first")), time_cell(nb.get("run")),
        ratio_cell(row["numpy"], tj_.get("run")), ratio_cell(nb.get("run"), tj_.get("run")),
        " | ".join(notes)[:120],
    ]  # fmt: skip


def _warm_up(x):
    total = 0.0
    for i in range(x.shape[0]):
        total += x[i]
    return total
