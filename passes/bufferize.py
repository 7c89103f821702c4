"""bufferize: tensor functions -> buffer functions built of `linalg.generic` ops.

Expects `func.func`s on tensors made of `tj` ops (static shapes) ending in `func.return`.
Produces destination-passing functions on memrefs, the calling convention of
`codegen/abi.py`:

    func.func @f(%x: memref<4x3xf32>, %out0: memref<3xf32>)   // inputs, then outputs

* every tensor value gets a buffer: a returned value is computed straight into its
  output argument; other values get a `memref.alloc`, freed before the return;
* every `tj` op becomes one `linalg.generic` whose body is the op's scalar form
  (`passes/scalar_semantics.py`); `lower-to-loops` turns those into loop nests;
* splat constants become a fill, other constants a `memref.global`;
* inputs are read only: a returned input is copied into its output buffer.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects import func, memref
from xdsl.dialects.builtin import (
    AffineMapAttr,
    MemRefType,
    ModuleOp,
    StringAttr,
    TensorType,
    UnitAttr,
)
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.dialects.linalg.ops import GenericOp, YieldOp
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint
from xdsl.utils.exceptions import DiagnosticException

from tracejit.ir import elementwise as ew
from tracejit.ir.constant import ConstantOp
from tracejit.ir.dense import array_from_dense
from tracejit.ir.matmul import MatmulOp
from tracejit.ir.reduce import ReduceOp
from tracejit.ir.shape_ops import BroadcastInDimOp
from tracejit.passes import scalar_semantics as scalar
from tracejit.passes.scalar_semantics import signless

PARALLEL = IteratorTypeAttr.parallel()
REDUCTION = IteratorTypeAttr.reduction()

# body(builder, input scalars, output scalars) -> values to yield
BodyBuilder = Callable[[Builder, Sequence[SSAValue], Sequence[SSAValue]], Sequence[SSAValue]]


def memref_type(ttype: Attribute) -> MemRefType:
    assert isinstance(ttype, TensorType), ttype
    if not ttype.has_static_shape():
        raise DiagnosticException(f"bufferize: dynamic shapes are not supported yet ({ttype})")
    return MemRefType(signless(ttype.get_element_type()), ttype.get_shape())


def identity_map(rank: int) -> AffineMapAttr:
    return AffineMapAttr(AffineMap.identity(rank))


def projection_map(rank: int, results: Sequence[AffineExpr]) -> AffineMapAttr:
    return AffineMapAttr(AffineMap(rank, 0, tuple(results)))


class FunctionBufferizer:
    """Rewrites one tensor function into its buffer form (see the module docstring)."""

    def __init__(self, module: ModuleOp, function: func.FuncOp):
        self.module = module
        self.old = function
        self.returned = self._returned_values()
        inputs = [memref_type(t) for t in function.function_type.inputs]
        outputs = [memref_type(t) for t in function.function_type.outputs]
        self.new = func.FuncOp(function.sym_name.data, (inputs + outputs, []))
        for name, attr in function.attributes.items():
            if name not in ("sym_name", "function_type"):
                self.new.attributes[name] = attr
        if function.sym_visibility is not None:
            self.new.sym_visibility = function.sym_visibility
        args = self.new.body.block.args
        self.outputs = list(args[len(inputs) :])
        self.values: dict[SSAValue, SSAValue] = dict(
            zip(function.body.block.args, args[: len(inputs)], strict=True)
        )
        self.allocations: list[SSAValue] = []
        self.builder = Builder(InsertPoint.at_end(self.new.body.block))

    def _returned_values(self) -> list[SSAValue]:
        terminator = self.old.body.block.last_op
        assert isinstance(terminator, func.ReturnOp)
        return list(terminator.arguments)

    # --- buffers -----------------------------------------------------------------
    def destination(self, result: SSAValue) -> SSAValue:
        """The buffer `result` is computed into: its output argument, or a new alloc."""
        if result in self.returned:
            return self.outputs[self.returned.index(result)]
        buffer = self.builder.insert(memref.AllocOp([], [], memref_type(result.type))).memref
        self.allocations.append(buffer)
        return buffer

    def generic(
        self,
        inputs: Sequence[SSAValue],
        output: SSAValue,
        maps: Sequence[AffineMapAttr],
        iterators: Sequence[Attribute],
        body: BodyBuilder,
        location: Attribute,
    ) -> None:
        element_types = [v.type.get_element_type() for v in (*inputs, output)]  # type: ignore[attr-defined]
        block = Block(arg_types=element_types)
        body_builder = Builder(InsertPoint.at_end(block))
        yielded = body(body_builder, block.args[: len(inputs)], block.args[len(inputs) :])
        body_builder.insert(YieldOp(*yielded))
        op = GenericOp(inputs, [output], Region(block), maps, iterators)
        op.location = location
        self.builder.insert(op)

    def elementwise(self, op: Operation, operands: Sequence[SSAValue], body: BodyBuilder) -> None:
        result = op.results[0]
        rank = len(result.type.get_shape())  # type: ignore[attr-defined]
        inputs = [self.values[v] for v in operands]
        output = self.destination(result)
        maps = [identity_map(rank)] * (len(inputs) + 1)
        self.generic(inputs, output, maps, [PARALLEL] * rank, body, op.location)
        self.values[result] = output

    def fill(self, buffer: SSAValue, value: float | int, element: Attribute, location) -> None:
        rank = len(buffer.type.get_shape())  # type: ignore[attr-defined]
        self.generic(
            [],
            buffer,
            [identity_map(rank)],
            [PARALLEL] * rank,
            lambda b, ins, outs: [scalar.constant(b, value, element)],
            location,
        )

    # --- one method per tj op --------------------------------------------------------
    def run(self) -> func.FuncOp:
        for op in self.old.body.block.ops:
            handler = self.HANDLERS.get(type(op))
            if handler is None:
                if isinstance(op, ew.ElementwiseUnaryOp | ew.ElementwiseBinaryOp):
                    handler = FunctionBufferizer.lower_elementwise
                else:
                    raise DiagnosticException(f"bufferize: cannot bufferize {op.name}")
            handler(self, op)
        return self.new

    def lower_elementwise(self, op: Operation) -> None:
        element = op.results[0].type.get_element_type()  # type: ignore[attr-defined]
        self.elementwise(
            op,
            op.operands,
            lambda b, ins, outs: [scalar.emit_scalar(b, type(op), ins, element)],
        )

    def lower_cast(self, op: ew.CastOp) -> None:
        source = op.input.type.get_element_type()  # type: ignore[attr-defined]
        target = op.result.type.get_element_type()  # type: ignore[attr-defined]
        self.elementwise(
            op, [op.input], lambda b, ins, outs: [scalar.emit_cast(b, ins[0], source, target)]
        )

    def lower_constant(self, op: ConstantOp) -> None:
        array = array_from_dense(op.value)
        buffer_type = memref_type(op.result.type)
        element = op.result.type.get_element_type()
        if array.size > 0 and (array == array.reshape(-1)[0]).all():
            buffer = self.destination(op.result)
            self.fill(buffer, array.reshape(-1)[0].item(), element, op.location)
        else:
            name = self.add_global(op, buffer_type)
            get = self.builder.insert(memref.GetGlobalOp(name, buffer_type))
            buffer = get.memref
            if op.result in self.returned:
                self.copy_into(buffer, self.destination(op.result))
        self.values[op.result] = buffer

    def add_global(self, op: ConstantOp, buffer_type: MemRefType) -> str:
        taken = {
            g.sym_name.data for g in self.module.body.block.ops if isinstance(g, memref.GlobalOp)
        }
        index = len(taken)
        while f"__tj_constant_{index}" in taken:
            index += 1
        name = f"__tj_constant_{index}"
        value = op.value
        if signless(op.result.type.get_element_type()) != op.result.type.get_element_type():
            from tracejit.ir.dense import dense_from_array

            raw = array_from_dense(op.value)
            value = dense_from_array(raw.view(raw.dtype.str.replace("u", "i")))
        glob = memref.GlobalOp.get(
            StringAttr(name), buffer_type, value, constant=UnitAttr(), alignment=64
        )
        self.module.body.block.insert_op_before(glob, self.module.body.block.first_op)  # type: ignore[arg-type]
        return name

    def lower_broadcast(self, op: BroadcastInDimOp) -> None:
        source_shape = op.operand.type.get_shape()  # type: ignore[attr-defined]
        target_shape = op.result.type.get_shape()  # type: ignore[attr-defined]
        rank = len(target_shape)
        reads = [
            AffineExpr.dimension(d) if size == target_shape[d] else AffineExpr.constant(0)
            for size, d in zip(source_shape, op.get_dims(), strict=True)
        ]
        output = self.destination(op.result)
        self.generic(
            [self.values[op.operand]],
            output,
            [projection_map(rank, reads), identity_map(rank)],
            [PARALLEL] * rank,
            lambda b, ins, outs: [ins[0]],
            op.location,
        )
        self.values[op.result] = output

    def lower_reduce(self, op: ReduceOp) -> None:
        kind, axes = op.kind.data, op.get_axes()
        element = op.result.type.get_element_type()  # type: ignore[attr-defined]
        rank = len(op.input.type.get_shape())  # type: ignore[attr-defined]
        output = self.destination(op.result)
        self.fill(output, scalar.reduction_identity(kind, element), element, op.location)
        kept = [AffineExpr.dimension(d) for d in range(rank) if d not in axes]
        self.generic(
            [self.values[op.input]],
            output,
            [identity_map(rank), projection_map(rank, kept)],
            [REDUCTION if d in axes else PARALLEL for d in range(rank)],
            lambda b, ins, outs: [scalar.emit_combiner(b, kind, outs[0], ins[0], element)],
            op.location,
        )
        self.values[op.result] = output

    def lower_matmul(self, op: MatmulOp) -> None:
        element = op.result.type.get_element_type()  # type: ignore[attr-defined]
        output = self.destination(op.result)
        self.fill(output, 0, element, op.location)
        i, j, k = (AffineExpr.dimension(d) for d in range(3))

        def body(b: Builder, ins: Sequence[SSAValue], outs: Sequence[SSAValue]):
            product = scalar.emit_scalar(b, ew.MulOp, ins, element)
            return [scalar.emit_combiner(b, "sum", outs[0], product, element)]

        self.generic(
            [self.values[op.lhs], self.values[op.rhs]],
            output,
            [projection_map(3, [i, k]), projection_map(3, [k, j]), projection_map(3, [i, j])],
            [PARALLEL, PARALLEL, REDUCTION],
            body,
            op.location,
        )
        self.values[op.result] = output

    def lower_return(self, op: func.ReturnOp) -> None:
        for position, value in enumerate(op.arguments):
            destination = self.outputs[position]
            if self.values[value] is not destination:
                self.copy_into(self.values[value], destination)
        for buffer in self.allocations:
            self.builder.insert(memref.DeallocOp.get(buffer))
        self.builder.insert(func.ReturnOp())

    def copy_into(self, source: SSAValue, destination: SSAValue) -> None:
        rank = len(source.type.get_shape())  # type: ignore[attr-defined]
        self.generic(
            [source],
            destination,
            [identity_map(rank)] * 2,
            [PARALLEL] * rank,
            lambda b, ins, outs: [ins[0]],
            destination.owner.location if isinstance(destination.owner, Operation) else None,  # type: ignore[arg-type]
        )

    HANDLERS: dict[type[Operation], Callable[[FunctionBufferizer, Operation], None]] = {
        ConstantOp: lower_constant,  # type: ignore[dict-item]
        ew.CastOp: lower_cast,  # type: ignore[dict-item]
        BroadcastInDimOp: lower_broadcast,  # type: ignore[dict-item]
        ReduceOp: lower_reduce,  # type: ignore[dict-item]
        MatmulOp: lower_matmul,  # type: ignore[dict-item]
        func.ReturnOp: lower_return,  # type: ignore[dict-item]
    }


def _has_tensors(function: func.FuncOp) -> bool:
    types = [*function.function_type.inputs, *function.function_type.outputs]
    return any(isinstance(t, TensorType) for t in types) or any(
        isinstance(r.type, TensorType) for op in function.walk() for r in op.results
    )


def bufferize_module(module: ModuleOp) -> None:
    for function in list(module.ops):
        if isinstance(function, func.FuncOp) and _has_tensors(function):
            new = FunctionBufferizer(module, function).run()
            module.body.block.insert_op_before(new, function)
            function.detach()
            function.erase()


@dataclass(frozen=True)
class BufferizePass(ModulePass):
    """Tensors -> memrefs: every tj op becomes a linalg.generic on buffers."""

    name = "bufferize"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        bufferize_module(op)
