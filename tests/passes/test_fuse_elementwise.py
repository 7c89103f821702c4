"""fuse-elementwise on random op graphs: the fused module verifies, means the same as the
original (both are interpreted with every op's NumPy meaning, `tj.fused` included: so the
results are bit-identical) and is stable under a second run. No code is compiled here; the
compiled behaviour is tested in tests/numpy/test_fusion.py.

The graphs mix fusable ops (element-wise, broadcasts, splat constants, reductions) with ops
that are not (matmul, argmax, print), which create the paths around kernels that could
form dependency cycles if fusion were careless.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType, f32, i64
from xdsl.ir import Block, Region, SSAValue

from tracejit.ir import elementwise as ew
from tracejit.ir.constant import ConstantOp
from tracejit.ir.dialect import make_context
from tracejit.ir.fused import FusedOp
from tracejit.ir.matmul import MatmulOp
from tracejit.ir.reduce import ReduceOp
from tracejit.ir.shape_ops import BroadcastInDimOp
from tracejit.ir.state import PrintOp
from tracejit.passes.fuse_elementwise import fuse_elementwise

SHAPES = {"x": (4, 3), "y": (4, 3), "v": (3,), "s": (), "w": (3, 3)}


def tensor(shape) -> TensorType:
    return TensorType(f32, shape)


class GraphBuilder:
    """Appends random ops to one function body, keeping values by shape."""

    def __init__(self, draw):
        self.draw = draw
        self.block = Block(arg_types=[tensor(s) for s in SHAPES.values()])
        self.by_shape: dict[tuple[int, ...], list[SSAValue]] = {}
        for arg, shape in zip(self.block.args, SHAPES.values(), strict=True):
            self.by_shape.setdefault(shape, []).append(arg)

    def pick(self, shape) -> SSAValue:
        """The first argument of that shape or one of the latest values (chains that share
        inputs: what fusion merges)."""
        values = self.by_shape[shape]
        return self.draw(st.sampled_from(values[:1] + values[-3:]))

    def emit(self, op) -> None:
        self.block.add_op(op)
        for result in op.results:
            if result.type.get_element_type() == f32:
                self.by_shape.setdefault(tuple(result.type.get_shape()), []).append(result)

    def step(self) -> None:
        kind = self.draw(st.sampled_from(WEIGHTED_STEPS))
        STEPS[kind](self)


def _unary(g: GraphBuilder) -> None:
    op_type = g.draw(st.sampled_from([ew.NegOp, ew.ExpOp, ew.TanhOp, ew.AbsOp, ew.SqrtOp]))
    shape = g.draw(st.sampled_from([(4, 3), (4, 3), (3,), ()]))
    g.emit(op_type(g.pick(shape)))


def _binary(g: GraphBuilder) -> None:
    op_type = g.draw(st.sampled_from([ew.AddOp, ew.MulOp, ew.SubOp, ew.MaximumOp, ew.DivOp]))
    shape = g.draw(st.sampled_from([(4, 3), (4, 3), (3,), ()]))
    g.emit(op_type(g.pick(shape), g.pick(shape)))


def _broadcast(g: GraphBuilder) -> None:
    source, dims = g.draw(st.sampled_from([((3,), [1]), ((), [])]))
    g.emit(BroadcastInDimOp(g.pick(source), dims, tensor((4, 3))))


def _constant(g: GraphBuilder) -> None:
    shape = g.draw(st.sampled_from([(4, 3), ()]))
    value = g.draw(st.sampled_from([0.5, 2.0, -1.0]))
    g.emit(ConstantOp.from_array(np.full(shape, value, np.float32)))


def _reduce(g: GraphBuilder) -> None:
    kind = g.draw(st.sampled_from(["sum", "max", "prod", "argmax"]))
    axes = g.draw(st.sampled_from([(0,), (1,), (0, 1)]))
    kept = tuple(s for d, s in enumerate((4, 3)) if d not in axes)
    element = i64 if kind == "argmax" else f32
    reduce = ReduceOp(kind, g.pick((4, 3)), axes, TensorType(element, kept))
    g.emit(reduce)
    if kind == "argmax":
        g.emit(ew.CastOp(reduce.result, tensor(kept)))


def _select(g: GraphBuilder) -> None:
    shape = g.draw(st.sampled_from([(4, 3), ()]))
    compare = ew.CompareOp(g.draw(st.sampled_from(["lt", "ne"])), g.pick(shape), g.pick(shape))
    g.emit(compare)
    g.emit(ew.SelectOp(compare.result, g.pick(shape), g.pick(shape)))


def _matmul(g: GraphBuilder) -> None:
    g.emit(MatmulOp(g.pick((4, 3)), g.pick((3, 3)), tensor((4, 3))))


def _print(g: GraphBuilder) -> None:
    g.emit(PrintOp([g.pick(g.draw(st.sampled_from([(4, 3), ()])))], ["", "\n"]))


STEPS = {
    "unary": _unary,
    "binary": _binary,
    "broadcast": _broadcast,
    "constant": _constant,
    "reduce": _reduce,
    "select": _select,
    "matmul": _matmul,
    "print": _print,
}
# Mostly element-wise work, with enough matmuls to make paths around kernels.
WEIGHTED_STEPS = ["unary", "binary", "binary", "matmul", *sorted(STEPS)]


class Generated:
    """A generated module that hypothesis reports as its IR text: its default
    pretty-printer walks the op objects, and a failing example never finished printing."""

    def __init__(self, module: ModuleOp):
        self.module = module

    def __repr__(self) -> str:
        return str(self.module)


@st.composite
def random_modules(draw) -> Generated:
    g = GraphBuilder(draw)
    for _ in range(draw(st.integers(1, 30))):
        g.step()
    produced = [r for op in g.block.ops for r in op.results]
    returned = draw(st.lists(st.sampled_from(produced), min_size=1, max_size=4)) if produced else []
    returned = returned or [g.block.args[0]]
    g.block.add_op(func.ReturnOp(*returned))
    inputs = [tensor(s) for s in SHAPES.values()]
    function = func.FuncOp("f", (inputs, [v.type for v in returned]), Region(g.block))
    return Generated(ModuleOp([function]))


def interpret(module: ModuleOp, inputs: list[np.ndarray]) -> tuple[list[np.ndarray], list]:
    """(returned arrays, printed arrays) of the module's only function."""
    function = next(iter(module.ops))
    env: dict[SSAValue, np.ndarray] = dict(zip(function.body.block.args, inputs, strict=True))
    printed = []
    for op in function.body.block.ops:
        if isinstance(op, func.ReturnOp):
            return [env[v] for v in op.arguments], printed
        if isinstance(op, PrintOp):
            printed.append(env[op.values[0]])
            continue
        if isinstance(op, ConstantOp):
            env[op.result] = op.to_array()
            continue
        outputs = op.evaluate(*(env[v] for v in op.operands))
        outputs = outputs if isinstance(outputs, tuple) else (outputs,)
        for result, out in zip(op.results, outputs, strict=True):
            env[result] = np.asarray(out)
    raise AssertionError("no func.return")


