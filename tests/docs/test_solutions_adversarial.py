"""The exercise solutions (docs/tutorial/solutions/) against NumPy on adversarial inputs.

`test_docs.py` runs each solution, which checks itself on its chapter's example. Here what a
solution computes meets the inputs that break rewrites and lowerings: every dtype, 0-d and
empty arrays, NaN, inf and -0.0, subnormals, integer extremes and overflow, exp's overflow
and underflow thresholds, reductions over nothing. A solution must never teach a rewrite that
changes a result NumPy defines: the first edition's cast-of-cast rule (`np.can_cast(S, T1,
"safe")`) compiled `x.astype(np.float64).astype(np.int64)` of 2**53 + 1 to 2**53 + 1, where
NumPy gives 2**53; the cast tests below run the solution's pass on every dtype triple.

Integers and bools must match exactly, floats bit for bit where the code is exact in IEEE
arithmetic (casts, a * x + y, x * 1, x + 1) and else within a few ulp (exp) or a relative
tolerance (sums, softmax, matmul), with NaN where NumPy has NaN and the same infinities.
A float -> int cast of NaN, inf or a value out of the conversion's range is undefined (in C,
in NumPy, in tracejit: tests/numpy/test_elementwise.py); such elements are not compared.
`//` and `%` occur only in chapter 06's Collatz loops, which never end for a negative start
(in NumPy either), so they meet positive values only (up to 2**62).
"""

from __future__ import annotations

import contextlib
import functools
import io
import os
import runpy
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

import tracejit as tj
from tracejit.ir.elementwise import CastOp
from tracejit.passes.pipeline import DEFAULT_PIPELINE, PASSES, Pipeline

# Calling one solution function on every dtype retraces it on purpose.
pytestmark = pytest.mark.filterwarnings("ignore:.*triggered tj.function retracing")

REPO_ROOT = Path(__file__).resolve().parent.parent.parent
SOLUTIONS = REPO_ROOT / "docs" / "tutorial" / "solutions"
if str(SOLUTIONS) not in sys.path:  # as when a solution runs as a script: course_checks.py
    sys.path.insert(0, str(SOLUTIONS))

DTYPES = [
    np.dtype(name)
    for name in (
        "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
        "float16", "float32", "float64",
    )
]  # fmt: skip
FLOATS = [d for d in DTYPES if d.kind == "f"]
COMPLEX = [np.dtype("complex64"), np.dtype("complex128")]


@functools.cache
def solution(stem: str) -> dict:
    """The names a solution defines, after running it (it checks itself and prints ok)."""
    previous = os.getcwd()
    os.chdir(REPO_ROOT)
    try:
        with contextlib.redirect_stdout(io.StringIO()) as out:
            names = runpy.run_path(str(SOLUTIONS / f"{stem}.py"), run_name=f"_solution_{stem}")
    finally:
        os.chdir(previous)
    assert "ok" in out.getvalue().split()
    return names


def edge_values(dtype: np.dtype) -> np.ndarray:
    """The values of `dtype` that break casts and arithmetic: 0, +-1, the extremes, the
    integers just past each float's significand (2**11 + 1, 2**24 + 1, 2**53 + 1), 2**31,
    2**63 - 1, -2**63, 2**64 - 1; for floats also halves, NaN, +-inf, -0.0, the smallest
    subnormal and normal, and values around the integer types' limits."""
    if dtype.kind == "b":
        return np.array([False, True])
    if dtype.kind == "c":  # every pair of special parts: (inf, nan), (-0.0, -1), ...
        parts = edge_values(np.dtype(f"float{dtype.itemsize * 4}"))[:20]
        values = np.empty((len(parts), len(parts)), dtype)  # parts set exactly: no 1j * inf
        values.real, values.imag = parts[:, None], parts[None, :]
        return values.ravel()
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        candidates = {0, 1, -1, 2, -2, 3, -3, 7, -7, info.min, info.max, info.min + 1}
        candidates |= {info.max - 1, 127, 128, -128, -129, 255, 256, 300, -300, 2**11 + 1}
        candidates |= {2**15, 2**16 - 1, 65504, 65520, 2**24 + 1, 2**31 - 1, 2**31, -(2**31)}
        candidates |= {2**32 - 1, 2**53 + 1, -(2**53) - 1, 2**63 - 1, -(2**63), 2**64 - 1}
        return np.array(sorted(c for c in candidates if info.min <= c <= info.max), dtype)
    info = np.finfo(dtype)
    values = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, 0.1, 1 / 3, np.nan, np.inf,
              -np.inf, float(info.max), -float(info.max), float(info.tiny),
              float(info.smallest_subnormal), -float(info.smallest_subnormal), 127.5,
              -128.5, 255.5, 300.0, -300.0, 2049.0, 65504.0, 65520.0, 2.0**24 + 1,
              2.0**31, -(2.0**31), 2.0**32, 2.0**53 + 2, 2.0**63, -(2.0**63), 2.0**64,
              1e10, -1e10]  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # overflow to inf in float16
        return np.array(values, dtype)


def values_of(dtype: np.dtype) -> st.SearchStrategy:
    """A 1-d array of `dtype` (maybe empty): any values, NaN/inf/-0.0 and extremes included."""
    return hnp.arrays(dtype, st.integers(0, 6), elements=hnp.from_dtype(dtype))


