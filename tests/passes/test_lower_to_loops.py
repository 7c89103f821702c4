"""lower-to-loops: the loops compute what NumPy computes, and have the promised shape.

Semantics are checked by running the lowered module in xDSL's interpreter on small arrays.
The interpreter has no `memref.dim`, so this file registers a three-line implementation.
"""

from typing import Any

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects import arith, builtin, cf, func, linalg, math, memref, scf
from xdsl.dialects.builtin import f32
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls
from xdsl.interpreters import arith as arith_impls
from xdsl.interpreters import func as func_impls
from xdsl.interpreters import math as math_impls
from xdsl.interpreters import memref as memref_impls
from xdsl.interpreters import scf as scf_impls
from xdsl.interpreters.shaped_array import ShapedArray
from xdsl.interpreters.utils.ptr import TypedPtr
from xdsl.parser import Parser
from xdsl.utils.exceptions import PassFailedException

from tracejit.passes.lower_to_loops import LowerToLoopsPass

# ---------------------------------------------------------------------------------------------
# helpers


@register_impls
class MemRefDimFunctions(InterpreterFunctions):
    """`memref.dim` and `arith.minui`, which xDSL's interpreters lack."""

    @impl(memref.DimOp)
    def run_dim(self, interpreter: Interpreter, op: memref.DimOp, args: tuple[Any, ...]):
        array, index = args
        return (array.shape[index],)

    @impl(arith.MinUIOp)
    def run_minui(self, interpreter: Interpreter, op: arith.MinUIOp, args: tuple[Any, ...]):
        """The end of a block of a blocked sum (index values: never negative here)."""
        return (min(args),)


def context() -> Context:
    ctx = Context()
    for dialect in (
        builtin.Builtin, func.Func, arith.Arith, math.Math, memref.MemRef, linalg.Linalg,
        scf.Scf, cf.Cf,
    ):  # fmt: skip
        ctx.load_dialect(dialect)
    return ctx


def lower(text: str) -> builtin.ModuleOp:
    ctx = context()
    module = Parser(ctx, text).parse_module()
    module.verify()
    LowerToLoopsPass().apply(ctx, module)
    module.verify()
    return module


def run(module: builtin.ModuleOp, name: str, *arrays: np.ndarray) -> list[np.ndarray]:
    """Call `name` on f32 buffers holding `arrays`; return the buffers' contents after."""
    interpreter = Interpreter(module)
    for functions in (
        func_impls.FuncFunctions(), arith_impls.ArithFunctions(), math_impls.MathFunctions(),
        memref_impls.MemRefFunctions(), scf_impls.ScfFunctions(), MemRefDimFunctions(),
    ):  # fmt: skip
        interpreter.register_implementations(functions)
    buffers = [
        ShapedArray(TypedPtr.new(a.astype(np.float32).ravel().tolist(), xtype=f32), [*a.shape])
        for a in arrays
    ]
    interpreter.call_op(name, tuple(buffers))
    return [
        np.array(b.data, np.float32).reshape(a.shape) for a, b in zip(arrays, buffers, strict=True)
    ]


def ops_named(module: builtin.ModuleOp, name: str) -> list[Any]:
    return [op for op in module.walk() if op.name == name]


def random(*shape: int) -> np.ndarray:
    return np.random.default_rng(sum(shape) + len(shape)).standard_normal(shape, np.float32)


def check_close(actual: np.ndarray, expected: np.ndarray) -> None:
    np.testing.assert_allclose(actual, expected, rtol=1e-5, atol=1e-5)


# ---------------------------------------------------------------------------------------------
# element-wise


ADD_BROADCAST = """
func.func @add(%x: memref<?x3xf32>, %y: memref<1x3xf32>, %t: memref<?x3xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (0, d1)>,
                                   affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : memref<?x3xf32>, memref<1x3xf32>) outs(%t : memref<?x3xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  }
  func.return
}
"""


