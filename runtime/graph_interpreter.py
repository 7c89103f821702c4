"""Run a traced `tj` module on NumPy arrays without compiling it: the first tier of tiered
execution (`frontend/api/tiered.py`).

Only a pure subset is interpreted: constants, the element-wise family (unary and binary
math, compare, select, cast, complex parts), broadcast_in_dim, reshape, transpose, static
slices and insert_slice, concat, pad, matmul, reduce, cumulative, `func.call` / `func.return`,
and `tj.if` / `tj.while` whose regions hold only those (a loop is abandoned once the run has
taken LOOP_BUDGET_SECONDS: the compiled loop is far quicker). Each op is evaluated by its own
`evaluate` -- the NumPy meaning the constant folder uses and the tests compare the compiled
code against -- so the interpreter computes what the compiled code computes (integer
wrap-around, `x // 0`, shifts, NaN rules, float16 and complex are decided by the IR's types,
as they are for the compiler). After every op the result's dtype and shape must be the op's
declared result type.

Anything else -- TensorArrays, prints, py_function callbacks, Variables, asserts, run-time
indices (gather, scatter, dynamic slices), sort, nonzero, LAPACK calls (tj.linalg, whose
functions also stage asserts), unknown dims, or a result that does not match its declared
type -- raises `Unsupported`: the caller then compiles the module as before. The
interpreter refuses rather than guesses.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from tracejit.ir.constant import ConstantOp
from tracejit.ir.control_flow import ConditionOp, IfOp, WhileOp, YieldOp
from tracejit.ir.cumulative import CumulativeOp
from tracejit.ir.dense import array_from_dense
from tracejit.ir.dtypes import numpy_dtype
from tracejit.ir.elementwise import (
    OTHER_ELEMENTWISE_OPS,
    ElementwiseBinaryOp,
    ElementwiseUnaryOp,
)
from tracejit.ir.matmul import MatmulOp
from tracejit.ir.reduce import ReduceOp
from tracejit.ir.shape_ops import (
    BroadcastInDimOp,
    ConcatOp,
    PadOp,
    ReshapeOp,
    SliceOp,
    TransposeOp,
)
from tracejit.ir.update import InsertSliceOp

# Ops evaluated by their `evaluate(*operand arrays)`, given only tensor operands (ops with
# run-time index operands -- dynamic slices, broadcasts to unknown sizes -- are refused).
EVALUATED: tuple[type[Operation], ...] = (
    ElementwiseUnaryOp,
    ElementwiseBinaryOp,
    *OTHER_ELEMENTWISE_OPS,
    BroadcastInDimOp,
    ReshapeOp,
    TransposeOp,
    SliceOp,
    InsertSliceOp,
    ConcatOp,
    PadOp,
    MatmulOp,
    ReduceOp,
    CumulativeOp,
)


class Unsupported(Exception):
    """The module (or this run of it) is outside what the interpreter evaluates."""


# A loop's iterations are interpreted for at most this long (from the start of the run); then
# the run is abandoned and the function compiled: interpreting a long loop of small ops costs
# far more than compiling it.
LOOP_BUDGET_SECONDS = 0.1


@dataclass(frozen=True)
class _Step:
    """One op: `results = evaluate(*operands)`, each result checked against its type."""

    name: str
    evaluate: Callable[..., Any]
    operands: tuple[int, ...]  # value slots
    results: tuple[int, ...]
    expected: tuple[tuple[np.dtype, tuple[int, ...]], ...]  # per result: dtype, shape

    def run(self, values: list[Any], deadline: float) -> None:
        try:
            out = self.evaluate(*[values[i] for i in self.operands])
        except Exception as error:  # refuse, do not guess: the compiler decides
            raise Unsupported(f"{self.name} raised {type(error).__name__}") from error
        outs = out if isinstance(out, tuple) else (out,)
        if len(outs) != len(self.results):
            raise Unsupported(f"{self.name} gave {len(outs)} results")
        for slot, value, (dtype, shape) in zip(self.results, outs, self.expected, strict=True):
            array = np.asarray(value)
            if array.dtype != dtype or array.shape != shape:
                raise Unsupported(
                    f"{self.name} gave {array.dtype}{list(array.shape)}, not {dtype}{list(shape)}"
                )
            values[slot] = array


@dataclass(frozen=True)
class _Block:
    """A region's block: its argument slots, its steps, and the slots its terminator passes
    on (a tj.yield's values, or a tj.condition's predicate)."""

    arguments: tuple[int, ...]
    steps: tuple[Step, ...]
    terminator: tuple[int, ...]

    def run(self, values: list[Any], deadline: float, arguments: Sequence[object]) -> list[Any]:
        for slot, value in zip(self.arguments, arguments, strict=True):
            values[slot] = value
        for step in self.steps:
            step.run(values, deadline)
        return [values[i] for i in self.terminator]


@dataclass(frozen=True)
class _IfStep:
    name: str
    predicate: int
    then_block: _Block
    else_block: _Block
    results: tuple[int, ...]

    def run(self, values: list[Any], deadline: float) -> None:
        block = self.then_block if bool(values[self.predicate]) else self.else_block
        for slot, value in zip(self.results, block.run(values, deadline, ()), strict=True):
            values[slot] = value


@dataclass(frozen=True)
class _WhileStep:
    name: str
    inits: tuple[int, ...]
    before: _Block  # ends with the predicate
    after: _Block  # ends with the next loop values
    results: tuple[int, ...]

    def run(self, values: list[Any], deadline: float) -> None:
        current = [values[i] for i in self.inits]
        while bool(self.before.run(values, deadline, current)[0]):
            if time.perf_counter() > deadline:
                raise Unsupported("a loop ran longer than the interpreter's budget")
            current = self.after.run(values, deadline, current)
        for slot, value in zip(self.results, current, strict=True):
            values[slot] = value


# one step of a plan: an op, an `if` or a `while` (blocks of steps inside the last two)
Step: TypeAlias = "_Step | _IfStep | _WhileStep"


class Plan:
    """A traced function as steps over numbered value slots (callees inlined)."""

    def __init__(
        self,
        steps: list[Step],
        releases: list[tuple[int, ...]],
        slots: int,
        arguments: list[int],
        argument_types: list[tuple[np.dtype, tuple[int, ...]]],
        returns: list[int],
    ) -> None:
        self.steps = steps
        self.releases = releases  # per step: the slots read for the last time there
        self.slots = slots
        self.arguments = arguments
        self.argument_types = argument_types
        self.returns = returns

    def run(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """The function's results on `inputs` (arrays of the traced dtypes and shapes):
        fresh C-contiguous arrays, none aliasing an input, a constant or another result."""
        if len(inputs) != len(self.arguments):
            raise Unsupported(f"{len(inputs)} inputs for {len(self.arguments)} arguments")
        deadline = time.perf_counter() + LOOP_BUDGET_SECONDS
        values: list[Any] = [None] * self.slots
        for slot, array, (dtype, shape) in zip(
            self.arguments, inputs, self.argument_types, strict=True
        ):
            if array.dtype != dtype or array.shape != shape:
                raise Unsupported(f"an input of {array.dtype}{list(array.shape)}")
            values[slot] = array
        with np.errstate(all="ignore"):  # compiled code never warns either
            for step, release in zip(self.steps, self.releases, strict=True):
                step.run(values, deadline)
                for slot in release:
                    values[slot] = None
        return _fresh([values[i] for i in self.returns], inputs)


def evaluate_constant(value: SSAValue, max_ops: int = 64) -> np.ndarray | None:
    """The array `value` holds if it is computed from constants alone by at most `max_ops`
    interpreted ops (`np.ones_like(x) * 2` of a static `x`: a Variable's initial value made
    while tracing), else None. Evaluated as the interpreter evaluates a trace; the result
    may be a read-only constant, so callers copy it."""
    memo: dict[SSAValue, Any] = {}

    def value_of(v: SSAValue) -> Any:
        if v in memo:
            return memo[v]
        op = v.owner
        if not isinstance(op, Operation) or len(memo) >= max_ops:
            raise Unsupported("not computed from constants")
        evaluate = _evaluator(op)
        result: Any = evaluate(*(value_of(operand) for operand in op.operands))
        arrays = list(result) if len(op.results) > 1 else [result]
        for r, array in zip(op.results, arrays, strict=True):
            memo[r] = np.asarray(array)
            if (memo[r].dtype, memo[r].shape) != _expected(r):
                raise Unsupported(f"{op.name} did not give its declared type")
        return memo[v]

    try:
        with np.errstate(all="ignore"):  # as the compiled code would compute it
            return value_of(value)
    except Unsupported:
        return None


def _fresh(results: list[np.ndarray], inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    shared = {id(a) for a in inputs}  # constants are read-only, so they are copied too
    fresh: list[np.ndarray] = []
    for array in results:
        flags = array.flags
        if not (flags.owndata and flags.c_contiguous and flags.writeable) or id(array) in shared:
            array = np.array(array, order="C", copy=True)
        shared.add(id(array))
        fresh.append(array)
    return fresh


def plan(module: ModuleOp, function_name: str) -> Plan:
    """The plan of `function_name` in a traced module; `Unsupported` when any op (or any
    value's type) is outside the interpreted subset."""
    functions = {
        op.sym_name.data: op for op in module.ops if isinstance(op, func.FuncOp) and op.body.blocks
    }
    if function_name not in functions:
        raise Unsupported(f"no function {function_name}")
    builder = _Builder(functions)
    entry = functions[function_name]
    arguments = [builder.new_slot(arg) for arg in entry.body.blocks[0].args]
    steps: list[Step] = []
    returns = builder.inline(entry, arguments, steps, ())
    releases = _releases(steps, set(arguments) | set(returns))
    types = [_expected(arg) for arg in entry.body.blocks[0].args]
    return Plan(steps, releases, builder.slots, arguments, types, returns)


class _Builder:
    def __init__(self, functions: dict[str, func.FuncOp]) -> None:
        self.functions = functions
        self.slots = 0

    def new_slot(self, value: SSAValue) -> int:
        _expected(value)  # every value is a static tensor of a NumPy dtype
        self.slots += 1
        return self.slots - 1

    def inline(
        self,
        function: func.FuncOp,
        arguments: list[int],
        steps: list[Step],
        calling: tuple[str, ...],
    ) -> list[int]:
        """Append the steps of `function`'s body (arguments in `arguments`) to `steps`;
        return its result slots."""
        if function.sym_name.data in calling or len(function.body.blocks) != 1:
            raise Unsupported(f"function {function.sym_name.data} cannot be inlined")
        block = function.body.blocks[0]
        slot_of: dict[SSAValue, int] = dict(zip(block.args, arguments, strict=True))
        terminator = self.block(block, slot_of, steps, (*calling, function.sym_name.data))
        if not isinstance(terminator, func.ReturnOp):
            raise Unsupported(f"function {function.sym_name.data} does not return")
        return [slot_of[v] for v in terminator.arguments]

    def block(
        self,
        block: Block,
        slot_of: dict[SSAValue, int],
        steps: list[Step],
        calling: tuple[str, ...],
    ) -> Operation:
        """Append the steps of `block`'s ops (their values added to `slot_of`); return its
        terminator."""
        for op in block.ops:
            if isinstance(op, func.ReturnOp | YieldOp | ConditionOp):
                return op
            operands = [_slot(slot_of, v) for v in op.operands]
            if isinstance(op, func.CallOp):
                callee = self.functions.get(op.callee.string_value())
                if callee is None:
                    raise Unsupported(f"call of an external function {op.callee}")
                returned = self.inline(callee, operands, steps, calling)
                if len(returned) != len(op.results):
                    raise Unsupported("call result count")
                for result, slot in zip(op.results, returned, strict=True):
                    _expected(result)
                    slot_of[result] = slot
                continue
            results = tuple(self.new_slot(r) for r in op.results)
            if isinstance(op, IfOp):
                then_block = self.region(op.then_region, (), slot_of, calling)
                else_block = self.region(op.else_region, (), slot_of, calling)
                steps.append(_IfStep(op.name, operands[0], then_block, else_block, results))
            elif isinstance(op, WhileOp):
                before = self.region(op.before_region, op.res.types, slot_of, calling)
                after = self.region(op.after_region, op.res.types, slot_of, calling)
                steps.append(_WhileStep(op.name, tuple(operands), before, after, results))
            else:
                if op.regions:
                    raise Unsupported(f"{op.name} has regions")
                expected = tuple(_expected(v) for v in op.results)
                steps.append(_Step(op.name, _evaluator(op), tuple(operands), results, expected))
            slot_of.update(zip(op.results, results, strict=True))
        raise Unsupported("a block without a terminator")

    def region(
        self,
        region: Region,
        types: Sequence[Attribute],
        outer: dict[SSAValue, int],
        calling: tuple[str, ...],
    ) -> _Block:
        if len(region.blocks) != 1:
            raise Unsupported("a region of several blocks")
        block = region.blocks[0]
        if [a.type for a in block.args] != list(types):
            raise Unsupported("region argument types")
        slot_of = dict(outer)  # regions read the values defined around them
        arguments = tuple(self.new_slot(a) for a in block.args)
        slot_of.update(zip(block.args, arguments, strict=True))
        steps: list[Step] = []
        terminator = self.block(block, slot_of, steps, calling)
        passed = terminator.operands
        if isinstance(terminator, ConditionOp):
            if _expected(terminator.predicate) != (np.dtype(bool), ()):
                raise Unsupported("a loop condition that is not a 0-d bool")
        elif not isinstance(terminator, YieldOp):
            raise Unsupported(f"a region ending with {terminator.name}")
        return _Block(arguments, tuple(steps), tuple(_slot(slot_of, v) for v in passed))


def _slot(slot_of: dict[SSAValue, int], value: SSAValue) -> int:
    if value not in slot_of:
        raise Unsupported("a value defined nowhere the interpreter has seen")
    return slot_of[value]


def _reads(step: Step) -> set[int]:
    """Every slot a step reads, in its regions too."""
    if isinstance(step, _Step):
        return set(step.operands)
    blocks = (step.then_block, step.else_block) if isinstance(step, _IfStep) else (
        step.before, step.after)  # fmt: skip
    found = {step.predicate} if isinstance(step, _IfStep) else set(step.inits)
    for block in blocks:
        found.update(block.terminator)
        for inner in block.steps:
            found |= _reads(inner)
    return found


def _releases(steps: list[Step], kept: set[int]) -> list[tuple[int, ...]]:
    """Per top-level step, the slots to drop after it (read there for the last time), so
    a long function does not hold every intermediate array until it returns."""
    last_use: dict[int, int] = {}
    for index, step in enumerate(steps):
        for slot in _reads(step):
            last_use[slot] = index
    releases: list[list[int]] = [[] for _ in steps]
    for slot, index in last_use.items():
        if slot not in kept:
            releases[index].append(slot)
    return [tuple(r) for r in releases]


def _evaluator(op: Operation) -> Callable[..., object]:
    if isinstance(op, ConstantOp):
        array = array_from_dense(op.value)
        array.flags.writeable = False  # shared by every run; results copy it
        if (array.dtype, array.shape) != _expected(op.result):
            raise Unsupported("tj.constant does not hold its declared type")
        return lambda: array
    if not isinstance(op, EVALUATED):
        raise Unsupported(f"{op.name} is not interpreted")
    if not all(isinstance(v.type, TensorType) for v in op.operands):
        raise Unsupported(f"{op.name} takes run-time index operands")
    if isinstance(op, SliceOp) and op.is_dynamic():
        raise Unsupported("dynamic tj.slice")
    evaluate = getattr(op, "evaluate", None)
    if evaluate is None:
        raise Unsupported(f"{op.name} has no NumPy meaning")
    return evaluate


def _expected(value: SSAValue) -> tuple[np.dtype, tuple[int, ...]]:
    kind = value.type
    if not isinstance(kind, TensorType) or not kind.has_static_shape():
        raise Unsupported(f"a value of type {kind}")
    try:
        dtype = numpy_dtype(kind.get_element_type())
    except TypeError as error:
        raise Unsupported(str(error)) from None
    return dtype, tuple(kind.get_shape())