def random_inputs(seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s).astype(np.float32) for s in SHAPES.values()]


def assert_identical(a: list[np.ndarray], b: list[np.ndarray]) -> None:
    assert len(a) == len(b)
    for x, y in zip(a, b, strict=True):
        assert x.dtype == y.dtype and x.shape == y.shape
        np.testing.assert_array_equal(x, y)


@settings(max_examples=150, deadline=None)
@given(random_modules(), st.integers(0, 2**32 - 1))
def test_fusion_keeps_the_meaning(generated: Generated, seed: int) -> None:
    module = generated.module
    module.verify()
    original = module.clone()
    fuse_elementwise(module)
    module.verify()
    inputs = random_inputs(seed)
    with np.errstate(all="ignore"):
        expected, expected_prints = interpret(original, inputs)
        got, got_prints = interpret(module, inputs)
    assert_identical(got, expected)
    assert_identical(got_prints, expected_prints)
    again = module.clone()
    fuse_elementwise(again)
    assert str(again) == str(module)  # a second run finds nothing more to do


def parse(text: str) -> ModuleOp:
    from xdsl.parser import Parser

    return Parser(make_context(), text).parse_module()


def kernels(module: ModuleOp) -> list[FusedOp]:
    return [op for op in module.walk() if isinstance(op, FusedOp)]


def test_chain_is_one_kernel_and_evaluates_like_numpy() -> None:
    module = parse(
        """
        func.func @f(%x: tensor<5xf32>, %y: tensor<5xf32>) -> tensor<5xf32> {
          %a = tj.mul %x, %y : tensor<5xf32>
          %b = tj.tanh %a : tensor<5xf32>
          %c = tj.sub %b, %x : tensor<5xf32>
          func.return %c : tensor<5xf32>
        }
        """
    )
    fuse_elementwise(module)
    (kernel,) = kernels(module)
    x, y = np.linspace(-1, 1, 5, dtype=np.float32), np.full(5, 3, np.float32)
    # tanh of float32 is evaluated in float64 and rounded once, as C's tanhf (ir/elementwise_base)
    tanh = np.tanh((x * y).astype(np.float64)).astype(np.float32)
    np.testing.assert_array_equal(kernel.evaluate(x, y)[0], tanh - x)
    assert kernel.fold() is None  # inputs are not constants


def test_dynamic_shapes_fuse() -> None:
    """A `?` dim is part of the domain; its run-time size is the input's."""
    module = parse(
        """
        func.func @f(%x: tensor<?xf32>) -> tensor<?xf32> {
          %a = tj.neg %x : tensor<?xf32>
          %b = tj.exp %a : tensor<?xf32>
          func.return %b : tensor<?xf32>
        }
        """
    )
    fuse_elementwise(module)
    module.verify()
    (kernel,) = kernels(module)
    assert [op.name for op in kernel.body_ops()] == ["tj.neg", "tj.exp"]
    assert kernel.domain_sizes() == [[(kernel.block.args[0], 0)]]


def test_recompute_budget_option_parses() -> None:
    from tracejit.passes.pipeline import Pipeline

    (fusion,) = Pipeline.parse("fuse-elementwise{recompute-budget=0}").passes
    assert fusion.recompute_budget == 0
