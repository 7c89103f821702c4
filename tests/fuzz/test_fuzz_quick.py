"""The quick fuzzing profile `make test` runs: random NumPy programs, compiled vs eager.

Each example is one traced function of 4-14 random statements returning every value
(one compile checks many expressions), run eagerly, compiled with the default pipeline
and compiled with a random list of the optional tensor passes before the lowering passes
(IR verified after every pass); then a few of fuzz_nesting's nested staged loops, of
fuzz_slices' loops slicing with their counter and of fuzz_layers' Python loops over lists of
layers, and checks that each generator keeps producing every kind of program it is meant to.
Derandomized, so CI sees the same programs every run; `make fuzz N=...` (run_fuzz.py)
explores with fresh seeds. A failure is shrunk by hypothesis and written to `regressions/`
as a test to commit.
"""

from __future__ import annotations

import contextlib
import io
import re
import warnings
from contextlib import redirect_stdout

import numpy as np
from fuzz_layers import layer_programs
from fuzz_nesting import nested_programs
from fuzz_oracle import OPTIONAL_PASSES, Mismatch, check, known_bug
from fuzz_programs import programs
from fuzz_regressions import Recorder
from fuzz_slices import slice_programs
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

QUICK_EXAMPLES = 11  # `make fuzz` explores further; 38 cost ~55 s of the 10-minute suite
NESTED_EXAMPLES = 8  # fuzz_nesting's programs (nested staged loops): ~0.3 s each
SLICE_EXAMPLES = 8  # fuzz_slices' programs (loops slicing with their counter): ~0.3 s each
# fuzz_layers' programs (Python loops over lists of layers, unrolled): ~2.5 s each, their
# traces being long (up to 6 copies of a layer; IR verified once per pipeline, not per pass)
LAYER_EXAMPLES = 5
RECORDER = Recorder()


@settings(
    max_examples=QUICK_EXAMPLES,
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
)
@given(
    program=programs(),
    optional=st.lists(st.sampled_from(OPTIONAL_PASSES), max_size=4),
)
def _fuzz(program, optional):
    findings = check(program, [optional])
    if findings and all(known_bug(f) for f in findings):
        return  # an open bug with its own (strict xfail) regression test, as in run_fuzz.py
    if findings:
        message = "\n".join(map(str, findings))
        RECORDER.failed(program, [optional], message)
        raise Mismatch(message + "\n\n" + program.source())


@settings(
    max_examples=NESTED_EXAMPLES,
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
)
@given(program=nested_programs())
def _fuzz_nested(program):
    findings = check(program, [])
    if findings and not all(known_bug(f) for f in findings):
        message = "\n".join(map(str, findings))
        RECORDER.failed(program, [[]], message)
        raise Mismatch(message + "\n\n" + program.source())


def test_fuzz_nested_quick():
    """Nested staged loops over NumPy scalar, Python, 0-d and 1-d arguments (fuzz_nesting)."""
    try:
        _fuzz_nested()
    except Mismatch as error:
        path = RECORDER.save()
        raise AssertionError(f"shrunk failing program saved as {path}") from error


@settings(
    max_examples=SLICE_EXAMPLES,
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
)
@given(program=slice_programs())
def _fuzz_slices(program):
    findings = check(program, [])
    if findings and not all(known_bug(f) for f in findings):
        message = "\n".join(map(str, findings))
        RECORDER.failed(program, [[]], message)
        raise Mismatch(message + "\n\n" + program.source())


def test_fuzz_slices_quick():
    """Loops slicing with their counter: prefixes, windows, triangular nests, CSR rows."""
    try:
        _fuzz_slices()
    except Mismatch as error:
        path = RECORDER.save()
        raise AssertionError(f"shrunk failing program saved as {path}") from error


