"""scf-to-cf: no scf op survives, blocks come in def-before-use order, and the branches compute
what the structured loops computed (checked with xDSL's interpreter against Python/NumPy)."""

from typing import Any

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects import arith, builtin, cf, func, linalg, math, memref, scf
from xdsl.dialects.builtin import f32, i64
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls
from xdsl.interpreters import arith as arith_impls
from xdsl.interpreters import cf as cf_impls
from xdsl.interpreters import func as func_impls
from xdsl.interpreters import math as math_impls
from xdsl.interpreters import memref as memref_impls
from xdsl.interpreters.shaped_array import ShapedArray
from xdsl.interpreters.utils.ptr import TypedPtr
from xdsl.ir import Block, BlockArgument, OpResult
from xdsl.parser import Parser
from xdsl.transforms.convert_scf_to_cf import ConvertScfToCf

from tracejit.passes.lower_to_loops import LowerToLoopsPass
from tracejit.passes.scf_to_cf import ScfToCfPass

CF_LEVEL_DIALECTS = {"builtin", "func", "cf", "arith", "math", "memref"}

# ---------------------------------------------------------------------------------------------
# helpers


@register_impls
class MemRefDimFunctions(InterpreterFunctions):
    """`memref.dim`, which xDSL's memref interpreter lacks."""

    @impl(memref.DimOp)
    def run_dim(self, interpreter: Interpreter, op: memref.DimOp, args: tuple[Any, ...]):
        array, index = args
        return (array.shape[index],)


def context() -> Context:
    ctx = Context()
    for dialect in (
        builtin.Builtin, func.Func, arith.Arith, math.Math, memref.MemRef, linalg.Linalg,
        scf.Scf, cf.Cf,
    ):  # fmt: skip
        ctx.load_dialect(dialect)
    return ctx


def lower(text: str) -> builtin.ModuleOp:
    """Parse, run scf-to-cf, and check the result is cf-level IR in a usable block order."""
    ctx = context()
    module = Parser(ctx, text).parse_module()
    module.verify()
    ScfToCfPass().apply(ctx, module)
    module.verify()
    assert {op.dialect_name() for op in module.walk()} <= CF_LEVEL_DIALECTS
    assert_defs_before_uses(module)
    return module


def assert_defs_before_uses(module: builtin.ModuleOp) -> None:
    """Every operand is defined in an earlier block, or earlier in the same block."""
    for function in module.ops:
        assert isinstance(function, func.FuncOp)
        blocks = list(function.body.blocks)
        position = {block: i for i, block in enumerate(blocks)}
        for block in blocks:
            for op_index, op in enumerate(block.ops):
                for operand in op.operands:
                    def_block = defining_block(operand)
                    assert position[def_block] <= position[block], f"{operand} used before def"
                    if def_block is block and isinstance(operand, OpResult):
                        assert block.get_operation_index(operand.op) < op_index


def defining_block(value: Any) -> Block:
    if isinstance(value, BlockArgument):
        return value.block
    block = value.op.parent_block()
    assert block is not None
    return block


def interpreter(module: builtin.ModuleOp) -> Interpreter:
    interp = Interpreter(module)
    for functions in (
        func_impls.FuncFunctions(), arith_impls.ArithFunctions(), math_impls.MathFunctions(),
        memref_impls.MemRefFunctions(), cf_impls.CfFunctions(), MemRefDimFunctions(),
    ):  # fmt: skip
        interp.register_implementations(functions)
    return interp


def call(module: builtin.ModuleOp, name: str, *args: Any) -> tuple[Any, ...]:
    return interpreter(module).call_op(name, args)


def buffer(array: np.ndarray, xtype: Any) -> ShapedArray[Any]:
    return ShapedArray(TypedPtr.new(array.ravel().tolist(), xtype=xtype), [*array.shape])


# ---------------------------------------------------------------------------------------------
# scf.while

SUM_TO = """
func.func @sum_to(%n: i64) -> (i64, i64) {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %r:2 = scf.while (%i = %c1, %s = %c0) : (i64, i64) -> (i64, i64) {
    %go = arith.cmpi sle, %i, %n : i64
    scf.condition(%go) %i, %s : i64, i64
  } do {
  ^bb0(%i2: i64, %s2: i64):
    %s3 = arith.addi %s2, %i2 : i64
    %i3 = arith.addi %i2, %c1 : i64
    scf.yield %i3, %s3 : i64, i64
  }
  func.return %r#0, %r#1 : i64, i64
}
"""


@pytest.mark.parametrize("n", [-3, 0, 1, 10])
def test_sum_to_n_with_two_carried_values(n: int) -> None:
    """n <= 0: the body runs zero times and the results are the initial values."""
    i, total = call(lower(SUM_TO), "sum_to", n)
    assert (i, total) == (max(n, 0) + 1, sum(range(1, n + 1)))


def test_while_block_layout() -> None:
    """entry -> before (cond_br) -> after (br back) -> exit, in that order."""
    (function,) = lower(SUM_TO).ops
    assert isinstance(function, func.FuncOp)
    entry, before, after, exit_block = function.body.blocks
    assert entry.args == function.args
    assert isinstance(entry.last_op, cf.BranchOp) and entry.last_op.successor is before
    assert isinstance(before.last_op, cf.ConditionalBranchOp)
    assert (before.last_op.then_block, before.last_op.else_block) == (after, exit_block)
    assert isinstance(after.last_op, cf.BranchOp) and after.last_op.successor is before
    assert len(exit_block.args) == 2


