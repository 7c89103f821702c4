"""`parallelize`: outline big parallel `scf.for` loops into functions of an iteration range.

Expects: loop-level IR (func/scf/arith/math/memref, after `lower-to-loops`, `expand-math` and
`simplify-loops`), where `lower-to-loops` and `tile-matmul` marked the loops whose iterations
are independent with the unit attribute `tj.parallel` (ir/parallel_contract.py).

Produces, for each chosen marked loop, a private function running a chunk of its iterations
and, in the loop's place, one call of it over all of them, flagged with the estimated work of
one iteration (`tj.parallel_work`):

    scf.for %i = %lb to %ub step %s {tj.parallel} {      %n = <trip count of the loop>
      <body using %x, %buf, %acc>              =>        %st = func.call @f__par0(%x, %buf,
    }                                                          %c0, %n) {tj.parallel_work = W}

    func.func private @f__par0(%x, %buf, %lo: index, %hi: index) -> i32 {
      %acc = memref.alloca ...                 scratch used only inside the loop: one per call
      scf.for %k = %lo to %hi step %c1 {
        %i = %lb + %k * %s                     (just %k when %lb = 0 and %s = 1)
        <body>
      }
      func.return %c0_i32                      the status (a bounds check may fail inside)
    }

The call computes exactly what the loop did. The code generator (codegen/emit_parallel.py)
splits [0, n) into one contiguous chunk per thread when n * W reaches MIN_PARALLEL_WORK, and
otherwise makes the plain call: each iteration runs the same code on the same data in either
case, so results are bit-identical for every thread count.

First, a loop folding big partial results in order (a whole-array sum over its fixed blocks)
is split into a marked loop storing the partials and a serial fold of them
(passes/support/parallel_reductions.py): bit-identical for any thread count.

Which marked loop of a nest: the outermost one, unless it runs fewer than `MIN_TRIPS`
iterations and the marked loops inside it run more (two rows of a long reduction, or a matmul
with fewer than 4 chunks of columns: its row blocks are split instead, once per depth block).
Outer loops fork once per call; an inner loop forks once per run of the loops around it, so
the outermost loop with enough iterations to share is preferred over even balance (a
512x512 f32 matmul forks once over its 16 chunks of 32 columns).
A loop is outlined only if its whole body is
loop-level arithmetic and memory access (no call, assertion or callback: worker threads must
never reach Python, and a failed assertion could not stop the other chunks), and only if its
static work (when the trip count is known) reaches MIN_PARALLEL_WORK; a loop with a dynamic
trip count is outlined and decided at run time. Constants used inside are cloned into the
function (LLVM keeps folding them); every other value from outside becomes an argument.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, ModuleOp, i32, i64
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint

from tracejit.ir.invariants import defining_op
from tracejit.ir.parallel_contract import (
    MIN_PARALLEL_WORK,
    PARALLEL_LOOP_ATTR,
    PARALLEL_WORK_ATTR,
)
from tracejit.passes.support.indices import index_constant, static_index
from tracejit.passes.support.parallel_reductions import split_reductions

MIN_TRIPS = 4
"""A marked loop with fewer (static) iterations yields to marked loops inside it with more.
Small on purpose: every run of the outer loop would fork again, and each fork costs a thread
start (tens of microseconds, and much more on a loaded machine)."""

UNKNOWN_TRIPS = 16
"""The iteration count assumed for an inner loop of dynamic length, in work estimates."""

ALLOWED_DIALECTS = ("arith.", "math.", "scf.", "complex.")
ALLOWED_MEMREF = {"memref.load", "memref.store", "memref.alloca", "memref.dim",
                  "memref.get_global", "vector.load", "vector.store"}  # fmt: skip


def trip_count(loop: scf.ForOp) -> int | None:
    """The static number of iterations of `loop`, or None."""
    lb, ub, step = (static_index(v) for v in (loop.lb, loop.ub, loop.step))
    if lb is None or ub is None or step is None or step <= 0:
        return None
    return max(0, -(-(ub - lb) // step))


def estimated_trips(loop: scf.ForOp) -> int:
    """The static trip count, else the block size of a blocked loop (`%lb to min(%lb + C,
    %n)`, lower-to-loops' blocked sums and tiles), else UNKNOWN_TRIPS."""
    trips = trip_count(loop)
    if trips is not None:
        return trips
    bound = loop.ub.owner
    if isinstance(bound, arith.MinUIOp | arith.MinSIOp):
        for operand in bound.operands:
            start = operand.owner
            if isinstance(start, arith.AddiOp) and loop.lb in start.operands:
                other = start.rhs if start.lhs is loop.lb else start.lhs
                size = static_index(other)
                if size is not None and size > 0:
                    return size
    return UNKNOWN_TRIPS


def block_cost(block: Block) -> int:
    """Estimated scalar operations of one run of `block` (inner loops times their trips)."""
    cost = 0
    for op in block.ops:
        if isinstance(op, arith.ConstantOp | scf.YieldOp):
            continue
        if isinstance(op, scf.ForOp):
            cost += estimated_trips(op) * block_cost(op.body.block)
        elif op.regions:
            cost += 1 + max(block_cost(b) for r in op.regions for b in r.blocks)
        else:
            cost += 1
    return cost


def is_marked(op: Operation) -> bool:
    return isinstance(op, scf.ForOp) and PARALLEL_LOOP_ATTR in op.attributes


def outermost(
    region_owner: Operation, matches: Callable[[Operation], bool]
) -> Iterator[Operation]:
    """The ops inside `region_owner` that `matches`, with no such op between them and it."""
    for region in region_owner.regions:
        for block in region.blocks:
            for op in block.ops:
                if matches(op):
                    yield op
                else:
                    yield from outermost(op, matches)


def outermost_marked(region_owner: Operation) -> Iterator[scf.ForOp]:
    """The marked loops inside `region_owner` with no marked loop between them and it."""
    for op in outermost(region_owner, is_marked):
        assert isinstance(op, scf.ForOp)
        yield op


def choose(loop: scf.ForOp) -> list[scf.ForOp]:
    """The loops to outline for the nest of the marked `loop` (see the module docstring)."""
    trips = trip_count(loop)
    if trips is None or trips >= MIN_TRIPS:
        return [loop]
    inner = list(outermost_marked(loop))
    inner_trips = [trip_count(i) for i in inner]
    if inner and all(t is None or t > trips for t in inner_trips):
        return [chosen for i in inner for chosen in choose(i)]
    return [loop]


def outlinable(loop: scf.ForOp) -> bool:
    """Whether every op in the loop is loop-level arithmetic or memory access."""
    if loop.results:
        return False
    for op in loop.body.walk():
        if op.name in ALLOWED_MEMREF or op.name.startswith(ALLOWED_DIALECTS):
            continue
        return False
    return True


def worth_it(loop: scf.ForOp) -> bool:
    trips = trip_count(loop)
    if trips is None:
        return True  # decided at run time
    return trips >= 2 and trips * block_cost(loop.body.block) >= MIN_PARALLEL_WORK


def defined_inside(value: SSAValue, loop: Operation) -> bool:
    owner = value.owner
    node = owner if isinstance(owner, Operation) else owner.parent_op()
    return node is not None and loop.is_ancestor(node)


def live_ins(loop: scf.ForOp) -> list[SSAValue]:
    """Values used inside `loop` but defined outside it, in order of first use."""
    found: dict[SSAValue, None] = {}
    for op in loop.body.walk():
        for operand in op.operands:
            if not defined_inside(operand, loop):
                found.setdefault(operand, None)
    return list(found)


def needs_rebase(loop: scf.ForOp) -> bool:
    return not (static_index(loop.lb) == 0 and static_index(loop.step) == 1)


def private_scratch(value: SSAValue, loop: Operation) -> bool:
    """A constant, or a static stack buffer used only inside `loop`: cloned, not passed."""
    owner = value.owner
    if isinstance(owner, arith.ConstantOp):
        return True
    if isinstance(owner, memref.AllocaOp) and not owner.dynamic_sizes:
        return all(loop.is_ancestor(use.operation) for use in value.uses)
    return False


def outside_inputs(loop: scf.ForOp) -> list[SSAValue]:
    """The values from outside `loop` its outlined function needs, in order of first use."""
    inputs = live_ins(loop)
    if needs_rebase(loop):  # the body computes lb + k * step
        inputs += [v for v in (loop.lb, loop.step) if v not in inputs]
    return inputs


def split_inputs(loop: scf.ForOp) -> tuple[list[SSAValue], list[SSAValue]]:
    """`outside_inputs`: those passed as arguments (in order of first use) and those cloned
    into the function (constants, private stack buffers)."""
    inputs = outside_inputs(loop)
    captured = [v for v in inputs if not private_scratch(v, loop)]
    cloned = [v for v in inputs if private_scratch(v, loop)]
    return captured, cloned


def outline_loop(loop: scf.ForOp, name: str, after: func.FuncOp,
                 call_attributes: Mapping[str, Attribute],
                 inputs: tuple[list[SSAValue], list[SSAValue]] | None = None) -> func.FuncOp:
    """Move `loop` into `@name(captures..., %lo, %hi)`, a private function placed after
    `after`, and call it over all of the loop's iterations in its place. `inputs`, the
    values passed and those cloned, defaults to `split_inputs(loop)`."""
    captured, cloned = inputs or split_inputs(loop)
    outlined = build_function(name, loop, captured, cloned)
    call_over_all_iterations(loop, name, captured, call_attributes)
    parent = after.parent_block()
    assert parent is not None
    parent.insert_op_after(outlined, after)
    return outlined


def build_function(
    name: str, loop: scf.ForOp, captured: list[SSAValue], cloned: list[SSAValue]
) -> func.FuncOp:
    arg_types = [v.type for v in captured] + [IndexType(), IndexType()]
    entry = Block(arg_types=arg_types)
    b = Builder(InsertPoint.at_end(entry))
    mapping: dict[SSAValue, SSAValue] = dict(zip(captured, entry.args, strict=False))
    for value in cloned:
        copy = defining_op(value).clone()
        b.insert(copy)
        mapping[value] = copy.results[0]
    lo, hi = entry.args[-2], entry.args[-1]
    lo.name_hint, hi.name_hint = "lo", "hi"
    body = loop.body.detach_block(0)
    rebase_induction_variable(body, loop)
    for old, new in mapping.items():
        old.replace_uses_with_if(new, lambda use: body.is_ancestor(use.operation))
    for op in body.walk():  # nested marked loops run inside one chunk
        op.attributes.pop(PARALLEL_LOOP_ATTR, None)
    b.insert(scf.ForOp(lo, hi, index_constant(b, 1), [], body))
    status = b.insert(arith.ConstantOp(IntegerAttr(0, i32))).result
    b.insert(func.ReturnOp(status))
    return func.FuncOp(name, (arg_types, [i32]), Region(entry), visibility="private")


def rebase_induction_variable(body: Block, loop: scf.ForOp) -> None:
    """Make the block's argument count iterations from 0 with step 1 (the chunks' unit):
    the original induction variable becomes `lb + k * step` at the top of the body."""
    if not needs_rebase(loop):
        return
    k = body.args[0]
    first = body.first_op
    assert first is not None
    b = Builder(InsertPoint.before(first))
    scaled = b.insert(arith.MuliOp(k, loop.step)).result  # remapped with the body
    iv = b.insert(arith.AddiOp(loop.lb, scaled)).result
    iv.name_hint = k.name_hint
    k.replace_uses_with_if(iv, lambda use: use.operation is not scaled.owner)
    k.name_hint = "k"


def call_over_all_iterations(loop: scf.ForOp, name: str, captured: list[SSAValue],
                             attributes: Mapping[str, Attribute]) -> None:
    """Replace `loop` by the call of its function over all its iterations."""
    b = Builder(InsertPoint.before(loop))
    zero = index_constant(b, 0)
    trips = trip_count(loop)
    if trips is not None:
        count = index_constant(b, trips)
    elif not needs_rebase(loop):
        count = loop.ub
    else:  # ceil(max(ub - lb, 0) / step), step > 0
        span = b.insert(arith.MaxSIOp(b.insert(arith.SubiOp(loop.ub, loop.lb)), zero))
        one = index_constant(b, 1)
        rounded = b.insert(arith.SubiOp(b.insert(arith.AddiOp(span, loop.step)), one))
        count = b.insert(arith.DivUIOp(rounded, loop.step)).result
    call = func.CallOp(name, [*captured, zero, count], [i32])
    call.attributes.update(attributes)
    b.insert(call)
    loop.detach()
    loop.erase()


def parallelize(module: ModuleOp) -> None:
    """Outline the chosen marked loops of every function (see the module docstring)."""
    for function in [op for op in module.ops if isinstance(op, func.FuncOp)]:
        if not function.body.blocks:
            continue
        split_reductions(function, trip_count, block_cost, MIN_PARALLEL_WORK)
        count = 0
        for top in list(outermost_marked(function)):
            for loop in choose(top):
                if outlinable(loop) and worth_it(loop):
                    work = IntegerAttr(block_cost(loop.body.block), i64)
                    name = f"{function.sym_name.data}__par{count}"
                    outline_loop(loop, name, function, {PARALLEL_WORK_ATTR: work})
                    count += 1
    for op in module.walk():  # the marks have served: later passes and tests need not see them
        op.attributes.pop(PARALLEL_LOOP_ATTR, None)


@dataclass(frozen=True)
class ParallelizePass(ModulePass):
    """Outline big `tj.parallel` loops into functions of an iteration range, for threads."""

    name = "parallelize"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        parallelize(op)