@settings(
    max_examples=LAYER_EXAMPLES,
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
)
@given(program=layer_programs())
def _fuzz_layers(program):
    # Verifying the IR after every pass would double the time of these long traces (as a
    # regression's replay does, each pipeline's result is verified); run_fuzz.py verifies each.
    findings = check(program, [], verify_each=False)
    if findings and not all(known_bug(f) for f in findings):
        message = "\n".join(map(str, findings))
        RECORDER.failed(program, [[]], message)
        raise Mismatch(message + "\n\n" + program.source())


def test_fuzz_layers_quick():
    """Python loops over lists of arrays or floats, unrolled: repeated loop nests."""
    try:
        _fuzz_layers()
    except Mismatch as error:
        path = RECORDER.save()
        raise AssertionError(f"shrunk failing program saved as {path}") from error


# Tags fuzz_slices must keep producing (Program.kinds "slice:..."): every family, loop
# header, slice form and the sizes around the unroll limit.
SLICE_TAGS = [
    "reduce", "triangular", "prefix_update", "csr", "rows", "rebind", "block",
    "header range(shape)", "header range(len)", "header tj.range", "header enumerate",
    "header enumerate rows", "header rows own counter",
    "form prefix", "form suffix", "form window", "form negative bound", "form reversed",
    "form middle", "form step", "form shifted pair", "header while",
    "reduction dot", "reduction sum", "reduction mean", "reduction of elementwise",
    "write item", "write total", "write slice", "write cumsum", "gather", "scatter",
    "argument written",
    "n=0", "n=1", "n=8", "n=9", "n>9", "int32", "int64", "float32", "float64",
]  # fmt: skip
SLICES_SEEN: set[str] = set()


@settings(max_examples=600, deadline=None, database=None, derandomize=True,
          suppress_health_check=list(HealthCheck))  # fmt: skip
@given(program=slice_programs())
def _generate_slices(program):
    SLICES_SEEN.update(k.removeprefix("slice:") for k in program.kinds)


def test_slices_generator_produces_every_tag():
    _generate_slices()
    missing = sorted(set(SLICE_TAGS) - SLICES_SEEN)
    assert not missing, f"never generated: {missing}"
    assert not [t for t in SLICES_SEEN if "," in t]  # run_fuzz.py splits kinds at commas


# Tags fuzz_nesting must keep producing (Program.kinds "shape:..."): the shapes issue 35
# point 7 found the fuzzer blind to (run_fuzz.py prints how often each one is drawn).
NESTED_SHAPES = [
    "depth 1", "depth 2", "depth 3",
    "while loop at L1", "tj.range loop at L1", "range loop at L1", "rows loop at L1",
    "loops while > while", "while test a Python value before its first trip at L1",
    "first assigned at L0", "first assigned at L1", "first assigned at L2",
    "L0 variable written at L2", "L1 variable written at L2",
    "augmented assignment of an argument (alias) at L1",
    "augmented assignment of an argument (alias) at L2",
    "break at L1", "break at L2", "continue at L1",
    "return at L1", "return at L2", "loop in an if at L1",
    "argument numpy 0-d int32", "argument numpy 0-d float64", "argument python 0-d int64",
    "argument python 0-d float32", "argument array 0-d int64", "argument array 1-d float32",
]  # fmt: skip
NESTED_SEEN: set[str] = set()


@settings(max_examples=200, deadline=None, database=None, derandomize=True,
          suppress_health_check=list(HealthCheck))  # fmt: skip
@given(program=nested_programs())
def _generate_nested(program):
    NESTED_SEEN.update(k.removeprefix("shape:") for k in program.kinds)


def test_nesting_generator_produces_every_shape():
    _generate_nested()
    missing = sorted(set(NESTED_SHAPES) - NESTED_SEEN)
    assert not missing, f"never generated: {missing}"