def same(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """Element-wise: equal, NaN for NaN, and the same sign of zero."""
    if want.dtype.kind == "c":
        return same(got.real, want.real) & same(got.imag, want.imag)
    if want.dtype.kind != "f":
        return got == want
    return (np.isnan(got) & np.isnan(want)) | (
        (got == want) & (np.signbit(got) == np.signbit(want))
    )


# Float -> int casts NumPy and tracejit define (as tests/numpy/test_elementwise.py): the
# float's value must lie in (low, high); anything else is undefined, also for NaN and inf.
FLOAT_TO_INT_RANGES = {
    "int64": (-(2.0**63), 2.0**63),
    "uint64": (-(2.0**63), 2.0**64),
    "uint32": (-(2.0**31), 2.0**32),
}


def defined(values: np.ndarray, target: np.dtype) -> np.ndarray:
    """Where casting `values` to `target` gives a result NumPy defines."""
    if values.dtype.kind != "f" or target.kind not in "iu":
        return np.ones(values.shape, bool)
    low, high = FLOAT_TO_INT_RANGES.get(target.name, (-(2.0**31), 2.0**31))
    wide = values.astype(np.float64)
    return np.isfinite(wide) & (wide >= low) & (wide < high)


def quietly(function, *args):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return function(*args)


# --- chapter 03, exercise 3: cast(cast(x, T1), T2) -> cast(x, T2) ---------------------------
@pytest.fixture(scope="module")
def cast_of_cast():
    """Solution 03 with its pass registered (as the solution uses it) for the module's tests."""
    names = solution("03_writing_a_pass")
    with names["cast_of_cast_registered"]():
        yield names


def exact_pairs(names: dict, source: np.dtype) -> list[tuple[np.dtype, np.dtype]]:
    exact = names["cast_of_cast_is_exact"]
    return [(m, t) for m in DTYPES for t in DTYPES if exact(source, m, t)]


def chains_to(pairs):
    def chains(x):
        return [x.astype(middle).astype(target) for middle, target in pairs]

    return chains


def after(function, source: np.dtype, passes: str) -> ModuleOp:
    spec = [tj.TensorSpec([None], source)]
    traced = tj.function(function, input_signature=spec).get_concrete_function()
    if not passes:
        return traced.graph.module
    return Pipeline.parse(passes).run(traced.graph.module.clone())


@pytest.mark.parametrize("source", DTYPES, ids=str)
def test_cast_of_cast_merges_exactly_the_exact_pairs(cast_of_cast, source):
    """Of the 144 pairs (T1, T2) from `source`, the pass turns each exact one into the direct
    cast x.astype(T2) (after cse: the very same value) and leaves the others untouched."""
    exact = exact_pairs(cast_of_cast, source)
    others = [(m, t) for m in DTYPES for t in DTYPES if (m, t) not in exact]
    kept = chains_to(others)
    assert str(after(kept, source, "cast-of-cast")) == str(after(kept, source, ""))

    def chains_and_direct_casts(x):
        return chains_to(exact)(x) + [x.astype(target) for target in DTYPES]

    module = after(chains_and_direct_casts, source, "cast-of-cast,canonicalize,cse")
    returned = next(op for op in module.walk() if op.name == "func.return").operands
    direct = dict(zip(DTYPES, returned[len(exact) :], strict=True))
    for (middle, target), value in zip(exact, returned, strict=False):
        assert value is direct[target], f"{source} -> {middle} -> {target} was not merged"


def representative_chains(names: dict, source: np.dtype) -> list[tuple[np.dtype, np.dtype]]:
    """One exact pair per target, through a float where there is one (the risky case):
    the test above shows every exact pair to a target compiles to the same code."""
    chosen = {}
    for middle, target in exact_pairs(names, source):
        if target not in chosen or middle.kind == "f":
            chosen[target] = (middle, target)
    return list(chosen.values())


@functools.cache
def compiled_chains(source: np.dtype, pipeline: tuple[str, ...], pairs: tuple):
    spec = [tj.TensorSpec([None], source)]
    return tj.function(chains_to(pairs), input_signature=spec, experimental_pipeline=pipeline)


def check_compiled_chains(names: dict, x: np.ndarray) -> None:
    """The chains compiled with the solution's pass equal NumPy's chain through every exact
    T1 (and its direct cast), wherever NumPy defines the chain."""
    pairs = tuple(representative_chains(names, x.dtype))
    got = compiled_chains(x.dtype, names["WITH_CAST_OF_CAST"], pairs)(x)
    for (_, target), result in zip(pairs, got, strict=True):
        assert result.dtype == target and result.shape == x.shape
        for middle in [m for m, t in exact_pairs(names, x.dtype) if t == target]:
            inner = quietly(x.astype, middle)
            want = quietly(inner.astype, target)
            ok = defined(x, middle) & defined(inner, target)
            # From an integer the chain never leaves the defined range (else NumPy's result,
            # undefined as it is, would change: uint32 -> float64 -> int32 of 2**32 - 1).
            assert x.dtype.kind == "f" or ok.all(), (x.dtype, middle, target, x[~ok])
            wrong = ok & ~same(result, want)
            assert not wrong.any(), (
                f"{x.dtype} -> {middle} -> {target} of {x[wrong]}: compiled {result[wrong]}, "
                f"NumPy {want[wrong]}"
            )


@pytest.mark.parametrize("source", DTYPES, ids=str)
def test_cast_of_cast_on_edge_values(cast_of_cast, source):
    check_compiled_chains(cast_of_cast, edge_values(source))


@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_cast_of_cast_on_any_values(cast_of_cast, data):
    source = data.draw(st.sampled_from(DTYPES))
    check_compiled_chains(cast_of_cast, data.draw(values_of(source)))


def int64_through_f64(x):
    return x.astype(np.float64).astype(np.int64)


TWO_53_PLUS_1 = [np.array([2**53 + 1], np.int64), np.int64(2**53 + 1)]


@pytest.mark.parametrize("x", TWO_53_PLUS_1, ids=["1-d", "0-d"])
def test_two_to_the_53_plus_1_comes_back_as_numpy_rounds_it(cast_of_cast, x):
    pipeline = cast_of_cast["WITH_CAST_OF_CAST"]
    compiled = tj.function(int64_through_f64, experimental_pipeline=pipeline)
    assert int(np.ravel(int64_through_f64(x))[0]) == 9007199254740992  # NumPy: 2**53
    assert int(np.ravel(compiled(x))[0]) == 9007199254740992
    ir = compiled.get_concrete_function(x).ir(after="cast-of-cast")
    assert ir.count("tj.cast") == 2, ir  # the pair is left alone


def test_the_exact_rule_against_numpy_for_every_triple(cast_of_cast):
    """Where the solution's rule allows the rewrite, NumPy's chain equals NumPy's direct cast
    on every edge value where the chain is defined (no compiling: the rule itself)."""
    exact = cast_of_cast["cast_of_cast_is_exact"]
    rewritten = 0
    for source in DTYPES:
        x = edge_values(source)
        for middle in DTYPES:
            inner = quietly(x.astype, middle)
            for target in DTYPES:
                if not exact(source, middle, target):
                    continue
                rewritten += 1
                chain, direct = quietly(inner.astype, target), quietly(x.astype, target)
                ok = defined(x, middle) & defined(inner, target)
                assert same(chain, direct)[ok].all(), (source, middle, target)
                if source.kind != "f":  # integer values: never out of range on the way
                    assert ok.all(), (source, middle, target)
    assert rewritten > len(DTYPES) ** 2  # the rule is not trivially "never"


class FirstEditionCastOfCast(RewritePattern):
    """The rule this file exists to catch: np.can_cast(S, T1, "safe")."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: CastOp, rewriter: PatternRewriter) -> None:
        inner = op.input.owner
        if not isinstance(inner, CastOp):
            return
        source, middle = (tj.Tensor(v).dtype for v in (inner.input, inner.result))
        if not np.can_cast(source, middle, "safe"):
            return
        if inner.input.type == op.result.type:
            rewriter.replace(op, [], [inner.input])
        else:
            rewriter.replace(op, [CastOp(inner.input, op.result.type)])


@dataclass(frozen=True)
class FirstEditionPass(ModulePass):
    name = "first-edition-cast-of-cast"

    def apply(self, ctx, op: ModuleOp) -> None:
        PatternRewriteWalker(FirstEditionCastOfCast()).rewrite_module(op)


def test_the_first_edition_rule_would_fail_here():
    PASSES[FirstEditionPass.name] = lambda: FirstEditionPass
    try:
        pipeline = (FirstEditionPass.name, *DEFAULT_PIPELINE)
        compiled = tj.function(int64_through_f64, experimental_pipeline=pipeline)
        got = compiled(np.array([2**53 + 1], np.int64))
    finally:
        del PASSES[FirstEditionPass.name]
    assert got[0] == 2**53 + 1 != int64_through_f64(np.array([2**53 + 1]))[0]


# --- helpers for the other solutions -------------------------------------------------------
def eager(function, *args):
    """`function` (a tj.Function) run as plain NumPy: the reference."""
    tj.config.run_functions_eagerly(True)
    try:
        return quietly(function, *args)
    finally:
        tj.config.run_functions_eagerly(False)


def assert_matches(got, want, ulps: float = 0, rtol: float = 0) -> None:
    """Same dtype and shape; equal (ints, bools); floats: NaN where NumPy has NaN, the same
    infinities, and finite values equal (zeros by value) or within `ulps` / `rtol`."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape, want)
    if want.dtype.kind == "c":  # each part as a float
        assert_matches(got.real, want.real, ulps, rtol)
        assert_matches(got.imag, want.imag, ulps, rtol)
        return
    if want.dtype.kind != "f":
        np.testing.assert_array_equal(got, want)
        return
    nan = np.isnan(want)
    assert (np.isnan(got) == nan).all(), (got, want)
    inf = np.isinf(want)
    assert (got[inf] == want[inf]).all(), (got, want)
    finite = ~nan & ~inf
    g, w = got[finite].astype(np.float64), want[finite].astype(np.float64)
    below = np.nextafter(np.abs(want[finite]), want.dtype.type(0))  # the ulp at the largest
    ulp = np.spacing(below).astype(np.float64)  # finite value is finite too
    allowed = np.maximum(ulps * ulp, rtol * np.abs(w))
    assert (np.abs(g - w) <= allowed).all(), (got, want)


ULPS = {np.dtype("float16"): 1, np.dtype("float32"): 4, np.dtype("float64"): 4}
RTOL = {np.dtype("float16"): 2e-3, np.dtype("float32"): 1e-5, np.dtype("float64"): 1e-12}
ULPS |= {np.dtype("complex64"): 4, np.dtype("complex128"): 4}
RTOL |= {np.dtype("complex64"): 1e-5, np.dtype("complex128"): 1e-12}


@contextlib.contextmanager
def pattern_in_pipeline(name: str, pattern: RewritePattern):
    """`experimental_pipeline` with `pattern` applied first (registered while active)."""

    @dataclass(frozen=True)
    class PatternPass(ModulePass):
        def apply(self, ctx, op: ModuleOp) -> None:
            PatternRewriteWalker(pattern).rewrite_module(op)

    PatternPass.name = name
    PASSES[name] = lambda: PatternPass
    try:
        yield (name, *DEFAULT_PIPELINE)
    finally:
        del PASSES[name]


def rows(dtype: np.dtype, width: int) -> np.ndarray:
    """A 2-d array of `dtype` whose rows hold the edge values, padded by repetition."""
    values = edge_values(dtype)
    values = np.resize(values, -(-len(values) // width) * width)
    return values.reshape(-1, width)


# --- chapter 01: the traced functions, on every dtype, 0-d and empty --------------------------
def test_01_add_one_wraps_and_promotes_as_numpy():
    f = solution("01_tracing")["f"]
    for dtype in DTYPES + COMPLEX:
        x = edge_values(dtype)
        assert_matches(f(x), quietly(np.add, x, 1))
    for x in (np.int8(127), np.float32(np.nan), np.zeros(0, np.uint8), np.float16(-0.0)):
        assert_matches(f(x), quietly(np.add, x, 1))


def test_01_casts_and_weak_floats():
    names = solution("01_tracing")
    x = edge_values(np.dtype("float32"))
    assert_matches(names["to_f64"](x), eager(names["to_f64"], x), ulps=5)
    i = edge_values(np.dtype("int32"))
    assert_matches(names["plus"](i), i + 1.5)  # float64 holds every int32 + 1.5 exactly


def test_01_unrolled_loop():
    unrolled = solution("01_tracing")["unrolled"]
    for dtype in ("float32", "int8", "uint64", "complex64", "complex128"):
        x = edge_values(np.dtype(dtype))
        assert_matches(unrolled(x), eager(unrolled, x))  # NaN for inf: inf * 0


# --- chapter 02: np.maximum(x, 0) by hand, and the new op's evaluate ---------------------------
@pytest.mark.parametrize(
    "x",
    [[np.nan, -np.inf, np.inf, -0.0], [0.0, -1.5, 2.0, 1e-45], [-1e-45, 3.4e38, -3.4e38, -2.0]],
    ids=str,
)
def test_02_relu_by_hand_runs_as_numpy(tmp_path, x):
    relu_ir = solution("02_the_dialect")["RELU"]
    from tracejit.tools.opt_main import main as tracejit_opt

    (tmp_path / "relu.mlir").write_text(relu_ir)
    x = np.array(x, np.float32)
    np.save(tmp_path / "x.npy", x)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = tracejit_opt([str(tmp_path / "relu.mlir"), "--run", "--input",
                               f"x={tmp_path / 'x.npy'}"])  # fmt: skip
    assert status == 0, out.getvalue()
    printed = out.getvalue().split(" = ", 1)[1].strip().strip("[]").split()
    assert_matches(np.array(printed, np.float64).astype(np.float32), np.maximum(x, 0))


def test_02_square_evaluates_as_numpy():
    square = solution("02_the_dialect")["square"]
    for dtype in DTYPES[1:]:  # np.square has no bool loop
        x = edge_values(dtype)
        assert_matches(quietly(square.evaluate, x), quietly(np.square, x))  # ints wrap


# --- chapter 03, exercise 1: x * 1 -> x, compiled ------------------------------------------
def test_03_mul_by_one_keeps_nan_inf_minus_zero_and_extremes():
    names = solution("03_writing_a_pass")
    with pattern_in_pipeline("mul-by-one", names["MulByOne"]()) as pipeline:
        for function, dtypes in (
            (names["times_one_float"], DTYPES + COMPLEX),
            (names["times_one_int"], [d for d in DTYPES + COMPLEX if d.kind in "iufc"]),
        ):
            compiled = tj.function(function, experimental_pipeline=pipeline)
            for dtype in dtypes:
                x = edge_values(dtype)
                assert_matches(compiled(x), quietly(function, x))
                ir = compiled.get_concrete_function(x).ir(after="mul-by-one")
                # the rewrite did happen, except for complex numbers (NumPy: 1+infj * 1 is
                # nan+infj)
                assert ("tj.mul" in ir) == (dtype.kind == "c"), ir


# --- chapter 04: Variable reads and writes, prints, assertions ----------------------------------
SPECIAL_PAIRS = [[np.nan, -0.0], [np.inf, -np.inf], [3.4e38, -3.4e38], [1e-45, 0.0]]


def test_04_reads_and_writes_around_special_values():
    names = solution("04_cse_dce_and_effects")
    v, merged, kept = names["v"], names["merged"], names["kept"]
    for old in SPECIAL_PAIRS:
        for new in SPECIAL_PAIRS:
            old32, new32 = np.array(old, np.float32), np.array(new, np.float32)
            results = []
            for run in (lambda f, x: f(x), eager):
                v.assign(old32)
                results.append((run(merged, new32), run(kept, new32), v.numpy().copy()))
            for got, want in zip(*results, strict=True):
                assert_matches(got, want)


def test_04_prints_and_assertions_on_special_values():
    names = solution("04_cse_dce_and_effects")
    twice, checked = names["twice"], names["checked"]
    for pair in [*SPECIAL_PAIRS, [-1.0, 1.0], [-1e-45, 2.0]]:
        x = np.array(pair, np.float32)
        outputs = []
        for run in (lambda f, x: f(x), eager):
            with contextlib.redirect_stdout(io.StringIO()) as out:
                assert_matches(run(twice, x), x)
            try:
                result = run(checked, x)
            except tj.errors.InvalidArgumentError as error:
                result = f"raised {error}"
            outputs.append((out.getvalue(), result))
        (printed, got), (printed_eagerly, want) = outputs
        assert printed == printed_eagerly
        if isinstance(want, str):
            assert isinstance(got, str) and "x must be >= 0" in got, (pair, got)
        else:
            assert_matches(got, want)


# --- chapter 05: fused kernels ------------------------------------------------------------------
@pytest.mark.parametrize("dtype", FLOATS + COMPLEX, ids=str)
def test_05_fused_kernels_on_special_values(dtype):
    names = solution("05_fusion")
    x = edge_values(dtype)
    for function in (names["two_uses_of_exp"], names["two_uses_of_add"]):
        got, want = tj.function(function)(x), quietly(function, x)
        for g, w in zip(got, want, strict=True):
            # complex exp: exp(a) * cos(b) + ...: a few ulps of the part's size, relative
            assert_matches(g, w, ulps=ULPS[dtype], rtol=RTOL[dtype] if dtype.kind == "c" else 0)
    with contextlib.redirect_stdout(io.StringIO()) as out:
        got = tj.function(names["with_print"])(x)
    assert out.getvalue() == "here\n"
    with contextlib.redirect_stdout(io.StringIO()):
        assert_matches(got, quietly(names["with_print"], x))


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_05_softmax_on_special_rows(dtype):
    softmax = solution("05_fusion")["softmax"]
    special = np.array(
        [[np.inf, 1, 2, 3], [-np.inf] * 4, [np.nan, 0, 1, 2], [-np.inf, 0, 1, 1],
         [1e4, 1e4, -1e4, 0], [-0.0, 0.0, 0.0, -0.0], [np.inf, np.inf, 0, 0]],
    )  # fmt: skip
    for m in (rows(dtype, 8), quietly(special.astype, dtype), np.zeros((0, 8), dtype)):
        assert_matches(tj.function(softmax)(m), quietly(softmax, m), rtol=RTOL[dtype])
    empty_rows = np.zeros((3, 0), dtype)  # a max over nothing: NumPy's ValueError, both ways
    with pytest.raises(ValueError, match="zero-size array"):
        softmax(empty_rows)
    with pytest.raises(ValueError, match="zero-size array"):
        tj.function(softmax)(empty_rows)


# --- chapter 06: staged loops -----------------------------------------------------------------
def test_06_staged_range_on_negative_zero_and_large_bounds():
    f = solution("06_autograph")["f"]
    for n in (np.int64(-5), np.int64(-1), np.int64(0), np.int64(1), np.int64(100_000)):
        assert f(n) == eager(f, n) == sum(range(int(n)))
    assert f(np.int32(1000)) == 499500
    # The loop variable has n's dtype (tracejit's rule, as TF's): in int8 the sum wraps, where
    # eager Python sums Python ints. NumPy's int8 arithmetic gives the same 86.
    wrapped = f(np.int8(100))
    assert wrapped.dtype == np.int8 and wrapped == np.array(4950).astype(np.int8) == 86


def test_06_collatz_on_edge_starts():
    names = solution("06_autograph")
    capped, explicit, python_collatz = (
        names[k] for k in ("capped", "collatz_explicit", "python_collatz")
    )
    # Starts above the cap stop at once, whatever their size; 703 climbs past 1000 on the way.
    for start in (1, 2, 3, 703, 1000, 1001, 2**31, 2**62, 2**63 - 1):
        assert capped(np.int64(start)) == eager(capped, np.int64(start)), start
    for start in (1, 2, 3, 703, 77031, 837799, 2**62, 2**61 + 1):  # no overflow on the way
        assert explicit(np.int64(start)) == python_collatz(start), start


@settings(max_examples=15, deadline=None)
@given(start=st.integers(1, 10**6))
def test_06_collatz_on_any_start(start):
    names = solution("06_autograph")
    assert names["capped"](np.int64(start)) == eager(names["capped"], np.int64(start))
    assert names["collatz_explicit"](np.int64(start)) == names["python_collatz"](start)


# --- chapter 07: transposes, reductions, matmul -------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
def test_07_exp_transposed_on_special_values(dtype):
    exp_transposed = solution("07_bufferization_and_loops")["exp_transposed"]
    for x in (rows(np.dtype(dtype), 3), np.zeros((0, 3), dtype)):
        rtol = RTOL[np.dtype(dtype)] if np.dtype(dtype).kind == "c" else 0
        assert_matches(tj.function(exp_transposed)(x), quietly(exp_transposed, x), 4, rtol)


@pytest.mark.parametrize(
    "dtype", ["int8", "uint8", "int64", "bool", "float32", "float64", "complex64", "complex128"]
)
def test_07_sums_wrap_promote_and_propagate_nan(dtype):
    names = solution("07_bufferization_and_loops")
    dtype = np.dtype(dtype)
    for x in (rows(dtype, 4), np.zeros((0, 3), dtype), np.zeros((3, 0), dtype)):
        for function in (names["sum0"], names["sum1"]):
            got, want = tj.function(function)(x), quietly(function, x)
            assert_matches(got, want, rtol=RTOL.get(dtype, 0))  # ints: int64, wrapping


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int64", "bool", "float32", "complex128"])
def test_07_matmul_wraps_and_handles_empty_and_special_values(dtype):
    matmul = solution("07_bufferization_and_loops")["matmul"]
    dtype = np.dtype(dtype)
    a = rows(dtype, 4)
    if dtype.kind == "f":  # no huge finite values: their sums overflow in any order
        a = np.where(np.abs(a) > 1e4, np.array(np.inf, dtype), a)
    if dtype.kind == "c":  # finite: whether inf * x + ... is inf or NaN in a complex part
        a = np.where(np.isfinite(a) & (np.abs(a) < 1e4), a, 1)  # depends on BLAS's order
    b = a[:4].T.copy()
    pairs = [
        (a, b),
        (a[:3], np.zeros((4, 0), dtype)),
        (np.zeros((2, 0), dtype), np.zeros((0, 5), dtype)),
        (np.zeros((0, 4), dtype), b),
    ]
    for x, y in pairs:
        got, want = tj.function(matmul)(x, y), quietly(matmul, x, y)
        assert_matches(got, want, rtol=RTOL.get(dtype, 0))


# --- chapter 08: axpy, exp, and the aliased call ---------------------------------------------
@pytest.mark.parametrize(
    "dtype", ["float16", "float32", "float64", "int8", "uint64", "complex64", "complex128"]
)
def test_08_axpy_is_exact_on_special_values(dtype):
    axpy = solution("08_llvm_and_the_jit")["axpy"]
    dtype = np.dtype(dtype)
    x = edge_values(dtype)
    y = x[::-1].copy()
    compiled = tj.function(axpy)  # a NumPy scalar `a` is an argument: one trace serves all
    for a in edge_values(dtype)[:: max(1, len(x) // 8)]:
        assert_matches(compiled(a, x, y), quietly(axpy, a, x, y))  # no FMA, wraps
    assert compiled.experimental_get_tracing_count() == 1


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
def test_08_expanded_exp_on_special_values(dtype):
    exponential = solution("08_llvm_and_the_jit")["exponential"]
    dtype = np.dtype(dtype)
    extra = [88.72, 88.73, -87.3, -103.9, -104.0, 709.78, 709.79, -745.1, -746.0, 1e-30]
    x = np.concatenate([edge_values(dtype), quietly(np.array(extra).astype, dtype)])
    rtol = RTOL[dtype] if dtype.kind == "c" else 0
    assert_matches(tj.function(exponential)(x), quietly(np.exp, x), 4, rtol)


def test_08_aliased_out_on_special_values():
    names = solution("08_llvm_and_the_jit")
    from tracejit.compiler.driver import compile_to_machine_code, lower

    axpy = names["axpy"]
    x = edge_values(np.dtype("float32"))
    y = x[::-1].copy()
    a = np.float32(-2.5)
    traced = tj.function(axpy).get_concrete_function(a, x, y).graph.module
    kernel = compile_to_machine_code(lower(traced).module).kernel("axpy")
    expected = quietly(axpy, a, x, y)
    out = x.copy()
    status = kernel.raw(np.asarray(a).ctypes.data, out.ctypes.data, y.ctypes.data, out.ctypes.data)
    assert status == 0
    assert_matches(out, expected)


@pytest.mark.parametrize("dtype", ["int64", "float32", "float64", "complex64", "complex128"])
def test_08_lapack_inverse_on_edge_stacks(dtype):
    """Exercise 4's np.linalg.inv: empty stacks, 0x0 and 1x1 matrices, NaN and inf entries
    (LAPACK carries them to NaN, NumPy raises nothing), and the singular matrices NumPy
    refuses; int64 is inverted in float64, as NumPy does."""
    inverse = solution("08_llvm_and_the_jit")["inverse"]
    dtype = np.dtype(dtype)
    rng = np.random.default_rng(8)
    well = rng.integers(-3, 4, (3, 4, 4)) + 9 * np.eye(4, dtype=np.int64)
    special = np.eye(2) * np.array([[np.nan], [1.0]]) + np.array([[0, np.inf], [0, 0]])
    stacks = [well, np.zeros((0, 3, 3)), np.zeros((2, 0, 0)), np.full((2, 1, 1), -4)]
    if dtype.kind != "i":
        stacks.append(special[None])
    for stack in stacks:
        stack = quietly(np.asarray(stack).astype, dtype)
        got, want = tj.function(inverse)(stack), quietly(inverse, stack)
        assert_matches(got, want, rtol=RTOL.get(want.dtype, 0) * 100)
    for singular in (np.zeros((1, 1)), np.array([[[1, 2], [2, 4]], [[1, 0], [0, 1]]])):
        singular = singular.astype(dtype)
        for compute in (inverse, tj.function(inverse)):
            with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
                compute(singular)


# --- chapter 09: the twenty-op workload ---------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_09_twenty_ops_on_special_values(dtype):
    w8 = solution("09_performance")["w8_twenty_ops"]
    dtype = np.dtype(dtype)
    finite = edge_values(dtype)
    finite = finite[np.isfinite(finite) & (np.abs(finite) < 1e4)]
    for x in (edge_values(dtype), finite, finite[:1], np.linspace(-3, 3, 1000, dtype=dtype)):
        y = np.roll(x, 1)
        assert_matches(tj.function(w8)(x, y), quietly(w8, x, y), rtol=1e-3)
    empty = np.zeros(0, dtype)  # np.max of nothing: NumPy's ValueError, both ways
    with pytest.raises(ValueError, match="zero-size array"):
        w8(empty, empty)
    with pytest.raises(ValueError, match="zero-size array"):
        tj.function(w8)(empty, empty)


# --- chapter 10: x * 1 as a PDL pattern; centered rows with unknown dims ---------------------
@pytest.fixture(scope="module")
def pdl_mul_one():
    names = solution("10_interfaces_conversion_and_shapes")
    with names["pdl_mul_one_registered"]():
        yield names


@pytest.mark.parametrize("dtype", DTYPES + COMPLEX, ids=str)
def test_10_pdl_mul_one_is_exact_on_edge_values(pdl_mul_one, dtype):
    """The PDL pattern removes the multiply and the result is NumPy's bit for bit (-0.0,
    NaN, inf, integer extremes; bools promote to int64 first); for complex numbers the
    multiply stays (NumPy: (1+infj) * 1 is nan+infj, (-0-1j) * 1 is 0-1j)."""
    x = edge_values(dtype)
    for name in ("times_one", "one_times"):
        function = pdl_mul_one[name]
        compiled = tj.function(
            function,
            input_signature=[tj.TensorSpec([None], dtype)],
            experimental_pipeline=pdl_mul_one["WITH_PDL_MUL_ONE"],
        )
        ir = compiled.get_concrete_function().ir(after="pdl-mul-one")
        assert ("tj.mul" in ir) == (dtype.kind == "c"), ir
        got, want = compiled(x), quietly(function, x)
        assert got.dtype == want.dtype and same(got, want).all(), (name, x, got)


@pytest.mark.parametrize("dtype", FLOATS + COMPLEX, ids=str)
def test_10_centered_with_unknown_rows_on_edge_values(dtype):
    compiled = solution("10_interfaces_conversion_and_shapes")["centered_any_rows"](dtype)
    x = rows(dtype, 3)
    y = x[::-1].copy()
    for n in (0, 1, len(x)):
        assert_matches(compiled(x[:n], y[:n]), eager(compiled, x[:n], y[:n]), rtol=RTOL[dtype])


# --- the checks of the solutions test machine code, whatever the configuration -------------
@pytest.fixture
def tiering_on():
    """The configuration a student runs a solution with (the suite turns tiering off)."""
    previous = tj.config.tiered_compilation()
    tj.config.set_tiered_compilation(True)
    yield
    tj.config.set_tiered_compilation(previous)


def test_a_wrong_rule_passes_a_first_call_but_not_the_solutions_check(tiering_on, monkeypatch):
    """Chapter 10's PDL rule made wrong (x * 1 -> x also for complex): with tiered execution
    the first call is the graph interpreter's, NumPy's own product, so calling once and
    comparing passes; course_checks.check_compiled, which the solution uses, runs the
    machine code and fails, and so does the solution's whole check."""
    names = solution("10_interfaces_conversion_and_shapes")
    monkeypatch.setitem(names["mul_one_patterns"].__globals__, "is_not_complex", lambda v: True)
    z = np.array([1 + np.inf * 1j, complex(-0.0, -1.0), complex(np.nan, 2.0)])
    want = quietly(np.multiply, z, 1)  # [nan+infj, 0-1j, nan+nanj]
    with names["pdl_mul_one_registered"]():
        naive = tj.function(names["times_one"], experimental_pipeline=names["WITH_PDL_MUL_ONE"])
        assert same(naive(z), want).all()  # call 1: interpreted, the rule never ran
        assert not same(naive(z), want).all()  # call 2: the wrong machine code
        compiled = tj.function(names["times_one"], experimental_pipeline=names["WITH_PDL_MUL_ONE"])
        with pytest.raises(AssertionError):
            names["check_compiled"](compiled, z)
    with pytest.raises(AssertionError), contextlib.redirect_stdout(io.StringIO()):
        names["check"]()


def test_run_compiled_refuses_an_answer_without_machine_code():
    from course_checks import run_compiled

    f = tj.function(lambda x: x + 1)
    tj.config.run_functions_eagerly(True)
    try:
        with pytest.raises(AssertionError, match="no machine code answered"):
            run_compiled(f, np.ones(3))
    finally:
        tj.config.run_functions_eagerly(False)


# --- chapter 11: reverse mode ------------------------------------------------------------------
@pytest.fixture(scope="module")
def copysign_rule():
    names = solution("11_reverse_mode")
    with names["copysign_adjoint_registered"]():
        yield names


def with_negative_nans(values: np.ndarray) -> np.ndarray:
    """`values` and a NaN with its sign bit set (-np.nan), which copysign reads too."""
    return np.concatenate([values, -values[np.isnan(values)]])


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_11_copysign_adjoint_on_every_pair_of_edge_values(copysign_rule, dtype):
    """d/dx copysign(x, y) * 3 is +-3 by the two sign bits, for every pair of edge values
    (-0.0 and -NaN included), bit for bit; no gradient reaches y."""
    values = with_negative_nans(edge_values(dtype))
    x, y = np.repeat(values, len(values)), np.tile(values, len(values))
    gradient = tj.grad(copysign_rule["copysign_loss"], argnums=(0, 1))
    want_x, want_y = copysign_rule["copysign_grad_reference"](x, y)
    gx, gy = gradient(x, y)
    assert same(gx, want_x).all(), (x[~same(gx, want_x)], y[~same(gx, want_x)])
    assert_matches(gy, want_y)


def power_gradient_reference(x: np.ndarray, n: int) -> np.ndarray:
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return (n * x.astype(np.float64) ** (n - 1)).astype(x.dtype) if n else np.zeros_like(x)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_11_gradient_through_the_staged_loop(dtype):
    """d/dx sum(x ** n), the power a staged loop of n multiplies: n * x ** (n - 1) for n = 0
    to 7, at edge values (NaN, +-inf, -0.0, subnormals), one trace for every n."""
    dtype = np.dtype(dtype)
    power_grad = solution("11_reverse_mode")["power_grad"]
    x = edge_values(dtype)
    x = x[~np.isfinite(x) | (np.abs(x) < 1e4)]
    compiled = power_grad
    for n in range(8):
        got = compiled(x, np.int64(n))
        assert_matches(got, power_gradient_reference(x, n), rtol=RTOL[dtype])
    counts = compiled.experimental_get_tracing_count()
    compiled(x, np.int64(11))
    assert compiled.experimental_get_tracing_count() == counts  # n is a run-time value


SOFTPLUS_RTOL = {np.dtype("float16"): 4e-3, np.dtype("float32"): 1e-6, np.dtype("float64"): 1e-14}


def check_softplus_gradient(gradient, dtype: np.dtype) -> None:
    """The logistic function at every edge value and across [-120, 120]: never NaN for a
    number, 0 and 1 at the infinities, relative error under SOFTPLUS_RTOL (subnormal
    results included: x = -100 in float32 is 3.8e-44)."""
    names = solution("11_reverse_mode")
    x = np.concatenate([edge_values(dtype), np.linspace(-120, 120, 241).astype(dtype)])
    got = gradient(x)
    want = names["logistic_reference"](x)
    assert_matches(got, want, rtol=SOFTPLUS_RTOL[dtype])
    assert not np.isnan(got[~np.isnan(x)]).any()


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_11_custom_gradient_is_the_logistic_everywhere(dtype):
    names = solution("11_reverse_mode")
    check_softplus_gradient(tj.grad(names["softplus_total"]), dtype)
    x = edge_values(dtype)
    want = quietly(np.logaddexp, dtype.type(0), x)  # NumPy's stable softplus, the value
    assert_matches(tj.function(names["softplus"])(x), want, rtol=SOFTPLUS_RTOL[dtype])


def test_11_the_documented_tf_gradient_would_fail_here():
    """tf.custom_gradient's example gradient, 1 - 1 / (1 + exp(x)), cancels for x < 0."""

    @tj.custom_gradient
    def tf_log1pexp(x):
        e = np.exp(x)
        return np.log1p(e), lambda upstream: upstream * (1 - 1 / (1 + e))

    with pytest.raises(AssertionError):
        check_softplus_gradient(tj.grad(lambda x: np.sum(tf_log1pexp(x))), np.dtype("float32"))


# --- chapter 10, exercises 5-7: an interface, region inlining, a type conversion ------------
@pytest.fixture(scope="module")
def toy_passes():
    names = solution("10_interfaces_conversion_and_shapes")
    with names["toy_passes_registered"]():
        yield names


@pytest.mark.parametrize("dtype", DTYPES + COMPLEX, ids=str)
def test_10_involutions_cancel_exactly_on_edge_values(toy_passes, dtype):
    """-(-x), ~~x and conj(conj(z)) compile to nothing and give NumPy's bits, on every
    dtype the op takes: integer extremes (-(-INT_MIN) wraps back), NaN, -0.0, inf."""
    x = edge_values(dtype)
    functions = []
    if dtype.kind != "b":
        functions.append(toy_passes["neg_neg"])
    if dtype.kind in "biu":
        functions.append(toy_passes["not_not"])
    if dtype.kind == "c":
        functions.append(toy_passes["conj_conj"])
    for function in functions:
        pipeline = toy_passes["WITH_CANCEL_INVOLUTIONS"]
        compiled = tj.function(function, experimental_pipeline=pipeline)
        got, want = compiled(x), quietly(function, x)
        assert got.dtype == want.dtype and same(got, want).all(), (function.__name__, x, got)
        ir = compiled.get_concrete_function(x).ir(after="cancel-involutions")
        assert not any(f"tj.{name} " in ir for name in ("neg", "bitwise_not", "conj")), ir


def pick_else(x):
    if np.sum(np.ones(3)) > 5:  # noqa: SIM108  (a staged tj.if, its predicate constant)
        y = x * 2.0
    else:
        y = -x
    return y + 1.0


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_10_inline_constant_ifs_takes_the_right_branch(toy_passes, dtype):
    x = edge_values(dtype)
    for function in (toy_passes["pick"], pick_else):
        pipeline = toy_passes["WITH_INLINE_CONSTANT_IFS"]
        compiled = tj.function(function, experimental_pipeline=pipeline)
        assert_matches(compiled(x), eager(compiled, x))
        assert "tj.if" not in compiled.get_concrete_function(x).ir(after="inline-constant-ifs")


def test_10_promote_f16_rounds_once_on_every_pair_of_edge_values(toy_passes):
    """(x * y + 1) / (x - y) in float32, rounded to float16 once, bit for bit, for every
    pair of float16 edge values (subnormals, overflow to inf, 0 / 0)."""
    values = edge_values(np.dtype("float16"))
    x, y = np.repeat(values, len(values)), np.tile(values, len(values))
    pipeline = toy_passes["WITH_PROMOTE_F16"]
    compiled = tj.function(toy_passes["rational"], experimental_pipeline=pipeline)
    got, want = compiled(x, y), toy_passes["rational_in_f32"](x, y)
    wrong = ~same(got, want)
    assert got.dtype == np.float16 and not wrong.any(), (x[wrong], y[wrong], got[wrong])
    ir = compiled.get_concrete_function(x, y).ir(after="promote-f16")
    body = [line for line in ir.splitlines() if "= tj." in line and "tj.cast" not in line]
    assert body and not any("f16" in line for line in body), ir  # f16 only at the casts
