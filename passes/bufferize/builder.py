"""The machinery `bufferize` uses to rewrite one tensor function into buffer form.

`FunctionBufferizer` walks the tensor function's ops in order and asks the handler
registered for each op type (in the family modules of this package) to emit its buffer
form. Handlers use:

* `values[v]`: the buffer holding tensor value `v`;
* `destination(result, sizes)`: the buffer a result is computed into (its output
  argument if it is returned, else a fresh `memref.alloc` freed before returning);
  `sizes` gives one index value per dynamic (`?`) dim of the result, `bounds` a static
  upper bound of each dim where one is known (below);
* `generic(...)`: a `linalg.generic` on buffers with a body built by a callback;
* `dim(buffer, i)`: the size of dim `i` of a buffer as an index value;
* `bufferize_block(old, new, finish)`: bufferize a nested region's block (`scf.if`
  branches, `scf.while` regions); temporaries allocated in it are freed at its end,
  except the static heap ones of a loop, allocated once at the function's entry and
  freed when it returns;
* `state`: the function-wide facts the pass creates up front (`BufferizeState`).

Small buffers of static shape live on the stack (`memref.alloca`, which the code
generator hoists to the function's entry), so scalar loop state costs no malloc. A
temporary of a loop's body whose `?` dims have static upper bounds (`x[:i]` of a static
`x` has at most `x`'s length) is a `memref.view` of the run-time sizes into a scratch
byte buffer of the bounds, allocated once -- on the stack when small, else at the
function's entry and freed when it returns:

    %scratch = memref.alloc() : memref<8000xi8>            (at the function's entry)
    ...
    scf.while ... do {
      %t = memref.view %scratch[%c0][%count] : memref<8000xi8> to memref<?xf64>

so a loop body that copies `x[:i]` (for a matrix product, say) does no malloc per
iteration. A view is no temporary of the region's: never freed, reused or handed on.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from xdsl.builder import Builder
from xdsl.dialects import func, memref, scf
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AffineMapAttr,
    ComplexType,
    IntegerType,
    LocationAttr,
    MemRefType,
    ModuleOp,
    TensorType,
    i8,
)
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.dialects.linalg.ops import GenericOp, YieldOp
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap
from xdsl.rewriter import InsertPoint
from xdsl.utils.exceptions import DiagnosticException

from tracejit.ir import upstream_memref
from tracejit.ir.dtypes import component_type
from tracejit.ir.fused import dim_bounds
from tracejit.ir.invariants import defining_op
from tracejit.ir.shape_ops import BroadcastInDimOp
from tracejit.ir.shaped import shaped_type
from tracejit.ir.state import VarType
from tracejit.passes.bufferize.output_chains import values_in_outputs
from tracejit.passes.support.indices import dim_size, index_constant
from tracejit.passes.support.scalar_semantics import signless

PARALLEL = IteratorTypeAttr.parallel()

# A buffer form: handler(bufferizer, op) for the op class it is registered under, which a
# Callable type cannot tie to the table's key, hence `...`.
Handler = Callable[..., None]
REDUCTION = IteratorTypeAttr.reduction()

# body(builder, input scalars, output scalars) -> values to yield
BodyBuilder = Callable[[Builder, Sequence[SSAValue], Sequence[SSAValue]], Sequence[SSAValue]]


# Static buffers up to this size live on the stack instead of the heap.
STACK_BYTES = 256
# A loop's temporary of run-time size is carved from a scratch buffer of its static bound
# up to this size (a larger bound, allocated once for the whole call however small the
# sizes it holds, would cost more memory than the mallocs it saves).
BOUNDED_SCRATCH_BYTES = 1 << 24


def _byte_size(buffer_type: MemRefType) -> int:
    count = 1
    for d in buffer_type.get_shape():
        count *= d
    element = buffer_type.element_type
    parts = 2 if isinstance(element, ComplexType) else 1  # complex<fN>: two fN
    width = getattr(component_type(element), "bitwidth", 64)
    return count * parts * max(1, width // 8)


def memref_type(ttype: Attribute) -> MemRefType:
    """The buffer type of a tensor type (`tensor<?x3xui8>` -> `memref<?x3xi8>`); a
    Variable handle `!tj.var<tensor<...>>` is the buffer of its value."""
    if isinstance(ttype, VarType):
        ttype = ttype.value_type
    assert isinstance(ttype, TensorType), ttype
    return MemRefType(signless(ttype.get_element_type()), ttype.get_shape())


def rank_of(value: SSAValue) -> int:
    assert isinstance(value.type, TensorType | MemRefType), value.type
    return value.type.get_num_dims()


def identity_map(rank: int) -> AffineMapAttr:
    return AffineMapAttr(AffineMap.identity(rank))


def projection_map(rank: int, results: Sequence[AffineExpr]) -> AffineMapAttr:
    return AffineMapAttr(AffineMap(rank, 0, tuple(results)))


def broadcast_map(op: BroadcastInDimOp) -> AffineMapAttr:
    """Where result element [i0, ..., in] of `op` reads its operand: [i_dims[0] or 0, ...],
    0 along a repeated dim (`BroadcastInDimOp.read_dims`)."""
    reads = [
        AffineExpr.constant(0) if d is None else AffineExpr.dimension(d) for d in op.read_dims()
    ]
    return projection_map(rank_of(op.result), reads)


@dataclass
class BufferizeState:
    """What bufferizing one function knows beyond the buffer of each value: created by the
    pass for each function, read and updated by the handlers as `bufferizer.state`.

    * `positions`: every op of the tensor function (nested ops included) -> its pre-order
      position. Liveness compares them: no value held in a buffer is read after an op.
    * `carried`: the block arguments of the `scf.while` loops that carry growing
      TensorArrays in SSA form (tensor_array.py); such a loop owns their buffers.
    * `successor`: a carried buffer `tj.grow` replaced -> the buffer that replaced it.
    * `bounds`: the static upper bounds of tensor values' dims found so far (`bounds_of`).
    """

    positions: dict[Operation, int]
    carried: set[SSAValue] = field(default_factory=set)
    successor: dict[SSAValue, SSAValue] = field(default_factory=dict)
    bounds: dict[SSAValue, list[int | None]] = field(default_factory=dict)

    @staticmethod
    def of(function: func.FuncOp) -> BufferizeState:
        return BufferizeState({op: i for i, op in enumerate(function.walk())})

    def latest(self, buffer: SSAValue) -> SSAValue:
        """The buffer now holding what `buffer` held (after any `tj.grow`s)."""
        while buffer in self.successor:
            buffer = self.successor[buffer]
        return buffer


class FunctionBufferizer:
    """Rewrites one tensor function into its buffer form (see the module docstring)."""

    def __init__(self, module: ModuleOp, function: func.FuncOp, state: BufferizeState):
        self.module = module
        self.old = function
        self.state = state
        terminator = function.body.block.last_op
        assert isinstance(terminator, func.ReturnOp)
        self.returned = list(terminator.arguments)
        self.placed = values_in_outputs(self.returned)  # earlier states of returned values
        inputs = [memref_type(t) for t in function.function_type.inputs]
        outputs = [memref_type(t) for t in function.function_type.outputs]
        self.new = func.FuncOp(function.sym_name.data, (inputs + outputs, []))
        for name, attr in function.attributes.items():
            if name not in ("sym_name", "function_type"):
                self.new.attributes[name] = attr
        args = self.new.body.block.args
        self.outputs = list(args[len(inputs) :])
        self.values: dict[SSAValue, SSAValue] = dict(
            zip(function.body.block.args, args[: len(inputs)], strict=True)
        )
        self.allocations: list[SSAValue] = []  # heap temporaries of the current region
        self.hoisted: list[SSAValue] = []  # loop temporaries allocated at the entry (_hoist)
        self.builder = Builder(InsertPoint.at_end(self.new.body.block))
        self.handlers: dict[type[Operation], Callable[..., None]] = {}

    def run(self, handlers: dict[type[Operation], Callable[..., None]]) -> func.FuncOp:
        self.handlers = handlers
        self.bufferize_ops(self.old.body.block)
        return self.new

    def bufferize_ops(self, block: Block) -> None:
        for op in block.ops:
            self.bufferize_op(op)

    def bufferize_op(self, op: Operation) -> None:
        handler = self.handlers.get(type(op))
        if handler is None:
            raise DiagnosticException(f"bufferize: no buffer form for {op.name}")
        handler(self, op)

    def bufferize_block(
        self, old: Block, new: Block, close: Callable[[Operation], Operation]
    ) -> None:
        """Bufferize a nested region's block `old` into `new`.

        `close(old_terminator)` emits the region's closing copies and returns the new
        terminator, which is inserted after the region's temporaries are freed."""
        saved = self.builder, self.allocations
        self.builder, self.allocations = Builder(InsertPoint.at_end(new)), []
        *body, terminator = old.ops
        for op in body:
            self.bufferize_op(op)
        end = close(terminator)
        for buffer in self.allocations:
            if buffer not in self.hoisted:
                self.builder.insert(memref.DeallocOp.get(buffer))
        self.builder.insert(end)
        self.builder, self.allocations = saved

    # --- buffers -------------------------------------------------------------------
    def destination(
        self,
        result: SSAValue,
        sizes: Sequence[SSAValue] = (),
        reusable: Sequence[SSAValue] = (),
        bounds: Sequence[int | None] = (),
    ) -> SSAValue:
        """The buffer `result` is computed into: its output argument, the buffer of a dead
        temporary among `reusable` (operands the op reads with the identity map only, so
        writing each result element after reading the same operand element is safe), in a
        loop a view into a scratch buffer of `bounds` (static upper bounds per dim, see
        the module docstring), or a new alloc."""
        output = self.output_for(result)
        if output is not None:
            return output
        dead = self.dead_temporary(result, reusable)
        if dead is not None:
            self.values[result] = dead  # taken: a second result cannot reuse it too
            return dead
        buffer_type = memref_type(result.type)
        dynamic = sum(1 for d in buffer_type.get_shape() if d == DYNAMIC_INDEX)
        if len(sizes) != dynamic:
            raise DiagnosticException(
                f"bufferize: {dynamic} dynamic sizes needed for {result.type}, got {len(sizes)}"
            )
        on_stack = self.stack_buffer(buffer_type)
        if on_stack is not None:
            return on_stack
        if dynamic and bounds and _in_loop(result):
            view = self.bounded_buffer(buffer_type, sizes, bounds)
            if view is not None:
                return view
        alloc = upstream_memref.AllocOp(list(sizes), [], buffer_type)
        if dynamic == 0 and _in_loop(result):
            buffer = self._hoist(alloc)
        else:
            buffer = self.builder.insert(alloc).memref
        self.allocations.append(buffer)
        return buffer

    def output_for(self, value: SSAValue) -> SSAValue | None:
        """The output buffer `value` is computed in: its own when it is returned, or the one
        of the returned value it is an earlier state of (output_chains.py); else None."""
        if value in self.returned:
            return self.outputs[self.returned.index(value)]
        position = self.placed.get(value)
        return None if position is None else self.outputs[position]

    def stack_buffer(self, buffer_type: MemRefType) -> SSAValue | None:
        """A stack buffer of `buffer_type` when it is static and at most STACK_BYTES (the code
        generator allocates it once, at the function's entry, even inside a loop), else None."""
        if any(d == DYNAMIC_INDEX for d in buffer_type.get_shape()):
            return None
        if _byte_size(buffer_type) > STACK_BYTES:
            return None
        alloca = upstream_memref.AllocaOp.get(buffer_type.element_type, 64, buffer_type.get_shape())
        return self.builder.insert(alloca).memref

    def bounded_buffer(
        self, buffer_type: MemRefType, sizes: Sequence[SSAValue], bounds: Sequence[int | None]
    ) -> SSAValue | None:
        """A buffer of `buffer_type` with the run-time `sizes`, viewed into a scratch
        buffer as large as `bounds` that is allocated once (module docstring); None when
        a `?` dim has no bound or the bound is larger than BOUNDED_SCRATCH_BYTES."""
        largest: list[int] = []
        for size, bound in zip(buffer_type.get_shape(), bounds, strict=True):
            if size != DYNAMIC_INDEX:
                largest.append(size)
            elif bound is None:
                return None
            else:
                largest.append(bound)
        nbytes = _byte_size(MemRefType(buffer_type.element_type, largest))
        if nbytes > BOUNDED_SCRATCH_BYTES:
            return None
        scratch_type = MemRefType(i8, [max(nbytes, 1)])
        scratch = self.stack_buffer(scratch_type)
        if scratch is None:
            scratch = self._hoist(upstream_memref.AllocOp([], [], scratch_type))
        start = index_constant(self.builder, 0)
        return self.builder.insert(memref.ViewOp(scratch, start, sizes, buffer_type)).result

    def shape_only(self, shape: Sequence[int], sizes: Sequence[SSAValue]) -> SSAValue:
        """A buffer of `shape` (`sizes`: its `?` dims) with no data: elements of zero bits
        (`i0`), viewed into an empty stack buffer, which a generic takes as an input only to
        bound the loops that walk it (passes/bufferize/fused.py); nothing loads it.

            %none = memref.alloca() : memref<0xi8>
            %shape = memref.view %none[%c0][%n] : memref<0xi8> to memref<?x12xi0>
        """
        empty = self.stack_buffer(MemRefType(i8, [0]))
        assert empty is not None  # (no bytes: on the stack)
        start = index_constant(self.builder, 0)
        view = memref.ViewOp(empty, start, sizes, MemRefType(IntegerType(0), shape))
        return self.builder.insert(view).result

    def temporary(self, buffer_type: MemRefType, sizes: Sequence[SSAValue] = ()) -> SSAValue:
        """A scratch buffer for one op: on the stack when `stack_buffer` allows, else on the
        heap, freed with the other temporaries (`sizes`: its dynamic dims)."""
        on_stack = self.stack_buffer(buffer_type)
        if on_stack is not None:
            return on_stack
        buffer = self.builder.insert(upstream_memref.AllocOp(list(sizes), [], buffer_type)).memref
        self.allocations.append(buffer)
        return buffer

    def _hoist(self, alloc: memref.AllocOp) -> SSAValue:
        """Allocate a static temporary of a loop's body once, at the function's entry, and
        free it when the function returns: the region still owns it (it may be overwritten
        in place) but does not free it. A malloc and free of a large buffer per iteration
        costs page faults every time glibc hands the memory back to the system."""
        entry = self.new.body.block
        first = entry.first_op
        if first is None:
            entry.add_op(alloc)
        else:
            entry.insert_op_before(alloc, first)
        self.hoisted.append(alloc.memref)
        return alloc.memref

    def dead_temporary(self, result: SSAValue, candidates: Sequence[SSAValue]) -> SSAValue | None:
        """The heap temporary of a candidate tensor of `result`'s type that no value held in
        it is read after `result`'s op. Function inputs are never temporaries, so a caller's
        array is never written."""
        positions = self.state.positions
        now = positions[defining_op(result)]
        for value in candidates:
            buffer = self.values.get(value)
            if buffer is None or buffer not in self.allocations:
                continue  # inputs, outputs, globals, stack buffers, outer regions' buffers
            if buffer.type != memref_type(result.type):
                continue
            holders = [v for v, b in self.values.items() if b is buffer]
            if all(positions[u.operation] <= now for v in holders for u in v.uses):
                return buffer
        return None

    def bounds_of(self, value: SSAValue) -> list[int | None]:
        """Static upper bounds of the dims of tensor `value` (`ir.fused.dim_bounds`: a
        slice's count is at most its dim, ...), for `destination`'s `bounds`."""
        return dim_bounds(value, None, self.state.bounds)

    def dim(self, buffer: SSAValue, index: int) -> SSAValue:
        """Dim `index` of `buffer` as an `index` value (a constant when static)."""
        return dim_size(self.builder, buffer, index)

    def sizes_like(self, result: SSAValue, buffer: SSAValue) -> list[SSAValue]:
        """The dynamic sizes of `result`, read from a buffer of the same shape."""
        shape = shaped_type(result).get_shape()
        return [self.dim(buffer, i) for i, d in enumerate(shape) if d == DYNAMIC_INDEX]

    # --- linalg.generic --------------------------------------------------------------
    def generic(
        self,
        inputs: Sequence[SSAValue],
        output: SSAValue,
        maps: Sequence[AffineMapAttr],
        iterators: Sequence[Attribute],
        body: BodyBuilder,
        location: LocationAttr | None = None,
    ) -> None:
        element_types = [shaped_type(v).get_element_type() for v in (*inputs, output)]
        block = Block(arg_types=element_types)
        body_builder = Builder(InsertPoint.at_end(block))
        yielded = body(body_builder, block.args[: len(inputs)], block.args[len(inputs) :])
        body_builder.insert(YieldOp(*yielded))
        op = GenericOp(inputs, [output], Region(block), maps, iterators)
        if location is not None:
            op.location = location
        self.builder.insert(op)

    def parallel_generic(
        self, op: Operation, inputs: Sequence[SSAValue], body: BodyBuilder
    ) -> SSAValue:
        """An element-wise generic computing `op`'s result from same-shaped `inputs`."""
        result = op.results[0]
        rank = rank_of(result)
        sizes = self.sizes_like(result, inputs[0]) if inputs else ()
        output = self.destination(result, sizes, op.operands, self.bounds_of(result))
        maps = [identity_map(rank)] * (len(inputs) + 1)
        self.generic(inputs, output, maps, [PARALLEL] * rank, body, op.location)
        self.values[result] = output
        return output

    def copy_into(self, source: SSAValue, destination: SSAValue) -> None:
        rank = rank_of(source)
        self.generic(
            [source],
            destination,
            [identity_map(rank)] * 2,
            [PARALLEL] * rank,
            lambda b, ins, outs: [ins[0]],
        )

    def finish(self, op: func.ReturnOp) -> None:
        """Copy returned values not computed in place, free the temporaries, return."""
        for position, value in enumerate(op.arguments):
            destination = self.outputs[position]
            if self.values[value] is not destination:
                self.copy_into(self.values[value], destination)
        kept = [b for b in self.allocations if b not in self.hoisted]
        for buffer in [*kept, *self.hoisted]:
            self.builder.insert(memref.DeallocOp.get(buffer))
        self.builder.insert(func.ReturnOp())