COLLATZ = """
func.func @collatz(%n: i64) -> i64 {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %c2 = arith.constant 2 : i64
  %c3 = arith.constant 3 : i64
  %r:2 = scf.while (%x = %n, %steps = %c0) : (i64, i64) -> (i64, i64) {
    %go = arith.cmpi ne, %x, %c1 : i64
    scf.condition(%go) %x, %steps : i64, i64
  } do {
  ^bb0(%x2: i64, %s2: i64):
    %rem = arith.remsi %x2, %c2 : i64
    %even = arith.cmpi eq, %rem, %c0 : i64
    %next = scf.if %even -> (i64) {
      %half = arith.divsi %x2, %c2 : i64
      scf.yield %half : i64
    } else {
      %t = arith.muli %x2, %c3 : i64
      %t1 = arith.addi %t, %c1 : i64
      scf.yield %t1 : i64
    }
    %s3 = arith.addi %s2, %c1 : i64
    scf.yield %next, %s3 : i64, i64
  }
  func.return %r#1 : i64
}
"""


def collatz_steps(n: int) -> int:
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


@pytest.mark.parametrize("n", [1, 6, 27])
def test_collatz_with_if_in_while(n: int) -> None:
    (steps,) = call(lower(COLLATZ), "collatz", n)
    assert steps == collatz_steps(n)


FIRST_SQUARE_ABOVE = """
func.func @first_square_above(%limit: i64) -> (i64, i64) {
  %c1 = arith.constant 1 : i64
  %r:2 = scf.while (%i = %c1) : (i64) -> (i64, i64) {
    %sq = arith.muli %i, %i : i64
    %go = arith.cmpi sle, %sq, %limit : i64
    scf.condition(%go) %i, %sq : i64, i64
  } do {
  ^bb0(%i2: i64, %sq2: i64):
    %i3 = arith.addi %i2, %c1 : i64
    scf.yield %i3 : i64
  }
  func.return %r#0, %r#1 : i64, i64
}
"""


@pytest.mark.parametrize("limit", [0, 1, 50])
def test_before_and_after_regions_carry_different_values(limit: int) -> None:
    i, square = call(lower(FIRST_SQUARE_ABOVE), "first_square_above", limit)
    expected = next(k for k in range(1, 100) if k * k > limit)
    assert (i, square) == (expected, expected * expected)


COUNT_IN_MEMORY = """
func.func @count(%m: memref<1xi64>, %limit: i64) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1 : i64
  scf.while () : () -> () {
    %v = memref.load %m[%c0] : memref<1xi64>
    %go = arith.cmpi slt, %v, %limit : i64
    scf.condition(%go)
  } do {
    %v2 = memref.load %m[%c0] : memref<1xi64>
    %v3 = arith.addi %v2, %one : i64
    memref.store %v3, %m[%c0] : memref<1xi64>
    scf.yield
  }
  func.return
}
"""


@pytest.mark.parametrize(("start", "limit"), [(0, 4), (9, 4)])
def test_while_without_carried_values(start: int, limit: int) -> None:
    counter = buffer(np.array([start]), i64)
    call(lower(COUNT_IN_MEMORY), "count", counter, limit)
    assert counter.data == [max(start, limit)]


NESTED_IN_FOR = """
func.func @nested(%n: index) -> i64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0 : i64
  %total = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (i64) {
    %r:2 = scf.while (%j = %c0, %a = %acc) : (index, i64) -> (index, i64) {
      %lt = arith.cmpi slt, %j, %i : index
      scf.condition(%lt) %j, %a : index, i64
    } do {
    ^bb0(%j2: index, %a2: i64):
      %ji = arith.index_cast %j2 : index to i64
      %a3 = arith.addi %a2, %ji : i64
      %j3 = arith.addi %j2, %c1 : index
      scf.yield %j3, %a3 : index, i64
    }
    scf.yield %r#1 : i64
  }
  func.return %total : i64
}
"""


@pytest.mark.parametrize("n", [0, 1, 5])
def test_while_nested_in_for(n: int) -> None:
    (total,) = call(lower(NESTED_IN_FOR), "nested", n)
    assert total == sum(j for i in range(n) for j in range(i))


def test_while_whose_regions_were_already_lowered_to_several_blocks() -> None:
    """xDSL's pass lowers the scf.if inside the while first, leaving a multi-block after
    region; the while lowering must still find its scf.yield."""
    ctx = context()
    module = Parser(ctx, COLLATZ).parse_module()
    ConvertScfToCf().apply(ctx, module)
    (while_op,) = [op for op in module.walk() if isinstance(op, scf.WhileOp)]
    assert len(while_op.after_region.blocks) > 1
    ScfToCfPass().apply(ctx, module)
    module.verify()
    assert not [op for op in module.walk() if op.dialect_name() == "scf"]
    assert call(module, "collatz", 27) == (collatz_steps(27),)


# ---------------------------------------------------------------------------------------------
# with lower-to-loops: linalg -> scf -> cf

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


@pytest.mark.parametrize(("m", "k", "n"), [(2, 3, 4), (2, 0, 3)])
def test_matmul_through_loops_to_cf(m: int, k: int, n: int) -> None:
    ctx = context()
    module = Parser(ctx, MATMUL).parse_module()
    LowerToLoopsPass().apply(ctx, module)
    text = str(module)
    module = lower(text)
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((m, k), np.float32), rng.standard_normal((k, n), np.float32)
    c = buffer(np.full((m, n), 7.0), f32)
    call(module, "matmul", buffer(a, f32), buffer(b, f32), c)
    np.testing.assert_allclose(np.array(c.data).reshape(m, n), a @ b, rtol=1e-5, atol=1e-5)