@pytest.mark.parametrize("rows", [0, 1, 4])
def test_add_with_broadcast_and_dynamic_dim(rows: int) -> None:
    module = lower(ADD_BROADCAST)
    x, y = random(rows, 3), random(1, 3)
    _, _, t = run(module, "add", x, y, np.zeros((rows, 3)))
    check_close(t, x + y)


def test_elementwise_structure() -> None:
    """One load per input, no load of the unused output, one store, a dim for the `?`."""
    module = lower(ADD_BROADCAST)
    assert not [op for op in module.walk() if op.dialect_name() == "linalg"]
    assert len(ops_named(module, "scf.for")) == 2
    assert len(ops_named(module, "memref.load")) == 2
    assert len(ops_named(module, "memref.store")) == 1
    (dim,) = ops_named(module, "memref.dim")
    assert dim.source.name_hint == "x"


TRANSPOSE_EXP = """
func.func @f(%x: memref<3x2xf32>, %t: memref<2x3xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>,
                                   affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<3x2xf32>) outs(%t : memref<2x3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %e = math.exp %a : f32
    %s = arith.addf %e, %o : f32
    linalg.yield %s : f32
  }
  func.return
}
"""


def test_transposed_map_and_used_output() -> None:
    module = lower(TRANSPOSE_EXP)
    x, t = random(3, 2), random(2, 3)
    _, out = run(module, "f", x, t)
    check_close(out, np.exp(x.T) + t)


# ---------------------------------------------------------------------------------------------
# reductions

SUM_AXIS0 = """
func.func @sum0(%x: memref<?x3xf32>, %out: memref<3xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<3xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d1)>],
                  iterator_types = ["reduction", "parallel"]}
      ins(%x : memref<?x3xf32>) outs(%out : memref<3xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a fastmath<reassoc> : f32
    linalg.yield %s : f32
  }
  func.return
}
"""

SUM_AXIS1 = """
func.func @sum1(%x: memref<4x?xf32>, %out: memref<4xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<4xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x?xf32>) outs(%out : memref<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a fastmath<reassoc> : f32
    linalg.yield %s : f32
  }
  func.return
}
"""

SUM_ALL = """
func.func @sum(%x: memref<?x3xf32>, %out: memref<f32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<f32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> ()>],
                  iterator_types = ["reduction", "reduction"]}
      ins(%x : memref<?x3xf32>) outs(%out : memref<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a fastmath<reassoc> : f32
    linalg.yield %s : f32
  }
  func.return
}
"""


@pytest.mark.parametrize("rows", [0, 1, 5])
def test_sum_over_axis_0(rows: int) -> None:
    x = random(rows, 3)
    _, out = run(lower(SUM_AXIS0), "sum0", x, np.full(3, 7.0))
    check_close(out, x.sum(axis=0))


@pytest.mark.parametrize("cols", [0, 1, 5])
def test_sum_over_axis_1(cols: int) -> None:
    x = random(4, cols)
    _, out = run(lower(SUM_AXIS1), "sum1", x, np.full(4, 7.0))
    check_close(out, x.sum(axis=1))


@pytest.mark.parametrize("rows", [0, 2])
def test_sum_over_all_axes(rows: int) -> None:
    x = random(rows, 3)
    _, out = run(lower(SUM_ALL), "sum", x, np.full((), 7.0))
    check_close(out, x.sum())


def test_reduction_dims_innermost_with_accumulator_in_registers() -> None:
    """sum over axis 1: the d0 loop (parallel) is outside the d1 loop (reduction), which
    carries the accumulator; the output is loaded once before and stored once after it.
    (Over axis 0 the loops keep their order instead: tests/passes/test_reduction_loops.py.)"""
    module = lower(SUM_AXIS1)
    outer, inner = ops_named(module, "scf.for")[-2:]
    assert inner.parent_op() is outer
    assert outer.body.block.args[0].name_hint == "d0"
    assert inner.body.block.args[0].name_hint == "d1"
    assert len(inner.iter_args) == 1 and len(outer.iter_args) == 0
    loads = [op.name for op in outer.body.block.ops]
    assert loads == ["memref.load", "scf.for", "memref.store", "scf.yield"]
    assert [op.name for op in inner.body.block.ops] == ["memref.load", "arith.addf", "scf.yield"]


