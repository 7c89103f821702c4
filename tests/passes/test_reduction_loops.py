"""Reduction loop order in lower-to-loops: every kind over every axis, compiled vs eager.

A reduction whose innermost loop dim is parallel (`np.sum(x, axis=0)`) keeps its loops in
order and accumulates in memory, so its innermost loop is unit-stride and vectorises; one
over the innermost axis keeps its accumulator in registers. Both must give NumPy's values,
including argmax/argmin's first-occurrence and NaN rules, on 2-D and 3-D inputs with size-0
and size-1 dims. One traced function per input rank and dtype computes every combination.
"""

import itertools
import re
import warnings

import numpy as np
import pytest

import tracejit as tj

KINDS = {
    "sum": np.sum,
    "prod": np.prod,
    "max": np.max,
    "min": np.min,
    "mean": np.mean,
    "any": np.any,
    "all": np.all,
    "argmax": np.argmax,
    "argmin": np.argmin,
}
NEEDS_ELEMENTS = {"max", "min", "argmax", "argmin"}  # NumPy raises on an empty reduction
SINGLE_AXIS = {"argmax", "argmin"}

# Every kind runs over the first shape of each rank and every single axis (and all axes);
# axis pairs and the edge shapes (size-0 and size-1 dims) get one kind per loop-body shape:
# a sum, a flag, an argmax (two outputs and `linalg.index`).
SHAPES = {2: [(6, 9), (1, 9), (6, 1), (0, 5), (5, 0)], 3: [(3, 4, 5), (0, 1, 3)]}
EDGE_KINDS = ("sum", "all", "argmax")


def all_axes(ndim: int) -> list:
    subsets = [c for r in (1, 2) for c in itertools.combinations(range(ndim), r)]
    return [None, *subsets]


def valid(kind: str, shape: tuple[int, ...], axis) -> bool:
    if kind in SINGLE_AXIS and isinstance(axis, tuple) and len(axis) > 1:
        return False
    axes = range(len(shape)) if axis is None else np.atleast_1d(axis)
    return kind not in NEEDS_ELEMENTS or all(shape[a] for a in axes)


def every_reduction(*arrays):
    results = {}
    for n, x in enumerate(arrays):
        for name, axis in itertools.product(KINDS, all_axes(x.ndim)):
            every_kind = n == 0 and not (isinstance(axis, tuple) and len(axis) > 1)
            if (every_kind or name in EDGE_KINDS) and valid(name, x.shape, axis):
                single = axis[0] if isinstance(axis, tuple) and name in SINGLE_AXIS else axis
                results[f"{n}/{name}/{axis}"] = KINDS[name](x, axis=single)
    return results


def inputs(ndim: int, dtype, rng) -> list[np.ndarray]:
    arrays = []
    for shape in SHAPES[ndim]:
        if dtype == np.bool_:
            arrays.append(rng.random(shape) < 0.5)
            continue
        x = rng.integers(-3, 4, shape).astype(dtype)  # few values: many ties
        if dtype == np.float32 and x.size > 4:
            x.flat[[1, 4]] = np.nan  # argmax/max: the first NaN wins
        arrays.append(x)
    return arrays


@pytest.mark.parametrize(
    "ndim, dtype", [(2, np.float32), (3, np.float32), (2, np.int32), (3, np.int32), (2, np.bool_)]
)
def test_every_kind_over_every_axis(check_against_eager, ndim, dtype) -> None:
    function = tj.function(every_reduction)
    arrays = inputs(ndim, dtype, np.random.default_rng(ndim))
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's "Mean of empty slice"
        check_against_eager(function, *arrays, rtol=1e-6)


@tj.function
def wide_sums(x, y):
    return np.sum(x, axis=0), np.sum(y, axis=1), np.prod(y, axis=0), np.argmax(x, axis=0)


def test_int_overflow_wraps_and_float_sums(check_against_eager) -> None:
    """Full-range int32 sums and products wrap as NumPy's; float32 columns of 300."""
    rng = np.random.default_rng(5)
    x = rng.standard_normal((300, 40), dtype=np.float32)
    y = rng.integers(-(2**31), 2**31 - 1, (50, 33), dtype=np.int32)
    check_against_eager(wide_sums, x, y, rtol=1e-5, atol=1e-4)


# --- the loop structure and what LLVM makes of it ----------------------------------------------


@tj.function
def column_sum(x):
    return np.sum(x, axis=0)


@tj.function
def row_sum(x):
    return np.sum(x, axis=1)


def innermost_loop(ir: str) -> str:
    """The text of the last `scf.for` body that contains no other loop."""
    bodies = re.findall(r"scf\.for [^{]*\{([^{}]*)\}", ir)
    return bodies[-1]


def test_sum_over_axis_0_accumulates_in_memory() -> None:
    x = np.ones((64, 32), np.float32)
    ir = column_sum.get_concrete_function(x).ir(after="lower-to-loops")
    body = innermost_loop(ir)
    assert "memref.store" in body and "scf.yield %" not in body  # load, add, store each
    assert "iter_args" not in ir


def test_sum_over_axis_1_accumulates_in_registers() -> None:
    x = np.ones((64, 32), np.float32)
    ir = row_sum.get_concrete_function(x).ir(after="lower-to-loops")
    assert "iter_args" in ir
    assert "memref.store" not in innermost_loop(ir)


@pytest.mark.parametrize("function", [column_sum, row_sum])
def test_float_sums_vectorise(function) -> None:
    """Both orders give vector adds in the optimised LLVM IR (8 or 16 lanes)."""
    llvm_ir = function.get_concrete_function(np.ones((256, 256), np.float32)).llvm_ir
    assert re.search(r"fadd [a-z ]*<(8|16) x float>", llvm_ir)


@tj.function
def long_sums(x):
    return np.sum(x), np.mean(x * x), np.sum(x.reshape(16, -1), axis=1)


def test_long_float32_sums_are_blocked_and_accurate(check_against_eager) -> None:
    """2**20 values in [0, 1): one running sum in vector registers is off by 2e-6 relative
    here (6e-5 at 10M); summing blocks of 4096 first keeps it within 1e-6 of NumPy's
    pairwise sum. Fusion makes sum(x) and mean(x * x) one kernel with two blocked sums."""
    x = np.random.default_rng(6).random(2**20, dtype=np.float32)
    check_against_eager(long_sums, x, rtol=1e-6)
    assert "%blk" in long_sums.get_concrete_function(x).ir(after="lower-to-loops")
