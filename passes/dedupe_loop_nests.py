"""`dedupe-loop-nests`: a loop nest that repeats is compiled once, and called where it was.

Expects: loop-level IR after `parallelize` (func/scf/arith/math/memref). A Python loop over
layers, stages or time steps unrolls while tracing, leaving the same loop nests again and
again on other buffers: 48 layer norms give 303 nests of 29 kinds, a Stockham FFT 70 of 35.
LLVM optimises every copy, and its loop vectoriser costs more than linearly in the size of one
function (a 9,200-line function took 4.8 s of O3, a 2,400-line one 0.5 s).

Produces:

1. Of the private functions `parallelize` outlined (`@f__par<k>`) that differ only in their
   name, one; the calls of the others call it.
2. Each kind of outermost `scf.for` nest met at least twice -- the same structural key
   (passes/support/structural_key.py: the same ops, types and constants, using the same
   number of outside buffers and scalars in the same places) -- outlined once, as
   `parallelize` outlines a loop, into `@<function>__nest<k>(outside values..., %lo, %hi)`,
   and each nest of that kind replaced by its call, flagged OUTLINED_CALL_ATTR (a plain
   `noinline` call in the code generator, returning a failed bounds check's status):

       scf.for %i = %c0 to %c64 step %c1 {           func.call @f__nest0(%a, %b, %c0, %c64)
         <body reading %a, writing %b>         =>        {tj.outlined}
       }                                             ...
       ...                                           func.call @f__nest0(%x, %y, %c0, %c64)
       scf.for %i = %c0 to %c64 step %c1 {               {tj.outlined}
         <the same body reading %x, writing %y>
       }

Float constants are the exception to "the same constants": a nest's are first moved out of
it (a Python float per layer or step is a constant of the trace), and those whose value
differs between the nests of one kind (compared bit for bit: -0.0 is not 0.0) become
arguments of the shared function, each call passing its own.

Every call runs the same ops on the same values over the same iterations as the nest it
replaces, so results are unchanged bit for bit. Only nests of at least MIN_NEST_OPS ops
doing at least MIN_NEST_WORK estimated operations (MIN_NEST_WORK_IN_LOOP inside a staged
`while` loop, where they run once per trip) are outlined: a smaller one costs LLVM little to
compile twice, and a call would cost it more at run time than it saves.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import AnyFloat, ModuleOp, SymbolRefAttr, UnitAttr
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass

from tracejit.ir.invariants import defining_op
from tracejit.ir.parallel_contract import OUTLINED_CALL_ATTR, PARALLEL_WORK_ATTR
from tracejit.passes.parallelize import (
    block_cost,
    call_over_all_iterations,
    outermost,
    outlinable,
    outline_loop,
    outside_inputs,
    private_scratch,
    trip_count,
)
from tracejit.passes.support.structural_key import structural_key

MIN_NEST_OPS = 4
"""Ops a nest must hold (counting the loops) to be outlined."""

MIN_NEST_WORK = 64
"""Estimated scalar operations a nest of static trip count must do to be outlined. A call
and its status test cost a few nanoseconds, which a nest run once per call of the kernel
never notices; smaller nests are cheap for LLVM to compile twice."""

MIN_NEST_WORK_IN_LOOP = 1024
"""The same inside a staged `while` loop, where the nest runs once per trip: a call is then
a few percent of its time at most."""

SYMBOL_PROPERTIES = frozenset({"sym_name"})


def dedupe_loop_nests(module: ModuleOp) -> None:
    """Merge identical outlined functions, then outline repeated nests (module docstring)."""
    parallel_callees = merge_identical_functions(module)
    kinds: dict[Hashable, list[scf.ForOp]] = {}
    first_functions: dict[Hashable, func.FuncOp] = {}  # where each kind was met first
    for function in functions(module):
        if function.sym_name.data in parallel_callees:
            continue
        for nest in outermost_loops(function):
            if worth_outlining(nest):
                hoist_float_constants(nest)
                key = nest_key(nest)
                kinds.setdefault(key, []).append(nest)
                first_functions.setdefault(key, function)
    taken = {function.sym_name.data for function in functions(module)}
    for key, nests in kinds.items():
        if len(nests) < 2:
            continue
        first_function = first_functions[key]
        name = fresh_name(f"{first_function.sym_name.data}__nest", taken)
        flag = {OUTLINED_CALL_ATTR: UnitAttr()}
        inputs = [outside_inputs(nest) for nest in nests]  # aligned: the keys are equal
        lifted = differing_float_constants(inputs)
        for nest, values in zip(nests[1:], inputs[1:], strict=True):
            call_over_all_iterations(nest, name, passed(nest, values, lifted), flag)
        cloned = [v for p, v in enumerate(inputs[0])
                  if p not in lifted and private_scratch(v, nests[0])]  # fmt: skip
        outline_loop(nests[0], name, first_function, flag,
                     (passed(nests[0], inputs[0], lifted), cloned))  # fmt: skip


def hoist_float_constants(nest: scf.ForOp) -> None:
    """Move the float constants inside `nest` to just before it (a constant is the same
    value anywhere), so that nests differing only in them are of one kind."""
    block = nest.parent_block()
    assert block is not None
    for op in [op for op in nest.body.walk() if float_constant_op(op)]:
        op.detach()
        block.insert_op_before(op, nest)


def float_constant_op(op: Operation) -> bool:
    return isinstance(op, arith.ConstantOp) and isinstance(op.result.type, AnyFloat)


def differing_float_constants(inputs: list[list[SSAValue]]) -> set[int]:
    """The positions of the float constants whose value differs between the nests: passed
    to the shared function as arguments, where the others are cloned into it."""
    return {position for position, value in enumerate(inputs[0])
            if float_constant(value) is not None
            and any(float_constant(other[position]) != float_constant(value)
                    for other in inputs[1:])}  # fmt: skip


def passed(nest: scf.ForOp, values: list[SSAValue], lifted: set[int]) -> list[SSAValue]:
    """The arguments of the shared function's call in place of `nest`."""
    return [v for p, v in enumerate(values) if p in lifted or not private_scratch(v, nest)]