def _in_loop(value: SSAValue) -> bool:
    """Is `value` computed inside a region of an `scf.while` (a loop's own results are
    not: they are its state, made before it runs)?"""
    op = value.owner.parent_op()
    while op is not None:
        if isinstance(op, scf.WhileOp):
            return True
        op = op.parent_op()
    return False


# --- ownership -------------------------------------------------------------------------
def dead_after(
    bufferizer: FunctionBufferizer,
    buffer: SSAValue,
    op: Operation,
    exempt,
    until: Operation | None = None,
) -> bool:
    """No value held in `buffer` is read after `op` (in the tensor function's order), or
    after `until` (an op holding `op`, whose own reads then count as before). A read in
    another branch of an `scf.if` holding `op` is not after it: one run of the `if` runs
    one branch (the next run of a loop around it reads the loop's state, which `exempt`
    covers)."""
    positions = bufferizer.state.positions
    now = max(positions[o] for o in until.walk()) if until is not None else positions[op]
    holders = [v for v, b in bufferizer.values.items() if b is buffer and v not in exempt]
    return all(
        positions[u.operation] <= now or in_other_branch(op, u.operation)
        for v in holders
        for u in v.uses
    )


def in_other_branch(op: Operation, user: Operation) -> bool:
    """Are `op` and `user` in different branches of one `scf.if`?"""
    region = op.parent_region()
    while region is not None:
        parent = region.parent_op()
        if parent is None:
            return False
        if isinstance(parent, scf.IfOp) and parent is not user and parent.is_ancestor(user):
            return not region.is_ancestor(user)
        region = parent.parent_region()
    return False


def owned_buffer(
    bufferizer: FunctionBufferizer, buffer: SSAValue, at: Operation, target_type: MemRefType
) -> SSAValue:
    """A heap buffer of `target_type` holding `buffer`'s value that the loop may free:
    `buffer` itself when it is a dead temporary (moved out of this region's list), else
    a copy."""
    owned = buffer in bufferizer.allocations and buffer.type == target_type
    if owned and dead_after(bufferizer, buffer, at, set()):
        bufferizer.allocations.remove(buffer)
        return buffer
    shape = target_type.get_shape()
    sizes = [bufferizer.dim(buffer, a) for a, d in enumerate(shape) if d == DYNAMIC_INDEX]
    copy = bufferizer.builder.insert(upstream_memref.AllocOp(sizes, [], target_type)).memref
    bufferizer.copy_into(buffer, copy)
    return copy
