"""Split a loop of big independent partial results folded in order into a parallel loop
storing the partials and a serial fold (used by `parallelize`, passes/parallelize.py).

A whole-array float sum is lowered (`lower-to-loops`, `blocked_sums`) as a loop over FIXED
blocks of SUM_BLOCK elements, each summed from -0.0 and then added to the accumulator:

    %r = scf.for %blk = %lb to %ub step %s iter_args(%acc = %init) {
      %part = <sum of block %blk>            reads memory, never uses %acc
      %next = arith.addf %acc, %part         the one use of %acc; yielded as is
      scf.yield %next
    }

which becomes, with %n the trip count,

    %parts = memref.alloc(%n)
    scf.for %blk = %lb to %ub step %s {tj.parallel} {
      %part = <sum of block %blk>
      memref.store %part, %parts[(%blk - %lb) / %s]
    }
    %r = scf.for %b = 0 to %n step 1 iter_args(%acc = %init) {
      %next = arith.addf %acc, (memref.load %parts[%b])     the same additions, same order
      scf.yield %next
    }
    memref.dealloc %parts

The partials are the same values, added in the same order, so the result is bit-identical
to the serial loop's for any number of threads: the partition is the blocks, which depend on
the array's length only. Accepted: a loop (not inside a `tj.parallel` loop) whose every
loop-carried value has exactly one use, a combining op whose result is yielded and used
nowhere else, whose body stores nothing (so iterations only read memory), and whose
iterations are big (a plain element-by-element reduction loop is left alone: a partial per
element would cost more than it saves).
"""

from __future__ import annotations

from xdsl.builder import Builder
from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import DYNAMIC_INDEX, IntegerAttr, MemRefType, UnitAttr, i64
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint

from tracejit.ir import upstream_memref
from tracejit.ir.parallel_contract import PARALLEL_LOOP_ATTR
from tracejit.passes.support.indices import index_constant

MIN_ITERATION_WORK = 256
"""Estimated operations an iteration must do to be worth a stored partial."""