def float_constant(value: SSAValue) -> Attribute | None:
    owner = value.owner
    if isinstance(owner, Operation) and float_constant_op(owner):
        assert isinstance(owner, arith.ConstantOp)
        return owner.value
    return None


def fresh_name(prefix: str, taken: set[str]) -> str:
    """`prefix` and the first number giving a name not in `taken` (which it joins)."""
    count = 0
    while f"{prefix}{count}" in taken:
        count += 1
    taken.add(f"{prefix}{count}")
    return f"{prefix}{count}"


def functions(module: ModuleOp) -> list[func.FuncOp]:
    return [op for op in module.ops if isinstance(op, func.FuncOp) and op.body.blocks]


def outermost_loops(op: Operation) -> Iterator[scf.ForOp]:
    """The `scf.for` ops inside `op` with no `scf.for` between them and it."""
    for loop in outermost(op, lambda nested: isinstance(nested, scf.ForOp)):
        assert isinstance(loop, scf.ForOp)
        yield loop


def worth_outlining(nest: scf.ForOp) -> bool:
    if not outlinable(nest):
        return False
    if sum(1 for _ in nest.walk()) < MIN_NEST_OPS:
        return False
    trips = trip_count(nest)
    if trips is None:
        return True  # a run-time trip count: as much work as the data, as in parallelize
    needed = MIN_NEST_WORK_IN_LOOP if inside_staged_loop(nest) else MIN_NEST_WORK
    return trips * block_cost(nest.body.block) >= needed


def inside_staged_loop(nest: scf.ForOp) -> bool:
    parent = nest.parent_op()
    while parent is not None and not isinstance(parent, func.FuncOp):
        if isinstance(parent, scf.WhileOp):
            return True
        parent = parent.parent_op()
    return False


def nest_key(nest: scf.ForOp) -> Hashable:
    """Equal for nests whose outlined functions would be the same (module docstring)."""

    def describe(value: SSAValue) -> Hashable:
        if float_constant(value) is not None:  # its value may differ: see differing_...
            return ("float constant", value.type)
        if private_scratch(value, nest):  # cloned into the function: the op itself counts
            op = defining_op(value)
            return ("cloned", structural_key(op, lambda v: v.type))
        return ("argument", value.type)

    return structural_key(nest, describe)


def merge_identical_functions(module: ModuleOp) -> set[str]:
    """Keep one of the functions `parallelize` outlined that differ only in their name, and
    make every call of the others call it. Returns the names of the functions kept."""
    calls = [op for op in module.walk()
             if isinstance(op, func.CallOp) and PARALLEL_WORK_ATTR in op.attributes]  # fmt: skip
    callees = {call.callee.root_reference.data for call in calls}
    kept: dict[Hashable, str] = {}
    renamed: dict[str, str] = {}
    for function in functions(module):
        name = function.sym_name.data
        if name not in callees:
            continue
        key = structural_key(function, lambda v: v.type, SYMBOL_PROPERTIES)
        if key in kept:
            renamed[name] = kept[key]
            function.detach()
            function.erase()
        else:
            kept[key] = name
    for call in calls:
        target = renamed.get(call.callee.root_reference.data)
        if target is not None:
            call.properties["callee"] = SymbolRefAttr(target)
    return set(kept.values())


@dataclass(frozen=True)
class DedupeLoopNestsPass(ModulePass):
    """Compile each repeated loop nest (and outlined loop) once, called where it was."""

    name = "dedupe-loop-nests"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        dedupe_loop_nests(op)