# Tags fuzz_layers must keep producing (Program.kinds "layer:..."): every loop form, the
# float lists' -0.0 and infinities, views, op, reduction, separator and update, the sizes.
LAYER_TAGS = [
    "over arrays", "over scalars", "over zip arrays", "over zip arrays scalars",
    "over enumerate", "over named", "python float arguments", "-0.0 in the list",
    "inf in the list", "one value in the list",
    "view plain", "view strided", "view reversed", "view copy", "view transposed",
    "view fortran", "view strided rows", "weights full", "weights row", "weights column",
    "weights strided", "weights fortran", "special values",
    "op multiply", "op add", "op divide", "op maximum", "op where", "op comparison",
    "op tanh", "op exp", "op floor_divide", "op remainder", "op abs",
    "reduction mean", "reduction sum", "reduction max", "reduction min",
    "separator sort rows", "separator sort columns", "separator minus row max",
    "separator minus row min", "separator row scale", "separator cumsum",
    "separator minus column mean", "separator mean square scale", "separator running total",
    "no separator", "update residual", "update residual scaled", "update replace",
    "update gated", "update in place", "update residual modulo", "update residual floor_divide",
    "steps 2", "steps 3", "steps 4", "steps 5", "steps 6",
    "1-d", "2-d", "small", "empty", "exact", "approximate", "steps kept apart",
    "int32", "int64", "float32", "float64",
]  # fmt: skip
LAYERS_SEEN: set[str] = set()


@settings(max_examples=400, deadline=None, database=None, derandomize=True,
          suppress_health_check=list(HealthCheck))  # fmt: skip
@given(program=layer_programs())
def _generate_layers(program):
    LAYERS_SEEN.update(k.removeprefix("layer:") for k in program.kinds)


def test_layers_generator_produces_every_tag():
    _generate_layers()
    missing = sorted(set(LAYER_TAGS) - LAYERS_SEEN)
    assert not missing, f"never generated: {missing}"
    assert not [t for t in LAYERS_SEEN if "," in t]  # run_fuzz.py splits kinds at commas


def test_optional_passes_are_the_tensor_passes():
    """Every optional tensor pass is fuzzed in random subsets (a renamed pass must not
    silently drop out of the fuzzer)."""
    assert set(OPTIONAL_PASSES) == {
        "canonicalize", "constant-fold", "cse", "dce", "fuse-elementwise", "inline",
    }  # fmt: skip