MATMUL = """
func.func @matmul(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<?x?xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, k)>,
                                   affine_map<(i, j, k) -> (k, j)>,
                                   affine_map<(i, j, k) -> (i, j)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p fastmath<reassoc> : f32
    linalg.yield %s : f32
  }
  func.return
}
"""


@pytest.mark.parametrize(("m", "k", "n"), [(2, 3, 4), (1, 1, 1), (3, 0, 2), (0, 2, 3)])
def test_matmul(m: int, k: int, n: int) -> None:
    a, b = random(m, k), random(k, n)
    *_, c = run(lower(MATMUL), "matmul", a, b, np.full((m, n), 7.0))
    check_close(c, a @ b)


MAX_AND_SUM = """
func.func @f(%x: memref<2x3xf32>, %mx: memref<2xf32>, %sm: memref<2xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0)>,
                                   affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<2x3xf32>) outs(%mx, %sm : memref<2xf32>, memref<2xf32>) {
  ^bb0(%a: f32, %m: f32, %s: f32):
    %m2 = arith.maximumf %m, %a : f32
    %s2 = arith.addf %s, %a : f32
    linalg.yield %m2, %s2 : f32, f32
  }
  func.return
}
"""


def test_two_outputs_reduced_together() -> None:
    x = random(2, 3)
    _, mx, sm = run(lower(MAX_AND_SUM), "f", x, np.full(2, -np.inf), np.zeros(2))
    check_close(mx, x.max(axis=1))
    check_close(sm, x.sum(axis=1))


# ---------------------------------------------------------------------------------------------
# linalg.index, fill, everything else untouched, unsupported input

EYE = """
func.func @eye(%t: memref<3x4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]} outs(%t : memref<3x4xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %on_diagonal = arith.cmpi eq, %i, %j : index
    %one = arith.constant 1.0 : f32
    %zero = arith.constant 0.0 : f32
    %r = arith.select %on_diagonal, %one, %zero : f32
    linalg.yield %r : f32
  }
  func.return
}
"""


def test_linalg_index_becomes_the_induction_variable() -> None:
    module = lower(EYE)
    assert not ops_named(module, "memref.load")
    (out,) = run(module, "eye", np.full((3, 4), 7.0))
    check_close(out, np.eye(3, 4))


FILL = """
func.func @fill(%t: memref<?x2xf32>) {
  %v = arith.constant 2.5 : f32
  linalg.fill ins(%v : f32) outs(%t : memref<?x2xf32>)
  func.return
}
"""


@pytest.mark.parametrize("rows", [0, 3])
def test_fill(rows: int) -> None:
    (out,) = run(lower(FILL), "fill", random(rows, 2))
    check_close(out, np.full((rows, 2), 2.5))


def test_other_ops_are_left_alone() -> None:
    text = """
func.func @f(%x: memref<4xf32>, %v: f32) -> f32 {
  %dead = arith.addf %v, %v : f32
  %c0 = arith.constant 0 : index
  memref.store %v, %x[%c0] : memref<4xf32>
  func.return %v : f32
}
"""
    ctx = context()
    module = Parser(ctx, text).parse_module()
    before = str(module)
    LowerToLoopsPass().apply(ctx, module)
    assert str(module) == before


def test_tensor_semantics_is_rejected() -> None:
    text = """
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%x : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}
"""
    with pytest.raises(PassFailedException, match="bufferize"):
        lower(text)


def test_non_permutation_map_is_rejected() -> None:
    text = """
func.func @f(%x: memref<4xf32>, %t: memref<2xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0 * 2)>, affine_map<(d0) -> (d0)>],
                  iterator_types = ["parallel"]}
      ins(%x : memref<4xf32>) outs(%t : memref<2xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  func.return
}
"""
    with pytest.raises(PassFailedException, match="unsupported indexing expression"):
        lower(text)
