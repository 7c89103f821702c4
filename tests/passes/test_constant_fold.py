"""constant-fold: pure ops on constants become constants holding exactly what NumPy
computes (bit for bit, -0.0, NaN, Inf and integer wrap-around included), within the size
cap, and constants captured from closures fold through inlined calls."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Region

import tracejit as tj
from tracejit.ir import elementwise as ew
from tracejit.ir.constant import ConstantOp
from tracejit.ir.dialect import make_context
from tracejit.ir.elementwise_base import BOOL, COMPLEX, FLOAT, SIGNED, UNSIGNED
from tracejit.passes.constant_fold import ConstantFoldPass
from tracejit.passes.pipeline import LOWERING_PIPELINE, Pipeline

DTYPES_BY_KIND = {
    FLOAT: (np.float32, np.float64),
    SIGNED: (np.int8, np.int64),
    UNSIGNED: (np.uint8, np.uint32),
    BOOL: (np.bool_,),
    COMPLEX: (np.complex64, np.complex128),
}
OPS = [(op, 1) for op in ew.UNARY_OPS] + [(op, 2) for op in ew.BINARY_OPS]


def fold(op_class, *arrays: np.ndarray, max_bytes: int = 1 << 20) -> ModuleOp:
    """A module returning op_class(constants...), after constant-fold."""
    block = Block()
    constants = [ConstantOp.from_array(a) for a in arrays]
    block.add_ops(constants)
    op = op_class(*(c.result for c in constants))
    block.add_ops([op, func.ReturnOp(op.results[0])])
    function = func.FuncOp("f", ((), (op.results[0].type,)), Region(block))
    module = ModuleOp([function])
    ConstantFoldPass(max_bytes=max_bytes).apply(make_context(), module)
    module.verify()
    return module


def returned(module: ModuleOp) -> np.ndarray | None:
    """The array the function returns, if it is a constant."""
    ret = module.body.block.first_op.body.block.last_op
    owner = ret.operands[0].owner
    return owner.to_array() if isinstance(owner, ConstantOp) else None


def numpy_reference(op_class, arrays):
    """What eager NumPy computes for the op: its NumPy function (for tj.pow, np.power of an
    exponent array, pow() element by element: NumPy's scalar shortcuts are other ops; for
    the float32 transcendentals, the float64 function rounded once, as C's expf...)."""
    x = arrays[0]
    if getattr(op_class, "WIDENED", False) and x.dtype == np.float32:
        return op_class.NUMPY(x.astype(np.float64)).astype(np.float32)
    return op_class.NUMPY(*arrays)


def same_bits(folded: np.ndarray, expected: np.ndarray) -> None:
    assert folded.dtype == expected.dtype and folded.shape == expected.shape
    if expected.dtype.kind == "f":
        nan = np.isnan(expected)
        np.testing.assert_array_equal(np.isnan(folded), nan)
        folded, expected = folded[~nan], expected[~nan]
        np.testing.assert_array_equal(np.signbit(folded), np.signbit(expected))
    np.testing.assert_array_equal(folded, expected)


@st.composite
def op_and_operands(draw):
    op_class, arity = draw(st.sampled_from(OPS))
    kinds = sorted(op_class.DOMAIN)
    dtype = np.dtype(draw(st.sampled_from([d for k in kinds for d in DTYPES_BY_KIND[k]])))
    arrays = [draw(hnp.arrays(dtype, 5)) for _ in range(arity)]
    if op_class is ew.PowOp and dtype.kind == "i":
        arrays[1] = np.abs(arrays[1]) % 9  # NumPy raises on negative integer exponents
    return op_class, arrays


@settings(max_examples=300, deadline=None)
@given(op_and_operands())
def test_folding_is_bit_identical_to_numpy(case):
    op_class, arrays = case
    with np.errstate(all="ignore"):
        expected = numpy_reference(op_class, arrays)
    folded = returned(fold(op_class, *arrays))
    assert folded is not None, f"{op_class.name} did not fold"
    same_bits(folded, np.asarray(expected))


def test_the_size_cap_counts_operands_and_results():
    small, large = np.arange(4, dtype=np.float32), np.arange(5, dtype=np.float32)
    assert returned(fold(ew.NegOp, small, max_bytes=16)) is not None
    assert returned(fold(ew.NegOp, large, max_bytes=16)) is None
    assert returned(fold(ew.NegOp, large)) is not None  # default cap: 1 MiB


def test_a_negative_cap_is_rejected_with_a_clear_error():
    with pytest.raises(ValueError, match="max-bytes must be >= 0"):
        Pipeline.parse("constant-fold{max-bytes=-1}")


# --- through the frontend: closure constants, inlined calls ----------------------------------

CAPTURED = np.array([-0.0, 1.5, -np.inf, np.nan, 3.0], np.float32)
WRAPS = np.array([100, -128, 127, 0, 7], np.int8)
CONSTANT_FOLD_ONLY = ("inline", "constant-fold", "cse") + LOWERING_PIPELINE


@tj.function
def helper(c, w):
    return np.exp(c) * 2 + c**2 - np.sqrt(c), (w * w + w) // 3


def uses_captured(x):
    folded, wrapped = helper(CAPTURED, WRAPS)
    return x + folded, wrapped


def test_closure_constants_fold_through_an_inlined_call():
    compiled = tj.function(uses_captured, experimental_pipeline=CONSTANT_FOLD_ONLY)
    x = np.array([1.0, -0.0, 2.0, np.inf, 0.5], np.float32)
    concrete = compiled.get_concrete_function(x)
    ir = concrete.ir(after="constant-fold")
    ops = [line.split("=")[-1].split()[0] for line in ir.splitlines() if " = tj." in line]
    assert sorted(set(ops)) == ["tj.add", "tj.constant"], ir
    tj.config.run_functions_eagerly(True)
    try:
        with np.errstate(all="ignore"):
            reference = uses_captured(x)
    finally:
        tj.config.run_functions_eagerly(False)
    results = compiled(x)
    for got, expected in zip(results, reference, strict=True):
        same_bits(np.asarray(got), np.asarray(expected))


# --- reductions -------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["argmax", "argmin"])
@pytest.mark.parametrize(
    ("shape", "axes"), [((0, 5, 3), (1,)), ((2, 0, 3), (0, 2)), ((0, 4), (1,))]
)
def test_arg_reductions_of_empty_constants_fold(kind, shape, axes):
    """argmax/argmin keeping a dim of size 0 fold to an empty constant (found by the fuzzer:
    the folder's flattening reshape used -1, which NumPy cannot resolve beside a 0 dim)."""
    from tracejit.ir.dtypes import tensor_type
    from tracejit.ir.reduce import ReduceOp

    x = np.zeros(shape, np.uint8)
    kept = tuple(n for d, n in enumerate(shape) if d not in axes)
    op = ReduceOp(kind, ConstantOp.from_array(x).result, axes, tensor_type(kept, np.int64))
    assert op.fold() is not None
    folded = np.asarray(op.KINDS[kind](x, axis=axes))
    assert folded.shape == kept and folded.dtype == np.int64
