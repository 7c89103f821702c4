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
  exactly after the call (Variables are reset to their initial value before each run);
* every argument equal exactly after the call (each run gets fresh copies of the inputs;
  a program may write into them, and NumPy's caller sees the writes);
* no `tj.LoopUnrolledWarning` in the trace with the inputs' shapes: the generator's index
  loops (`range(n)`, n > 32) are all stageable, so one unrolled means staging failed where
  it should not have (traced with unknown dims, a body may meet a documented limit of
  those and be unrolled instead, and a body assigning Python state or writing a NumPy array
  another name shares unrolls by design: their results are still compared);
* a result eager NumPy returns as a Python number (a loop variable initialised with a
  literal that stayed a weak scalar: the loop ran zero times or met no tensor): equal in
  value to the compiled 0-d result, whatever its dtype; where eager returns a NumPy value
  the dtype must be equal too (NEP 50: the literal promotes as a weak scalar).

Failures that are the contract (AutoGraph's), not findings:

* eager raises UnboundLocalError reading a variable a staged loop that ran zero times never
  assigned: the compiled function must raise `tj.errors.InvalidArgumentError` saying that
  loop "ran zero times", naming the same variable (`zero_trip_pairing`);
* a program whose last statement builds a container the contract refuses (named
  `vK_grows`: a list appended to in a staged loop; `vK_uneven`: a dict given a key, or a list
  appended to, in one branch of a staged if): every compiled run must refuse it while
  tracing, with a TypeError (loop) or ValueError (if) naming that container and the line
  of the staged loop or if
  (`expected_refusal`); a compiled run that accepts it is a finding.

Each compiled run lowers with `verify_each=True` (the IR verifies after every pass).
"""

from __future__ import annotations

import contextlib
import io
import math
import re
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import tracejit as tj
from tracejit.compiler.options import OPTIONS
from tracejit.frontend.api import tiered
from tracejit.frontend.api.concrete_function import ConcreteFunction
from tracejit.passes.pipeline import DEFAULT_PIPELINE, LOWERING_PIPELINE, PASSES
from tracejit.runtime.graph_interpreter import Plan


@contextlib.contextmanager
def verifying_each_pass() -> Iterator[None]:
    """driver.lower verifies after every pass within (compiler/options.py), naming the pass
    that broke the IR. Scoped, not set at import: pytest imports this module in every worker
    while collecting, and the rest of the suite verifies once per pipeline (conftest.py)."""
    before, OPTIONS.verify = OPTIONS.verify, "each"
    try:
        yield
    finally:
        OPTIONS.verify = before


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
    arguments: list[np.ndarray] | None = None  # the inputs after the call
    unrolled: list[str] | None = None  # LoopUnrolledWarning messages
    undefined_cast: bool = False  # NumPy converted a NaN / out-of-range float to an integer


@dataclass
class Finding:
    """A disagreement between eager NumPy and one compiled pipeline."""

    pipeline: tuple[str, ...]
    detail: str

    def __str__(self) -> str:
        return f"[{','.join(self.pipeline)}] {self.detail}"


class Mismatch(AssertionError):
    """Raised by `assert_agrees` so hypothesis shrinks the program."""


# A NaN, an infinity or an out-of-range float converted to an integer (`a_uint[()] //= i`
# computes in float64 when NumPy promotes uint64 with int64) is undefined in C: NumPy's
# answer is what the x86 instruction gives (2**63), the compiled one what LLVM's fptoui does
# (anything). A program whose reference run does that has no answer to compare against.
_UNDEFINED_CAST = "invalid value encountered in cast"


def run(program, namespace: dict, call) -> Outcome:
    """Reset the program's Variables, call `call(*inputs)` and capture what it prints."""
    for name, initial in program.variables.items():
        namespace[name]._buffer[...] = initial
    stdout = io.StringIO()
    outcome = Outcome(arguments=program.arguments())
    quiet = warnings.catch_warnings(record=True)
    errors = np.errstate(all="ignore", invalid="warn")  # "invalid value encountered in cast"
    with contextlib.redirect_stdout(stdout), errors, quiet as caught:
        warnings.simplefilter("ignore")
        warnings.simplefilter("always", tj.LoopUnrolledWarning)
        warnings.simplefilter("always", RuntimeWarning)
        try:
            outcome.result = call(*outcome.arguments)
        except Exception as error:  # compared, or reported
            outcome.error = error
    outcome.unrolled = [
        str(w.message)
        for w in caught
        if w.category is tj.LoopUnrolledWarning and not _BY_DESIGN.search(str(w.message))
    ]
    outcome.undefined_cast = any(_UNDEFINED_CAST in str(w.message) for w in caught)
    outcome.stdout = stdout.getvalue()
    outcome.variables = {n: namespace[n]._buffer.copy() for n in program.variables}
    return outcome


def compiled_runs(program, namespace: dict, optional_lists: list[list[str]]):
    """(pipeline, Outcome) for the default pipeline and each optional-pass list."""
    function = tj.function(namespace["program"])
    outcome = run(program, namespace, function)
    outcome.traced = function.experimental_get_tracing_count() > 0
    yield DEFAULT_PIPELINE, outcome
    if "python" not in program.arg_kinds:  # a Python number is static, not a tensor spec
        relaxed = _with_unknown_dims(namespace["program"], program)
        outcome = run(program, namespace, relaxed)
        outcome.traced = relaxed.experimental_get_tracing_count() > 0
        yield UNKNOWN_DIMS, outcome
    for name, unknown_dims in ((CALLED, False), (CALLED_UNKNOWN_DIMS, True)):
        if unknown_dims and "python" in program.arg_kinds:
            continue
        caller = _called_from_a_function(namespace["program"], program, unknown_dims)
        outcome = run(program, namespace, caller)
        outcome.traced = caller.experimental_get_tracing_count() > 0
        yield name, outcome
    if any(isinstance(a, float) for a in program.arguments()):
        yield AFTER_OTHER_SIGNS, _after_other_signs(program, namespace)
    try:
        base = function.get_concrete_function(*program.arguments())
    except Exception:
        return  # already reported by the default run
    interpreted = _interpreted_run(program, namespace, base)
    if interpreted is not None:
        yield INTERPRETED, interpreted
    for optional in optional_lists:
        pipeline = pipeline_with(optional)
        yield pipeline, run(program, namespace, _copy_of(base, program, pipeline))


def _copy_of(base: ConcreteFunction, program, pipeline: Any = None) -> ConcreteFunction:
    """A new ConcreteFunction of `base`'s trace (compiled with `pipeline`, if given)."""
    record = base.record
    arguments = (record.program, record.signature, record.names, record.arg_treedef)
    if pipeline is None:
        return ConcreteFunction(*arguments, program.arguments())
    return ConcreteFunction(*arguments, program.arguments(), pipeline=pipeline)


# The program as a tj.function called by another one, which passes its arguments through,
# with their sizes, or with every dim unknown (then only the caller's input_signature has
# them): the callee is traced inside the caller's trace, and its results take their dims
# from the caller's. Each returned a wrong answer before the fuzzer tried it: a result
# shaped like the first same-shaped argument (`b * 2` of an (n, 2) `a` and an (m, 2) `b`
# had n rows, past b's end), and `x[x > 0]` returned as its (address, size) descriptor.
CALLED = ("called-from-a-function", *DEFAULT_PIPELINE)
CALLED_UNKNOWN_DIMS = ("called-from-a-function-unknown-dims", *DEFAULT_PIPELINE)


def _called_from_a_function(python_function, program, unknown_dims: bool) -> tj.Function:
    callee = tj.function(python_function)

    def caller(*arguments):
        return callee(*arguments)

    if not unknown_dims:
        return tj.function(caller)
    signature = [tj.TensorSpec([None] * a.ndim, a.dtype) for a in program.inputs]
    return tj.function(caller, input_signature=signature)


# The first call as tiered execution answers it (frontend/api/tiered.py): on by default for
# users, off in the suite and the other runs here, so the interpreter gets its own run.
INTERPRETED = ("interpreted-first-call",)


def _interpreted_run(program, namespace, base: ConcreteFunction) -> Outcome | None:
    """A fresh copy of the trace called once with tiering on, for traces the interpreter
    takes (None for others); no compile is queued after it (that is the default run)."""
    concrete = _copy_of(base, program)
    if not isinstance(tiered._interpretable(concrete), Plan):
        return None
    previous = tj.config.tiered_compilation()
    enqueue = tiered._enqueue
    tj.config.set_tiered_compilation(True)
    tiered._enqueue = lambda job: False
    try:
        outcome = run(program, namespace, concrete)
    finally:
        tiered._enqueue = enqueue
        tj.config.set_tiered_compilation(previous)
    return None if concrete.is_compiled else outcome


# A Python number is part of the cache key (a static value): the compiled run after a call
# whose Python floats have the other signs must not reuse that call's trace where the two
# differ (0.0 and -0.0 are equal in Python, and `x / s` tells them apart).
AFTER_OTHER_SIGNS = ("after-other-signs", *DEFAULT_PIPELINE)


def _after_other_signs(program, namespace) -> Outcome:
    function = tj.function(namespace["program"])

    def flipped(*arguments):
        return function(*(-a if isinstance(a, float) else a for a in arguments))

    run(program, namespace, flipped)  # its result (or error) is not compared
    outcome = run(program, namespace, function)
    outcome.traced = function.experimental_get_tracing_count() > 0
    return outcome


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
# A pattern is searched in `str(finding)`: "[pipeline] detail".
KNOWN_BUGS: dict[str, re.Pattern[str]] = {
    # an entry is a name and a pattern of the finding ("[pipeline] detail"), e.g.
    # "dynamic-stack-ops": re.compile(r"on a tensor with unknown \(None\) dims"),
}


# Refusals the contract documents, with a message saying what to write instead: a compiled
# run that raises one where eager NumPy ran is not a finding (a refusal, not a wrong answer).
DOCUMENTED_REFUSALS: tuple[tuple[type[Exception], re.Pattern[str]], ...] = (
    # frontend/numpy_api/mutation.py: `np.ufunc(..., out=E)` into a NumPy array made from
    # Python values (the guide: the name cannot be rebound; write `E = np.ufunc(...)`)
    (TypeError, re.compile(r"needs a traced array as `out`")),
    # frontend/numpy_api/in_place.py: the same for np.copyto, np.put, np.fill_diagonal
    (TypeError, re.compile(r"writes into its first argument, which must be a traced array")),
    # frontend/autograph/builtins.py: such an array written or updated with a traced value
    # while another name or a view refers to it (the guide: copy it first;
    # regressions/test_fuzz_ce7c330405.py: `w = z[::-1]; w[-2::2] *= a1[-1]`)
    (TypeError, re.compile(r"is a constant of the trace that something else also refers to")),
    # frontend/staging/numpy_locals.py: such an array changed in staged control flow by a
    # method (`.fill`) or through a view, or through a traced copy another name would not
    # see (the guide; regressions/test_fuzz_6ad6e91a2c.py: `w.fill(False)` in a zero-trip loop)
    (NotImplementedError, re.compile(r"is changed in place inside a staged (loop|if) by code")),
    (NotImplementedError, re.compile(r"also refers to \(the same array, or a view sharing")),
    # the same after a staged loop or if that may leave a name on such an array, written then
    # (regressions/test_fuzz_53f31b8ea6.py: `x = v6; <zero-trip loop rebinding x>; x += x`)
    (ValueError, re.compile(r"may still be the NumPy array '\w+' refers to after the staged")),
    (
        NotImplementedError,
        re.compile(r"is changed in place after a staged \w+ that may leave '\w+' on the same"),
    ),
    # frontend/staging/views.py: `a.shape = s` of an array whose NumPy layout tracejit does
    # not follow (NumPy refuses it in another order than C; fuzz_mutation.in_place_reshape)
    (AttributeError, re.compile(r"NumPy may lay the array out in an order other than C")),
    # frontend/staging/control_flow.py: an array written in place (through any alias) and rebound
    # in one staged loop, which NumPy would write in the first trip only
    (NotImplementedError, re.compile(r"is changed in place and then assigned a new array")),
    # the same: a loop variable carried by value that refers to an array the loop writes in
    # place, read after the write (`c = a; while ...: a += 1; c = c - 1`)
    (NotImplementedError, re.compile(r"that a staged loop changes in place, and is read after")),
    # the same: a 0-d variable an array before a staged loop and a NumPy scalar after its
    # body (or the other way round), written where NumPy's write depends on the trip count
    (ValueError, re.compile(r"is a 0-d array before a staged (loop|if) and a NumPy scalar after")),
    # the same between the branches of a staged if (regressions/test_fuzz_7875a81f97.py)
    (ValueError, re.compile(r"is a 0-d array after one branch of a staged if and a NumPy scalar")),
    # docs/guide.md, "Non-strict execution": an index error in a staged if or loop inside a
    # try that handles it (NumPy runs the handler only when that code runs)
    (NotImplementedError, re.compile(r"in a staged if or loop inside a `try` that handles it")),
    # the same: an index the kernel checks (a traced index, a dim known only then) in a try
    # handling IndexError, whose handler the kernel cannot run
    (NotImplementedError, re.compile(r"checked when the kernel runs .* inside a `try` that")),
    # docs/guide.md, index loops: a window `x[i + a : i + b]` at a run-time index keeps its
    # static width, and the kernel checks that it fits where NumPy would make it shorter
    (IndexError, re.compile(r"a slice of \d+ elements starting at a run-time index reaches")),
    # docs/guide.md, slices that change size with the counter: a slice of run-time length 1
    # is not broadcast (regressions/test_fuzz_da11dbd688.py: `out[:i] += x[i:i + 1]`)
    (ValueError, re.compile(r"slices whose lengths are known only at run time differ in length")),
    # frontend/staging/views.py: a reshape of a view, or of an array NumPy may lay out in
    # another order than C (`x.T * 2`), is a view or a copy depending on the memory layout
    (ValueError, re.compile(r"writing into a reshape of a view \(a slice, transpose")),
    (NotImplementedError, re.compile(r"reading a reshape of a view \(a slice, transpose")),
    # frontend/staging/control_flow.py: a Python number in one branch of a staged if that the
    # other branch's dtype cannot hold as it is (`r = 2.75` against an int32 array)
    (TypeError, re.compile(r"in one branch of a staged if and a \w+ array in the other, which")),
    # the same, for a call passing a non-C-contiguous array whose reshape (or that of an array
    # computed element-wise from it) the trace relies on being a view (the guide)
    (
        tj.errors.InvalidArgumentError,
        re.compile(r"is not C-contiguous .*, and the function relies on its reshape being a view"),
    ),
)


def _documented_refusal(outcome: Outcome) -> bool:
    error = outcome.error
    return any(
        isinstance(error, kind) and pattern.search(str(error)) and _USER_LINE.search(str(error))
        for kind, pattern in DOCUMENTED_REFUSALS
    )


def known_bug(finding: Finding) -> str | None:
    for name, pattern in KNOWN_BUGS.items():
        if pattern.search(str(finding)):
            return name
    return None


def check(
    program,
    optional_lists: list[list[str]] = (),
    gradients: bool = False,
    verify_each: bool = True,
) -> list[Finding]:
    """All disagreements between eager NumPy and the compiled pipelines; with `gradients`,
    also the compiled gradient against finite differences (fuzz_gradients.py) when the
    forward runs agree. Every compiled run verifies the IR after each pass (with
    `verify_each`), else once at the end of each pipeline, as the rest of the suite does."""
    if not verify_each:
        return _check(program, optional_lists, gradients)
    with verifying_each_pass():
        return _check(program, optional_lists, gradients)


def _check(program, optional_lists: list[list[str]], gradients: bool) -> list[Finding]:
    namespace = program.build()
    eager = run(program, namespace, namespace["program"])
    unbound = isinstance(eager.error, UnboundLocalError)
    if eager.error is not None and not unbound:
        return [Finding(("eager",), f"the reference raised {eager.error!r}")]
    if eager.undefined_cast:
        return []  # no defined answer (see _UNDEFINED_CAST)
    refusals = list(dict.fromkeys(REFUSED_CONTAINER.findall(program.source())))
    findings = []
    for pipeline, outcome in compiled_runs(program, namespace, list(optional_lists)):
        unknown_dims = pipeline in (UNKNOWN_DIMS, CALLED_UNKNOWN_DIMS)
        if unknown_dims and _limit_of_unknown_dims(outcome):
            continue
        if _documented_refusal(outcome):
            continue
        if unknown_dims:
            outcome.unrolled = []  # unrolled at a limit of unknown dims: results compared
        if unbound:
            detail = zero_trip_pairing(outcome, eager)
        elif refusals:
            detail = expected_refusal(program, outcome, refusals)
        else:
            detail = compare_outcomes(program, outcome, eager)
        if detail:
            findings.append(Finding(pipeline, detail))
    if gradients and not findings and not unbound and not refusals:
        from fuzz_gradients import gradient_check

        _, detail = gradient_check(program)
        if detail:
            findings.append(Finding(("value_and_grad",), detail))
    return findings


# --- failures the contract prescribes ----------------------------------------------------------
_QUOTED = re.compile(r"'(\w+)'")


def zero_trip_pairing(compiled: Outcome, eager: Outcome) -> str | None:
    """Eager raised UnboundLocalError (a variable a staged loop never assigned, the loop ran
    zero times): the compiled run must raise InvalidArgumentError for the same variable --
    or NumPy's own error, when the loop was not staged (it iterated a NumPy array made from
    Python values, which the trace iterates as Python does: regressions/test_fuzz_6804f0415a)."""
    error = compiled.error
    if isinstance(error, UnboundLocalError) and str(error).startswith(str(eager.error)):
        return None
    variable = _QUOTED.search(str(eager.error))
    expected = f"'{variable.group(1) if variable else '?'}' is read after the staged loop at "
    if (
        isinstance(error, tj.errors.InvalidArgumentError)
        and expected in str(error)
        and "ran zero times" in str(error)
    ):
        return None
    got = "returned" if error is None else f"raised {type(error).__name__}: {str(error)[:1000]}"
    return f"eager raised UnboundLocalError ({eager.error}); compiled {got}"


# Containers the generator builds so that the contract refuses them at trace time
# (fuzz_programs.refused_state), and the refusals' messages.
REFUSED_CONTAINER = re.compile(r"\b(v\d+_(?:grows|uneven))\b")
REFUSALS = {  # TensorFlow's types: TypeError for a loop variable's structure change
    "grows": (TypeError, r"changes its structure inside the staged loop at", ("for ", "while ")),
    "uneven": (
        ValueError,
        r"has a different structure in the two branches of the staged if at",
        ("if ",),
    ),
}


def expected_refusal(program, compiled: Outcome, containers: list[str]) -> str | None:
    """The program ends with a container the contract refuses: the compiled run must raise
    (TypeError for a loop, ValueError for an if) while tracing, naming the container and the
    user's line that stages the loop or if changing it (`file.py:N` of the generated
    program)."""
    error = compiled.error
    text = str(error)
    for container in containers:
        kind, message, headers = REFUSALS[container.rsplit("_", 1)[1]]
        found = re.search(rf"'{container}' {message} (\S+\.py):(\d+) ", text)
        if (
            type(error) is kind
            and not compiled.traced
            and found is not None
            and _stages(program, found.group(1), int(found.group(2)), headers, container)
        ):
            return None
    got = "returned" if error is None else f"raised {type(error).__name__}: {text[:1000]}"
    return f"expected the refusal of {', '.join(containers)} at trace time; compiled {got}"


def _stages(program, filename: str, line: int, headers: tuple[str, ...], container: str) -> bool:
    """Whether `filename:line` is the generated program's line staging a loop or an if
    (`headers`) whose body changes `container`."""
    text = program.source()
    lines = text.splitlines()
    if Path(program.filename()).name != filename or not 1 <= line <= len(lines):
        return False
    header = lines[line - 1]
    indent = len(header) - len(header.lstrip())
    body = []
    for following in lines[line:]:
        if len(following) - len(following.lstrip()) <= indent:
            break
        body.append(following)
    return header.lstrip().startswith(headers) and any(container in b for b in body)


def assert_agrees(program, optional_lists: list[list[str]] = (), gradients: bool = False) -> None:
    """A regression's replay (tests/fuzz/regressions): the IR is verified at the end of each
    pipeline only, which halves the replay's time. Invalid IR still fails the test; the
    fuzzer, which finds new bugs, verifies after every pass to name the one that broke it."""
    findings = check(program, optional_lists, gradients, verify_each=False)
    if findings:
        raise Mismatch("\n".join(map(str, findings)) + "\n\n" + program.source())


# A loop whose body assigns Python state (`c.n += 1`: fuzz_programs.attribute_loop) unrolls by
# design, as TensorFlow's does: its results are compared, its warning is no finding.
_PYTHON_STATE = re.compile(r"its body assigns .*, Python state a compiled loop would change")
# Loops unrolled by design (the warning says what to write to stage them): a body assigning
# Python state, or writing into a NumPy array another name also refers to (a traced copy
# would leave that name's array unchanged; regressions/test_fuzz_217bfd3e1a.py), or writing
# a variable in place and then rebinding it while something else sees its array from before
# the loop (fuzz_programs.shrinking_loop; not a swap, which is staged two trips at a time)
_BY_DESIGN = re.compile(
    _PYTHON_STATE.pattern
    + r"|is a NumPy array that '\w+' also refers to .* a staged loop changes"
    + r"|is changed in place and then assigned a new array inside a staged loop, and "
    + r"(?!'\w+' \(swapped|the loop \()"
)


def compare_outcomes(program, compiled: Outcome, eager: Outcome) -> str | None:
    if compiled.error is not None:
        error = compiled.error
        return f"compiled raised {type(error).__name__}: {str(error)[:2000]}"
    if compiled.unrolled:
        return f"an index loop was unrolled: {compiled.unrolled[0][:1000]}"
    if compiled.stdout != eager.stdout:
        return f"printed {compiled.stdout!r}, eager printed {eager.stdout!r}"
    for k, (c, e) in enumerate(zip(compiled.arguments or [], eager.arguments or [], strict=True)):
        problem = compare_arrays(c, e, None)
        if problem:
            return f"argument a{k} after the call: {problem}"
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
    if type(eager) in (bool, int, float):
        return _compare_number(np.asarray(compiled), eager)
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


def _compare_number(c: np.ndarray, eager: bool | int | float) -> str | None:
    """A Python number eagerly (a literal never converted): the compiled value equal (the
    same number, NaN for NaN, the sign of a zero), its dtype not compared."""
    if c.shape != () or c.dtype.kind not in "biuf":
        return f"dtype/shape {c.dtype}{c.shape} != eager Python {type(eager).__name__} {eager!r}"
    value = c.item()
    if math.isnan(eager) and math.isnan(value):
        return None
    same = value == eager and math.copysign(1, value) == math.copysign(1, eager)
    return None if same else f"compiled {c.dtype} {value!r} vs eager Python {eager!r}"


def _first(bad: np.ndarray, c: np.ndarray, e: np.ndarray, note: str = "") -> str:
    index = tuple(int(i) for i in np.argwhere(bad)[0]) if bad.ndim else ()
    return (
        f"{int(bad.sum())} element(s) differ, first at {index}: "
        f"compiled {c[index]!r} vs eager {e[index]!r}{note}"
    )
