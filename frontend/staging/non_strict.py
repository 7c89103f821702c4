"""Non-strict execution while tracing: an op's error counts only if its result is used.

A TensorFlow graph runs only the ops its outputs and side effects need, so an op that
would fail raises nothing when its result is unused (the guide's `unused_return_graph`:
`tf.gather(x, [1])` of a one-element `x`). tracejit gets this for free for the checks a
kernel makes (a run-time index is checked by the pure `tj.gather` itself, and DCE removes
an unused gather with its check). Some of NumPy's data errors show up while tracing,
though: an index out of range that is a Python int or a constant array, `x ** -1` on
integers, a `tj.TensorArray` read past its end. Where such an error is found, the
frontend does not raise it: the failing op's result becomes a `tj.poison` of the right
type (`primitives.poison`, ir/poison.py) and the trace context keeps the exception. When
the trace ends (`finish`, from frontend/api/trace_function.py):

* the first pending error, in program order, whose value is *live* is raised: the very
  exception the op would have raised, naming the user's line;
* the others are dropped, with their `tj.poison` and every op that only computes from it,
  so no `tj.poison` leaves the frontend.

A value is live when the function's result or a side effect needs it (`_liveness`):
it is returned, or it feeds (directly or through other ops) an op with effects —
`tj.print`, `tj.py_call`, a Variable write, `tj.assert`, anything not known to be pure,
including a staged `tj.if`/`tj.while` that contains one. What a `tj.if` branch yields
counts only for the results that are live, and what a loop body yields only for the
loop-carried values that are live (as a result or within the loop); a loop's initial
values and its condition count whenever the loop runs. This is what `dce` keeps, except
that `dce` keeps all that a live region yields: a failing op that dead-code elimination
would drop never raises.

Errors about shapes, dtypes and Python arguments are not data errors: they are raised at
once, as TensorFlow's shape inference raises them while tracing. A Function called while
tracing another is traced on its own, so its own result counts as used there.
"""

from __future__ import annotations

import inspect
import sys
from types import FrameType, TracebackType
from typing import Any

from xdsl.dialects import func
from xdsl.ir import BlockArgument, Operation, OpResult, SSAValue
from xdsl.traits import IsTerminator
from xdsl.transforms.dead_code_elimination import would_be_trivially_dead

from tracejit.frontend.staging.tracing import TraceContext
from tracejit.ir.control_flow import IfOp, WhileOp, YieldOp
from tracejit.ir.invariants import defining_op

_NOTE = (
    "tracejit raised this when the trace ended: the failing operation's result is used "
    "(by a result or a side effect). An unused one would not raise: see 'Non-strict "
    "execution' in the user guide."
)


def traceback_here() -> TracebackType | None:
    """A traceback of the caller's caller up to the traced function's frame, for an error
    found now but raised when the trace ends: it then shows the user's line, as if raised
    there (None when not called under `trace`)."""
    frames: list[FrameType] = []
    frame: FrameType | None = sys._getframe(2)
    while frame is not None and frame.f_code is not call_traced.__code__:
        frames.append(frame)
        frame = frame.f_back
    if frame is None:
        return None
    traceback = None
    for frame in frames:  # innermost first: each links to the one it called
        traceback = TracebackType(traceback, frame, frame.f_lasti, frame.f_lineno)
    return traceback


def finish(context: TraceContext) -> None:
    """Raise the first pending error of `context` whose value is live; remove the rest.

    Call once the function's `func.return` is staged."""
    function = context.function
    pending = {
        value: error
        for value, error in context.pending_errors.items()
        if function.is_ancestor(value.owner)  # not thrown away (e.g. a trial trace)
    }
    context.pending_errors.clear()
    if not pending:
        return
    live, live_ops = _liveness(function)
    for value, error in pending.items():
        if value in live:
            if _NOTE not in getattr(error, "__notes__", ()):
                error.add_note(_NOTE)
            raise error
    _remove_dead(list(pending), live_ops)


def live_values(function: func.FuncOp) -> set[SSAValue]:
    """The values `function`'s results and side effects need."""
    return _liveness(function)[0]


def _liveness(function: func.FuncOp) -> tuple[set[SSAValue], set[Operation]]:
    """The values `function`'s results and side effects need, and the ops that run."""
    live: set[SSAValue] = set()
    live_ops: set[Operation] = set()
    work: list[SSAValue | Operation] = []
    for op in function.walk():
        if op is function:
            continue
        if isinstance(op, func.ReturnOp):
            work.extend(op.operands)
        elif not op.has_trait(IsTerminator) and not would_be_trivially_dead(op):
            work.append(op)  # an effect: tj.print, a Variable write, tj.assert, ...
    while work:
        item = work.pop()
        if isinstance(item, Operation):
            if item in live_ops:
                continue
            live_ops.add(item)
            work.extend(item.operands)
            parent = item.parent_op()
            if parent is not None and parent is not function:
                work.append(parent)  # an op runs only if the op around it does
            work.extend(_needed_inside(item))
        elif item not in live:
            live.add(item)
            work.extend(_sources(item))
    return live, live_ops


