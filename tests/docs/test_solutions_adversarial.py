"""The exercise solutions (docs/tutorial/solutions/) against NumPy on adversarial inputs.

`test_docs.py` runs each solution, which checks itself on its chapter's example. Here what a
solution computes meets the inputs that break rewrites and lowerings: every dtype, 0-d and
empty arrays, NaN, inf and -0.0, integer extremes and overflow, negative operands of // and
%. A solution must never teach a rewrite that changes a result NumPy defines: the first
edition's cast-of-cast rule (`np.can_cast(S, T1, "safe")`) turned
`x.astype(np.float64).astype(np.int64)` of 2**53 + 1 into 2**53 + 1, where NumPy gives 2**53.

Results are compared as in the other suites: integers and bools exactly, floats bit for bit
where the solution's code is exact (casts) and else within a few ulp, NaN where NumPy has NaN.
A float -> int cast of NaN, inf or a value out of the conversion's range is undefined (in C,
in NumPy, in tracejit: tests/numpy/test_elementwise.py); such elements are not compared.
"""

from __future__ import annotations

import contextlib
import functools
import io
import os
import runpy
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

REPO_ROOT = Path(__file__).resolve().parent.parent.parent
SOLUTIONS = REPO_ROOT / "docs" / "tutorial" / "solutions"

DTYPES = [
    np.dtype(name)
    for name in (
        "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
        "float16", "float32", "float64",
    )
]  # fmt: skip
FLOATS = [d for d in DTYPES if d.kind == "f"]


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
