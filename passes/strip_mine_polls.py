"""strip-mine-polls: staged loops poll the Ctrl-C flag once per 1,024 trips, not every trip.

Expects buffer-level IR after `bufferize`, whose staged loops (`scf.while` without loop
values: their state is in buffers) start their condition with the interrupt poll:

    scf.while () : () -> () {
      %stop = func.call @tracejit_interrupted() : () -> i1
      %true = arith.constant true
      %go = arith.xori %stop, %true : i1
      cf.assert %go, "KeyboardInterrupt: ..."
      <condition ops>  scf.condition(%c)
    } do { <body> scf.yield }

The poll is an atomic load, which LLVM must treat as a write to any memory: in a dynamic
program's inner loop (`t[i, j] = max(t[i, j], t[i, k] + t[k + 1, j])`) it kept `t[i, j]`
from staying in a register, so every trip stored and reloaded it (1.5x the loop's time).
Each such loop becomes a loop of chunks, as HotSpot strip-mines its safepoint polls: the
outer loop polls, the inner one runs up to 1,024 trips with no poll, its condition
evaluated only while the chunk lasts (never twice for one trip):

    scf.while () : () -> () {
      <poll>
      %n = scf.while (%t = %c0) : (index) -> index {
        %fits = arith.cmpi ult, %t, %c1024 : index
        %c = scf.if %fits -> (i1) { <condition ops> scf.yield %c } else { scf.yield %false }
        scf.condition(%c) %t : index
      } do { ^bb0(%t: index): <body>  %t1 = arith.addi %t, %c1 : index  scf.yield %t1 }
      %more = arith.cmpi eq, %n, %c1024 : index
      scf.condition(%more)
    } do { scf.yield }

Ctrl-C still stops a loop within 1,024 trips. Loops that carry values in SSA form (ones
whose sizes change, see bufferize/tensor_array.py) keep their poll on every trip.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects import arith, cf, func, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, ModuleOp, i1
from xdsl.ir import Block, Operation, Region
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint

from tracejit.passes.bufferize.elementwise import INTERRUPTED
from tracejit.passes.support.indices import index_constant

CHUNK = 1024


def poll_ops(block: Block) -> list[Operation] | None:
    """The four ops of the interrupt poll at the start of `block`, if it starts with one."""
    ops = list(block.ops)[:4]
    if len(ops) < 4:
        return None
    call, true, xor, check = ops
    if not (
        isinstance(call, func.CallOp)
        and call.callee.root_reference.data == INTERRUPTED
        and isinstance(true, arith.ConstantOp)
        and isinstance(xor, arith.XOrIOp)
        and isinstance(check, cf.AssertOp)
        and check.arg is xor.result
    ):
        return None
    return ops


def strip_mine(loop: scf.WhileOp) -> bool:
    """Rewrite `loop` into a polling loop of chunks; False when it is not of that form."""
    before, after = loop.before_region.block, loop.after_region.block
    poll = poll_ops(before)
    if poll is None or loop.arguments or loop.results or before.args or after.args:
        return False
    condition = before.last_op
    assert isinstance(condition, scf.ConditionOp)

    chunk_test = Block(arg_types=[IndexType()])
    b = Builder(InsertPoint.at_end(chunk_test))
    limit = index_constant(b, CHUNK)
    fits = b.insert(arith.CmpiOp(chunk_test.args[0], limit, "ult")).result
    evaluate, skip = Block(), Block()
    for op in list(before.ops)[4:-1]:
        op.detach()
        evaluate.add_op(op)
    evaluate.add_op(scf.YieldOp(condition.condition))
    false = Builder(InsertPoint.at_end(skip)).insert(arith.ConstantOp(IntegerAttr(0, i1)))
    skip.add_op(scf.YieldOp(false.result))
    go = b.insert(scf.IfOp(fits, [i1], Region(evaluate), Region(skip))).results[0]
    b.insert(scf.ConditionOp(go, chunk_test.args[0]))

    chunk_body = Block(arg_types=[IndexType()])
    body_end = after.last_op
    assert isinstance(body_end, scf.YieldOp)
    for op in list(after.ops)[:-1]:
        op.detach()
        chunk_body.add_op(op)
    b = Builder(InsertPoint.at_end(chunk_body))
    one = index_constant(b, 1)
    b.insert(scf.YieldOp(b.insert(arith.AddiOp(chunk_body.args[0], one)).result))

    # the outer loop's condition: the poll (left in place), the chunk, and "was it full?"
    condition.detach()
    condition.erase()
    b = Builder(InsertPoint.at_end(before))
    zero = index_constant(b, 0)
    chunk = scf.WhileOp([zero], [IndexType()], Region(chunk_test), Region(chunk_body))
    chunk.location = loop.location
    trips = b.insert(chunk).results[0]
    full = b.insert(arith.CmpiOp(trips, index_constant(b, CHUNK), "eq")).result
    b.insert(scf.ConditionOp(full))
    return True


def strip_mine_polls(module: ModuleOp) -> None:
    loops = [op for op in module.walk() if isinstance(op, scf.WhileOp)]
    for loop in loops:  # outer loops first: an inner loop moves, but stays the same op
        strip_mine(loop)


@dataclass(frozen=True)
class StripMinePollsPass(ModulePass):
    """Staged loops poll for Ctrl-C once per chunk of 1,024 trips instead of every trip."""

    name = "strip-mine-polls"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        strip_mine_polls(op)


__all__ = ["CHUNK", "StripMinePollsPass", "strip_mine_polls"]
