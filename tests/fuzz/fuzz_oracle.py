"""The differential oracle: run a generated program eagerly (the reference) and compiled
under the default pipeline and other pass pipelines, and compare.

Comparison (documented bound):

* dtypes and shapes equal; ints and bools equal exactly;
* *exact* floats (see `fuzz_programs`): equal element for element, NaN positions equal,
  and the sign of every zero equal;
* *approximate* floats: NaN positions and ±inf positions equal, and every finite element
  within `err + 4 eps |eager| + 16 tiny`, where `err` is the absolute bound the generator
  carried along the value's history (reductions: `2 k eps sum|x|`, the textbook bound for
  any summation order, doubled since both sides round; transcendentals: 8 ulp of the
  result, twice what `passes/expand_math.py` measured);
* captured stdout (`tj.print`) equal character for character; every `tj.Variable` equal
  exactly after the call (Variables are reset to their initial value before each run).

Each compiled run lowers with `verify_each=True` (the IR verifies after every pass).
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

import tracejit as tj
from tracejit.frontend.concrete_function import ConcreteFunction
from tracejit.passes.pipeline import DEFAULT_PIPELINE, LOWERING_PIPELINE, PASSES

os.environ["TRACEJIT_VERIFY_EACH"] = "1"  # driver.lower verifies after every pass

# The tensor-level passes a pipeline may run in any number, subset and order before lowering.
OPTIONAL_PASSES = [
    name
    for name in ("canonicalize", "cse", "dce", "inline", "constant-fold", "fuse-elementwise")
    if name in PASSES
]


def pipeline_with(optional: list[str]) -> tuple[str, ...]:
    return tuple(optional) + LOWERING_PIPELINE


@dataclass
class Outcome:
    result: Any = None
    error: BaseException | None = None
    stdout: str = ""
    variables: dict[str, np.ndarray] | None = None
    traced: bool = True  # False: the error came from tracing (the Python function)


@dataclass
class Finding:
    """A disagreement between eager NumPy and one compiled pipeline."""

    pipeline: tuple[str, ...]
    detail: str

    def __str__(self) -> str:
        return f"[{','.join(self.pipeline)}] {self.detail}"


class Mismatch(AssertionError):
    """Raised by `assert_agrees` so hypothesis shrinks the program."""


def run(program, namespace: dict, call) -> Outcome:
    """Reset the program's Variables, call `call(*inputs)` and capture what it prints."""
    for name, initial in program.variables.items():
        namespace[name]._buffer[...] = initial
    stdout = io.StringIO()
    outcome = Outcome()
    quiet = warnings.catch_warnings()
    with contextlib.redirect_stdout(stdout), np.errstate(all="ignore"), quiet:
        warnings.simplefilter("ignore")
        try:
            outcome.result = call(*[a.copy() for a in program.inputs])
        except Exception as error:  # compared, or reported
            outcome.error = error
    outcome.stdout = stdout.getvalue()
    outcome.variables = {n: namespace[n]._buffer.copy() for n in program.variables}
    return outcome


def compiled_runs(program, namespace: dict, optional_lists: list[list[str]]):
    """(pipeline, Outcome) for the default pipeline and each optional-pass list."""
    function = tj.function(namespace["program"])
    yield DEFAULT_PIPELINE, run(program, namespace, function)
    relaxed = _with_unknown_dims(namespace["program"], program)
    outcome = run(program, namespace, relaxed)
    outcome.traced = relaxed.experimental_get_tracing_count() > 0
    yield UNKNOWN_DIMS, outcome
    if not optional_lists:
        return
    try:
        base = function.get_concrete_function(*program.inputs)
    except Exception:
        return  # already reported by the default run
    for optional in optional_lists:
        pipeline = pipeline_with(optional)
        concrete = ConcreteFunction(
            base._program,
            base._signature,
            base._names,
            base._arg_treedef,
            list(program.inputs),
            pipeline=pipeline,
        )
        yield pipeline, run(program, namespace, concrete)


# The same program traced for inputs whose every dim is unknown (`TensorSpec([None, ...])`).
# What tracejit does not support there (a reshape without -1, broadcasting such a dim from
# 1, ...) raises NotImplementedError at trace time or InvalidArgumentError at the call, and
# a program may only be valid for its sizes (a loop whose shape is kept because a size is 1
# gets a TypeError naming the user's line when traced without sizes, as in TensorFlow):
# these are documented limits, not findings. Anything else (an error without the user's
# line, a compile error, a crash) and any result it returns are checked.
UNKNOWN_DIMS = ("unknown-dims", *DEFAULT_PIPELINE)
UNSUPPORTED_WITH_UNKNOWN_DIMS = (NotImplementedError, tj.errors.InvalidArgumentError)
REFUSED_WHILE_TRACING = (TypeError, ValueError)
_USER_LINE = re.compile(r"\(\S+\.py:\d+\)$")