def split_reductions(
    function: func.FuncOp, trip_count, block_cost, min_work: int
) -> list[scf.ForOp]:
    """Split every accepted loop of `function`; return the new parallel loops."""
    found = [op for op in function.walk() if _accepted(op, trip_count, block_cost, min_work)]
    split = []
    for loop in found:
        assert isinstance(loop, scf.ForOp)  # _accepted takes scf.for only
        if trip_count(loop) is None:
            _unless_few_trips(loop, -(-min_work // block_cost(loop.body.block)))
        split.append(_split(loop, trip_count))
    return split


def _unless_few_trips(loop: scf.ForOp, least: int) -> None:
    """Put `loop` (of a trip count known only at run time) in the then-branch of
    `scf.if trips >= least`, a copy of it in the else-branch: a call with too few trips
    for threads keeps the plain loop, without the partials' buffer and the fork (a
    1,000-element float32 sum of unknown length took 2.9 us split, 0.7 us plain)."""
    b = Builder(InsertPoint.before(loop))
    many = b.insert(arith.CmpiOp(_dynamic_trips(b, loop), index_constant(b, max(2, least)), "uge"))
    serial = loop.clone()
    result_types = [r.type for r in loop.results]
    then_block, else_block = Block(), Block()
    branch = b.insert(scf.IfOp(many.result, result_types, Region(then_block), Region(else_block)))
    for old, new in zip(loop.results, branch.results, strict=True):
        old.replace_all_uses_with(new)
    loop.detach()
    then_block.add_ops([loop, scf.YieldOp(*loop.results)])
    else_block.add_ops([serial, scf.YieldOp(*serial.results)])


def _combiners(loop: scf.ForOp) -> list[Operation] | None:
    """The op folding each loop-carried value with its iteration's partial, or None."""
    block = loop.body.block
    end = block.last_op
    if not isinstance(end, scf.YieldOp) or not loop.results:
        return None
    combiners: list[Operation] = []
    for acc, yielded in zip(block.args[1:], end.operands, strict=True):
        uses = list(acc.uses)
        owner = yielded.owner
        if len(uses) != 1 or uses[0].operation is not owner or not isinstance(owner, Operation):
            return None
        if owner.parent_block() is not block or len(owner.operands) != 2 or owner.regions:
            return None
        if len(list(yielded.uses)) != 1 or len(owner.results) != 1:
            return None
        combiners.append(owner)
    return combiners


def _inside_parallel(op: Operation) -> bool:
    parent = op.parent_op()
    while parent is not None:
        if PARALLEL_LOOP_ATTR in parent.attributes:
            return True
        parent = parent.parent_op()
    return False


def _accepted(op: Operation, trip_count, block_cost, min_work: int) -> bool:
    if not isinstance(op, scf.ForOp) or _combiners(op) is None or _inside_parallel(op):
        return False
    if any(isinstance(inner, memref.StoreOp) for inner in op.body.walk()):
        return False
    per_iteration = block_cost(op.body.block)
    trips = trip_count(op)
    if per_iteration < MIN_ITERATION_WORK or (trips is not None and trips < 2):
        return False
    return trips is None or trips * per_iteration >= min_work


def _split(loop: scf.ForOp, trip_count) -> scf.ForOp:
    combiners = _combiners(loop)
    assert combiners is not None
    b = Builder(InsertPoint.before(loop))
    trips = trip_count(loop)
    count = index_constant(b, trips) if trips is not None else _dynamic_trips(b, loop)
    partial_values = [_partial(c, acc) for c, acc in zip(combiners, loop.body.block.args[1:],
                                                          strict=True)]  # fmt: skip
    buffers = [_alloc(b, v, count, trips) for v in partial_values]
    fold = _fold(b, loop, count, combiners, partial_values, buffers)  # clones the combiners
    body = loop.body.detach_block(0)
    _store_partials(body, loop, combiners, partial_values, buffers)
    parallel = scf.ForOp(loop.lb, loop.ub, loop.step, [], body)
    parallel.attributes[PARALLEL_LOOP_ATTR] = UnitAttr()
    b.insert(parallel)
    results = b.insert(fold).results
    for buffer in buffers:
        b.insert(memref.DeallocOp.get(buffer))
    for old, new in zip(loop.results, results, strict=True):
        old.replace_all_uses_with(new)
    loop.detach()
    loop.erase()
    return parallel


def _partial(combiner: Operation, acc: SSAValue) -> SSAValue:
    lhs, rhs = combiner.operands
    return rhs if lhs is acc else lhs


def _dynamic_trips(b: Builder, loop: scf.ForOp) -> SSAValue:
    """ceil(max(ub - lb, 0) / step) (step > 0, as `scf.for` requires)."""
    zero, one = index_constant(b, 0), index_constant(b, 1)
    span = b.insert(arith.MaxSIOp(b.insert(arith.SubiOp(loop.ub, loop.lb)), zero)).result
    rounded = b.insert(arith.SubiOp(b.insert(arith.AddiOp(span, loop.step)), one)).result
    return b.insert(arith.DivUIOp(rounded, loop.step)).result


def _alloc(b: Builder, value: SSAValue, count: SSAValue, trips: int | None) -> SSAValue:
    shape = [DYNAMIC_INDEX if trips is None else trips]
    sizes = [count] if trips is None else []
    alloc = upstream_memref.AllocOp(sizes, [], MemRefType(value.type, shape), IntegerAttr(64, i64))
    result = b.insert(alloc).memref
    result.name_hint = "partials"
    return result


def _store_partials(
    body: Block, loop: scf.ForOp, combiners: list[Operation], partials: list[SSAValue],
    buffers: list[SSAValue],
) -> None:  # fmt: skip
    """Drop the accumulators from `body`: store each partial at the iteration's number."""
    end = body.last_op
    assert end is not None
    end.detach()
    end.erase()
    for combiner in combiners:
        combiner.detach()
        combiner.erase()
    for acc in list(body.args[1:]):
        body.erase_arg(acc)
    b = Builder(InsertPoint.at_end(body))
    offset = b.insert(arith.SubiOp(body.args[0], loop.lb)).result
    number = b.insert(arith.DivUIOp(offset, loop.step)).result
    for value, buffer in zip(partials, buffers, strict=True):
        b.insert(memref.StoreOp.get(value, buffer, [number]))
    b.insert(scf.YieldOp())


def _fold(
    b: Builder, loop: scf.ForOp, count: SSAValue, combiners: list[Operation],
    partials: list[SSAValue], buffers: list[SSAValue],
) -> scf.ForOp:  # fmt: skip
    """The serial loop adding up the stored partials in iteration order (not inserted)."""
    inits = list(loop.iter_args)
    block = Block(arg_types=[count.type] + [v.type for v in inits])
    fb = Builder(InsertPoint.at_end(block))
    yielded = []
    old_accs = loop.body.block.args[1:]
    for acc, old_acc, combiner, partial, buffer in zip(
        block.args[1:], old_accs, combiners, partials, buffers, strict=True
    ):
        loaded = fb.insert(memref.LoadOp.get(buffer, [block.args[0]])).res
        copy = combiner.clone(value_mapper={old_acc: acc, partial: loaded})
        yielded.append(fb.insert(copy).results[0])
    fb.insert(scf.YieldOp(*yielded))
    zero, one = index_constant(b, 0), index_constant(b, 1)
    return scf.ForOp(zero, count, one, inits, block)