def _needed_inside(op: Operation) -> list[SSAValue]:
    """What a live region op needs from its regions whatever its results' liveness."""
    if isinstance(op, IfOp):
        return []
    if isinstance(op, WhileOp):
        return [op.before_region.block.last_op.predicate]  # type: ignore[union-attr]  # scf.condition ends it
    # an op with regions this module does not know: everything its terminators pass on
    return [
        operand
        for region in op.regions
        for block in region.blocks
        if block.last_op is not None and block.last_op.has_trait(IsTerminator)
        for operand in block.last_op.operands
    ]


def _sources(value: SSAValue) -> list[SSAValue | Operation]:
    """What a live value needs: its op, and where a region op's result or a loop value
    comes from (the branches' yields; a loop's initial value and body yield)."""
    if isinstance(value, OpResult):
        op = value.op
        if isinstance(op, IfOp):
            return [op, *(_yield(r).operands[value.index] for r in op.regions)]
        if isinstance(op, WhileOp):
            return [op, *_loop_value(op, value.index)]
        return [op]
    if isinstance(value, BlockArgument):
        parent = value.block.parent_op()
        if isinstance(parent, WhileOp):
            return [*_loop_value(parent, value.index)]
    return []


def _loop_value(loop: WhileOp, index: int) -> list[SSAValue]:
    """A loop-carried value is its initial value, then what the body yields for it."""
    return [loop.inits[index], _yield(loop.after_region).operands[index]]


def _yield(region) -> Operation:
    terminator = region.block.last_op
    assert isinstance(terminator, YieldOp)
    return terminator


def _remove_dead(poisons: list[SSAValue], live_ops: set[Operation]) -> None:
    """Erase the dead `tj.poison` values' ops and everything that uses them (all dead):
    a dead `tj.if` result is removed from the if, a dead loop-carried value keeps its
    value through the body, a dead region op goes as a whole."""
    erase: set[Operation] = set()
    dropped: dict[IfOp, set[int]] = {}
    loop_yields: list[tuple[Operation, int, SSAValue]] = []
    seen: set[SSAValue] = set()
    work = list(poisons)
    for value in poisons:
        erase.add(defining_op(value))
    while work:
        value = work.pop()
        if value in seen:
            continue
        seen.add(value)
        for use in list(value.uses):
            user = use.operation
            if not user.has_trait(IsTerminator):
                if user not in erase:
                    erase.add(user)
                    work.extend(user.results)
                continue
            parent = user.parent_op()
            assert parent is not None and not isinstance(user, func.ReturnOp)
            if parent not in live_ops:  # a dead tj.if / tj.while: it goes as a whole
                if parent not in erase:
                    erase.add(parent)
                    work.extend(parent.results)
            elif isinstance(parent, IfOp):  # the if result is dead: remove it
                dropped.setdefault(parent, set()).add(use.index)
                work.append(parent.res[use.index])
            elif isinstance(parent, WhileOp):  # a dead loop value: the body keeps it as is
                loop_yields.append((user, use.index, parent.after_region.block.args[use.index]))
            else:
                raise AssertionError(f"a dead value reaches a live {parent.name}")

    def gone(op: Operation) -> bool:
        parent = op.parent_op()
        return parent is not None and (parent in erase or gone(parent))

    for terminator, index, value in loop_yields:
        if not gone(terminator):
            terminator.operands[index] = value
    for op in [op for op in erase if not gone(op)]:
        assert op.parent is not None
        op.parent.erase_op(op, safe_erase=False)
    ifs = [(op, i) for op, i in dropped.items() if op.parent is not None and not gone(op)]
    for if_op, indices in ifs:  # first every yield, as one if may yield another's result
        for region in if_op.regions:
            old = _yield(region)
            new = YieldOp(*(v for i, v in enumerate(old.operands) if i not in indices))
            new.location = old.location
            region.block.insert_op_before(new, old)
            region.block.erase_op(old)
    for if_op, indices in ifs:
        _drop_if_results(if_op, indices)


def _drop_if_results(op: IfOp, indices: set[int]) -> None:
    """Rebuild `op` without the results at `indices` (no longer yielded nor used)."""
    keep = [i for i in range(len(op.res)) if i not in indices]
    regions = [op.detach_region(0), op.detach_region(0)]
    new_if = IfOp(op.pred, [op.res[i].type for i in keep], *regions)
    new_if.location = op.location
    new_if.attributes |= op.attributes
    assert op.parent is not None
    op.parent.insert_op_before(new_if, op)
    for new_index, old_index in enumerate(keep):
        op.res[old_index].replace_all_uses_with(new_if.res[new_index])
    op.parent.erase_op(op)


def call_traced(python_function: Any, signature: inspect.Signature, names, values) -> Any:
    """Call the traced function (frontend/api/trace_function.py) with the bound arguments,
    leaving out those that are still their parameter's own default object (the binding
    filled them in for the cache key): some callables refuse a default passed explicitly,
    e.g. a ufunc given both `dtype=None` and `signature=None`."""
    parameters = signature.parameters
    given = {
        name: value
        for name, value in zip(names, values, strict=True)
        if value is not parameters[name].default
    }
    bound = inspect.BoundArguments(signature, given)
    return python_function(*bound.args, **bound.kwargs)