# Source fragments each statement kind leaves in a program: the generator must keep
# producing every kind (a builder whose statements NumPy always rejects would vanish).
FEATURES = {
    "staged if": "\n    if ",
    "tj.cond": "tj.cond(",
    "while": "while ",
    "staged for": " in tj.range(",
    "for over rows": re.compile(r"for v\d+_[ir] in [av]\d+:"),
    "TensorArray": "tj.TensorArray(",
    "Variable": "tj.Variable(",
    "tj.print": "tj.print(",
    "matmul": "@",
    "index error caught": re.compile(r"except (IndexError|Exception):"),
    "reduction": "axis=",
    "take": "np.take(",
    # AutoGraph conformance: Python state in staged control flow
    "container in staged if": re.compile(r"v\d+_[dl] = .*\n(    v\d+_alias = .*\n)?    if "),
    "container in staged loop": re.compile(r"v\d+_[dl] = .*\n(    .*\n)?    (while|for) "),
    "container in unrolled loop": re.compile(r"for v\d+_i in range\(\d\):\n        if "),
    "container alias": "_alias = ",
    "container item changed in place": re.compile(r"\] [-+*|/]+= "),
    "pop and re-insert": ".pop(",
    "literal loop variable": re.compile(r"\n    (v\d+) = (0|1|0\.0)\n(.*\n){1,2}        \1 = \1 "),
    "variable first assigned in a loop": re.compile(r"\n    v\d+ = v\d+_[tir]\b"),
    "read after a zero-trip loop": lambda program: _raises(program, UnboundLocalError),
    "refused by the contract": re.compile(r"_grows\.append\(|_uneven"),
    # Mutation (fuzz_mutation.py): writes, views, arguments, index loops, new functions
    "write into an argument": re.compile(r"\n    a\d+(\[.*\])? [-+*/|&^%]?= "),
    "write through a view": re.compile(r"\n    (v\d+_w) = .*\n(    .*\n)*?    +\1[\[ .]"),
    "augmented item write": re.compile(r"\n +[av]\d+(_w|_z)?\[.*\] [-+*/|&^%]+= "),
    "masked write": re.compile(r"\[[^\]\n]*(>|==|!=|isnan)[^\]\n]*\] = "),
    "index array write": re.compile(r"\[\[-?\d[^\n]*\] = "),
    "ufunc out=": "out=",
    "fill": ".fill(",
    "array made in the function": re.compile(r"_z = np\.(zeros|ones|full|empty)"),
    "write in a staged if": re.compile(r"\n    if .*:\n        [av]\d+(_w)?\["),
    "write in a staged loop": re.compile(
        r"\n    (for|while) .*:\n(        .*\n)*?        [av]\d+(_w)?\["
    ),
    "rows of a view written": re.compile(r"for (v\d+_r) in [av]\d+(_w)?:\n        \1[\[ .]"),
    "index loop": re.compile(r"for v\d+_i in range\((1, )?\d\d\):"),
    "nested index loops": re.compile(r"for v\d+_j in range\(\d\d\):"),
    "cumsum": "np.cumsum(",
    "sort": re.compile(r"np\.(arg)?sort\("),
    "roll": "np.roll(",
    "mask reduction": re.compile(r"[av]\d+\[([av]\d+ > 0|[av]\d+)\](\)|\.sum\(\))"),
    "nonzero": re.compile(r"np\.(nonzero|flatnonzero|argwhere)\("),
    "NumPy array changed in staged control flow": re.compile(
        r"(v\d+)_z = np\.(arange|eye|array)\(.*\n    \1_w = "
    ),
    "arrays swapped in an index loop": re.compile(r"(v\d+_p), (v\d+_q)(, v\d+_r)? = \2"),
    "name rebound in staged control flow": re.compile(r"(v\d+_x) = [av]\d+\n    (if|for) "),
    # NumPy's numerical library (fuzz_library.py)
    "np.linalg": "np.linalg.",
    "quantile or cov": re.compile(r"np\.(median|quantile|percentile|cov)\("),
    "histogram or counting": re.compile(r"np\.(bincount|histogram|searchsorted|digitize|unique)"),
    "np.fft": "np.fft.",
}
SEEN: set[str] = set()


def _raises(program, error: type[Exception]) -> bool:
    """Whether the program, run eagerly (plain NumPy), raises `error`."""
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"), redirect_stdout(io.StringIO()):
            warnings.simplefilter("ignore")
            program.build()["program"](*program.inputs)
    except error:
        return True
    except Exception:
        return False
    return False


class _EveryKindSeen(Exception):
    """Ends `_generate` early: the rest of its 1,500 programs would only cost time."""


# Only the generate phase: the exception that ends the search early is not to be shrunk.
@settings(max_examples=1500, deadline=None, database=None, derandomize=True,
          phases=[Phase.generate], suppress_health_check=list(HealthCheck))  # fmt: skip
@given(program=programs())
def _generate(program):
    source = program.source()
    for feature, fragment in FEATURES.items():
        if isinstance(fragment, re.Pattern):
            found = fragment.search(source)
        elif callable(fragment):
            found = feature not in SEEN and fragment(program)
        else:
            found = fragment in source
        if found:
            SEEN.add(feature)
    if set(FEATURES) == SEEN:
        raise _EveryKindSeen


def test_generator_produces_every_statement_kind():
    with contextlib.suppress(_EveryKindSeen):
        _generate()
    assert set(FEATURES) == SEEN, f"never generated: {sorted(set(FEATURES) - SEEN)}"


def test_fuzz_quick():
    try:
        _fuzz()
    except Mismatch as error:
        path = RECORDER.save()
        raise AssertionError(f"shrunk failing program saved as {path}") from error
