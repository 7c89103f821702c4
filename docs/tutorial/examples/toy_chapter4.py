"""Chapter 10: an interface of our own, an inliner interface, a type conversion (MLIR's Toy
chapter 4), written over xDSL for the `tj` dialect (see docs/tutorial/10-*.md)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialect_interfaces import DialectInterface
from xdsl.dialects import func
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, ModuleOp, TensorType, f32, f64
from xdsl.ir import Operation, SSAValue
from xdsl.ir.core import OpTraits
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    TypeConversionPattern,
    attr_type_rewrite_pattern,
    op_type_rewrite_pattern,
)
from xdsl.traits import OpTrait

from tracejit.ir.constant import ConstantOp
from tracejit.ir.dialect import TJ
from tracejit.ir.elementwise import CastOp
from tracejit.ir.elementwise_unary import NegOp


# --- 1. An interface of our own ------------------------------------------------------------
class Involution(OpTrait):
    """An op that undoes itself: op(op(x)) == x, bit for bit, for every x of its type."""

    def cancels(self, outer: Operation, inner: Operation) -> bool:
        """Whether `outer` applied to `inner`'s result gives `inner`'s operand back."""
        return type(outer) is type(inner) and outer.results[0].type == inner.operands[0].type


@contextlib.contextmanager
def attached(trait: OpTrait, *op_types: type[Operation]) -> Iterator[None]:
    """Give op classes of a dialect we do not own one more trait while this is active
    (MLIR's "external models": an interface attached from outside the dialect)."""
    own = [(op_type, op_type.__dict__.get("traits")) for op_type in op_types]
    for op_type in op_types:
        op_type.traits = OpTraits(lambda old=op_type.traits: (*old, trait))
    try:
        yield
    finally:
        for op_type, traits in own:
            if traits is None:
                del op_type.traits
            else:
                op_type.traits = traits


class CancelInvolution(RewritePattern):
    """f(f(x)) -> x for every op that says it is an `Involution`: no op is named here."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        involution = op.get_trait(Involution)
        if involution is None or len(op.operands) != 1:
            return
        inner = op.operands[0].owner
        if isinstance(inner, Operation) and involution.cancels(op, inner):
            rewriter.replace(op, [], [inner.operands[0]])


@dataclass(frozen=True)
class CancelInvolutionsPass(ModulePass):
    name = "cancel-involutions"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        # the applier also erases what became dead (the inner op, when nothing else uses it)
        PatternRewriteWalker(GreedyRewritePatternApplier([CancelInvolution()])).rewrite_module(op)


def involutions_attached() -> contextlib.AbstractContextManager[None]:
    """The chapter's attachment: tj.neg (-(-x) is x, integers wrap back too)."""
    return attached(Involution(), NegOp)


# --- 2. Inlining through a dialect interface ---------------------------------------------------
class DialectInlinerInterface(DialectInterface):
    """What a dialect tells a generic inliner (MLIR's DialectInlinerInterface, which xDSL
    0.74 lacks; `xdsl.dialect_interfaces.DialectInterface` is its base, as for constant
    materialization). By default nothing is legal to inline."""

    def is_legal_to_inline(self, op: Operation) -> bool:
        return False

    def handle_terminator(self, terminator: Operation, mapped: list[SSAValue]) -> list[SSAValue]:
        """The values that replace the inlined op's results: `mapped` are the terminator's
        operands in the caller."""
        raise NotImplementedError(f"{terminator.name} cannot end an inlined region")


class TjInliner(DialectInlinerInterface):
    """Every tj op may be inlined: value semantics, effects declared by traits (the order of
    the ops with effects is kept, since they are cloned in order)."""

    def is_legal_to_inline(self, op: Operation) -> bool:
        return True


class FuncInliner(DialectInlinerInterface):
    """func.return ends a callee: its operands replace the call's results."""

    def is_legal_to_inline(self, op: Operation) -> bool:
        return isinstance(op, func.ReturnOp)

    def handle_terminator(self, terminator: Operation, mapped: list[SSAValue]) -> list[SSAValue]:
        assert isinstance(terminator, func.ReturnOp)
        return mapped


INLINERS: dict[str, DialectInlinerInterface] = {"tj": TjInliner(), "func": FuncInliner()}


def legal_to_inline(op: Operation, interfaces: dict[str, DialectInlinerInterface]) -> bool:
    """Ask the op's dialect (and, for its regions, their ops' dialects)."""
    interface = interfaces.get(op.dialect_name())
    if interface is None or not interface.is_legal_to_inline(op):
        return False
    return all(legal_to_inline(inner, interfaces) for r in op.regions for inner in r.walk())


def inline_block(
    block_ops: list[Operation], values: dict[SSAValue, SSAValue], before: Operation,
    interfaces: dict[str, DialectInlinerInterface],
) -> list[SSAValue]:
    """Clone `block_ops` in front of `before` (arguments mapped by `values`); the last op is
    the terminator, which its dialect's interface turns into the replacement values."""
    *body, terminator = block_ops
    for op in body:
        before.parent_block().insert_op_before(op.clone(value_mapper=values), before)
    mapped = [values.get(v, v) for v in terminator.operands]
    return interfaces[terminator.dialect_name()].handle_terminator(terminator, mapped)


def inline_calls(module: ModuleOp, interfaces: dict[str, DialectInlinerInterface]) -> int:
    """Inline each func.call of a function of `module` whose body is legal to inline;
    return how many. A generic algorithm: every decision is an interface's."""
    functions = {f.sym_name.data: f for f in module.ops if isinstance(f, func.FuncOp)}
    count = 0
    for call in [op for op in module.walk() if isinstance(op, func.CallOp)]:
        callee = functions.get(call.callee.root_reference.data)
        if callee is None or not all(legal_to_inline(op, interfaces) for op in callee.body.ops):
            continue
        block = callee.body.block
        values = dict(zip(block.args, call.arguments, strict=True))
        results = inline_block(list(block.ops), values, call, interfaces)
        for result, value in zip(call.results, results, strict=True):
            result.replace_all_uses_with(value)
        call.detach()
        call.erase()
        count += 1
    return count


# --- 3. A conversion with a type converter --------------------------------------------------------
class F64ToF32(TypeConversionPattern):
    """The type converter: tensor<...xf64> -> tensor<...xf32>, applied by xDSL to every
    result type and region argument of the ops it is given: the tj ops, not func.func (its
    signature stays float64)."""

    ops = tuple(TJ.operations)

    @attr_type_rewrite_pattern
    def convert_type(self, typ: TensorType) -> TensorType | None:
        if typ.get_element_type() != f64:
            return None
        return TensorType(f32, typ.get_shape())


class DemoteConstant(RewritePattern):
    """A conversion pattern for the op whose *attribute* holds f64 data: rebuild the constant
    with its values rounded to float32 (the type converter alone would leave them f64)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ConstantOp, rewriter: PatternRewriter) -> None:
        value = op.value
        assert isinstance(value, DenseIntOrFPElementsAttr)
        if value.get_element_type() != f64:
            return
        rewriter.replace(op, ConstantOp.from_array(op.to_array().astype(np.float32)))


def demote_function(function: func.FuncOp) -> None:
    """Compute `function` in float32, keeping its float64 signature: casts materialize the
    converted values where they meet unconverted ones, at the arguments and the return."""
    block = function.body.block
    for arg in block.args:  # materialization: f64 argument -> f32 value for the body
        if isinstance(arg.type, TensorType) and arg.type.get_element_type() == f64:
            cast = CastOp(arg, TensorType(f32, arg.type.get_shape()))
            block.insert_op_before(cast, block.first_op)
            for use in [u for u in arg.uses if u.operation is not cast]:
                use.operation.operands[use.index] = cast.result
    patterns = GreedyRewritePatternApplier([DemoteConstant(), F64ToF32()])
    PatternRewriteWalker(patterns).rewrite_region(function.body)  # the conversion
    ret = block.last_op
    assert isinstance(ret, func.ReturnOp)
    outputs = function.function_type.outputs.data
    for index, (value, wanted) in enumerate(zip(ret.arguments, outputs, strict=True)):
        if value.type != wanted:  # materialization: the f32 result -> the f64 the caller sees
            cast = CastOp(value, wanted)
            block.insert_op_before(cast, ret)
            ret.operands[index] = cast.result


@dataclass(frozen=True)
class DemoteF64Pass(ModulePass):
    name = "demote-f64"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for function in op.ops:
            if isinstance(function, func.FuncOp) and not function.is_declaration:
                demote_function(function)