def _limit_of_unknown_dims(outcome: Outcome) -> bool:
    error = outcome.error
    if isinstance(error, UNSUPPORTED_WITH_UNKNOWN_DIMS):
        return True
    refused = not outcome.traced and isinstance(error, REFUSED_WHILE_TRACING)
    return refused and bool(_USER_LINE.search(str(error)))


def _with_unknown_dims(python_function, program) -> tj.Function:
    signature = [tj.TensorSpec([None] * a.ndim, a.dtype) for a in program.inputs]
    return tj.function(python_function, input_signature=signature)


# Open bugs owned elsewhere, recognised by their message so a long run keeps finding *new*
# bugs instead of stopping every batch at the same one. Each has a regression test in
# regressions/ (strict xfail) and is counted and printed separately by run_fuzz.py.
KNOWN_BUGS: dict[str, re.Pattern[str]] = {
    # none open; an entry is a name and a pattern of the finding's message, e.g.
    # "dynamic-stack-ops": re.compile(r"on a tensor with unknown \(None\) dims"),
}


def known_bug(finding: Finding) -> str | None:
    for name, pattern in KNOWN_BUGS.items():
        if pattern.search(finding.detail):
            return name
    return None


def check(program, optional_lists: list[list[str]] = ()) -> list[Finding]:
    """All disagreements between eager NumPy and the compiled pipelines."""
    namespace = program.build()
    eager = run(program, namespace, namespace["program"])
    if eager.error is not None:
        return [Finding(("eager",), f"the reference raised {eager.error!r}")]
    findings = []
    for pipeline, outcome in compiled_runs(program, namespace, list(optional_lists)):
        if pipeline == UNKNOWN_DIMS and _limit_of_unknown_dims(outcome):
            continue
        detail = compare_outcomes(program, outcome, eager)
        if detail:
            findings.append(Finding(pipeline, detail))
    return findings


def assert_agrees(program, optional_lists: list[list[str]] = ()) -> None:
    findings = check(program, optional_lists)
    if findings:
        raise Mismatch("\n".join(map(str, findings)) + "\n\n" + program.source())


def compare_outcomes(program, compiled: Outcome, eager: Outcome) -> str | None:
    if compiled.error is not None:
        error = compiled.error
        return f"compiled raised {type(error).__name__}: {str(error)[:2000]}"
    if compiled.stdout != eager.stdout:
        return f"printed {compiled.stdout!r}, eager printed {eager.stdout!r}"
    for name in program.variables:
        problem = compare_arrays(compiled.variables[name], eager.variables[name], None)
        if problem:
            return f"Variable {name}: {problem}"
    if not isinstance(compiled.result, dict) or compiled.result.keys() != eager.result.keys():
        return f"result structure {compiled.result!r} != {eager.result!r}"
    for name, err in program.outputs.items():
        problem = compare_arrays(compiled.result[name], eager.result[name], err)
        if problem:
            return f"{name}: {problem}"
    return None


def compare_arrays(compiled: Any, eager: Any, err: float | None) -> str | None:
    """None if `compiled` matches `eager` within the documented bound, else why not."""
    c, e = np.asarray(compiled), np.asarray(eager)
    if c.dtype != e.dtype or c.shape != e.shape:
        return f"dtype/shape {c.dtype}{c.shape} != eager {e.dtype}{e.shape}"
    if e.dtype.kind != "f":
        bad = c != e
        return _first(bad, c, e) if bad.any() else None
    nan_c, nan_e = np.isnan(c), np.isnan(e)
    if (nan_c != nan_e).any():
        return "NaN positions differ: " + _first(nan_c != nan_e, c, e)
    if err is None:
        with np.errstate(invalid="ignore"):
            bad = ~nan_e & ((c != e) | (np.signbit(c) != np.signbit(e)))
        return _first(bad, c, e) if bad.any() else None
    inf_e = np.isinf(e)
    with np.errstate(invalid="ignore"):
        bad_inf = (np.isinf(c) != inf_e) | (inf_e & (c != e))
    if bad_inf.any():
        return "inf positions differ: " + _first(bad_inf, c, e)
    finite = ~nan_e & ~inf_e
    info = np.finfo(e.dtype)
    c64, e64 = c.astype(np.float64), e.astype(np.float64)
    allowed = err + 4 * float(info.eps) * np.abs(e64) + 16 * float(info.tiny)
    with np.errstate(invalid="ignore"):
        bad = finite & ~(np.abs(c64 - e64) <= allowed)
    return _first(bad, c, e, f" (bound {err:.3g})") if bad.any() else None


def _first(bad: np.ndarray, c: np.ndarray, e: np.ndarray, note: str = "") -> str:
    index = tuple(int(i) for i in np.argwhere(bad)[0]) if bad.ndim else ()
    return (
        f"{int(bad.sum())} element(s) differ, first at {index}: "
        f"compiled {c[index]!r} vs eager {e[index]!r}{note}"
    )
