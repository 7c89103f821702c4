"""The reverse sweep: cotangents of a straight-line run of `tj` ops, from the last op back.

Given the ops a tape recorded (in program order), the values the gradient is taken with
respect to (`sources`) and the cotangents of the targets (`seeds`), walk the ops backwards
and apply each op's adjoint (adjoints.py), summing the cotangents a value receives from
its uses. Only ops between a source and a target take part; a float value reaching a
target through an op without an adjoint is an error at that op's line, never a silently
missing gradient. Reads of a `tj.Variable` after a recorded write to it read the written
value (`aliases`), so the gradient flows through the write.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from xdsl.ir import Operation, SSAValue

from tracejit.frontend.autodiff import custom, indexing_adjoints  # noqa: F401 (its rules)
from tracejit.frontend.autodiff.adjoints import ADJOINTS, PIECEWISE_CONSTANT, add
from tracejit.frontend.autodiff.control_flow import if_adjoint, while_adjoint
from tracejit.frontend.autodiff.linalg_adjoints import linalg_adjoint
from tracejit.frontend.staging.tensor import Tensor
from tracejit.ir.control_flow import IfOp, WhileOp
from tracejit.ir.dtypes import numpy_dtype
from tracejit.ir.linalg import LinalgOp


class NotDifferentiableError(TypeError):
    """A gradient was asked through an op tracejit cannot differentiate."""


def is_float(value: SSAValue) -> bool:
    element = getattr(value.type, "get_element_type", None)
    return element is not None and numpy_dtype(element()).kind == "f"


def _used_values(op: Operation) -> Iterable[SSAValue]:
    """The values an op reads, those its regions read from outside included."""
    yield from op.operands
    for region in op.regions:
        for inner in region.walk():
            yield from inner.operands


def depends_on(
    ops: Sequence[Operation], sources: set[SSAValue], aliases: dict[SSAValue, SSAValue]
) -> set[SSAValue]:
    """The values computed by `ops` from `sources` (sources included)."""
    live = set(sources)
    for op in ops:
        if any(v in live or aliases.get(v) in live for v in _used_values(op)):
            live.update(op.results)
        live.update(r for r in op.results if aliases.get(r) in live)
    return live


def backpropagate(
    ops: Sequence[Operation],
    seeds: dict[SSAValue, Tensor],
    sources: set[SSAValue],
    aliases: dict[SSAValue, SSAValue] | None = None,
) -> dict[SSAValue, Tensor]:
    """Cotangents of every value between `sources` and the seeded targets."""
    aliases = aliases or {}
    live = depends_on(ops, sources, aliases)
    cotangents = {v: g for v, g in seeds.items() if v in live}
    for op in reversed(ops):
        results = [r for r in op.results if r in cotangents]
        if not results:
            continue
        for result in results:
            if result in aliases:  # a Variable read after a recorded write
                _accumulate(cotangents, aliases[result], cotangents[result])
        if not any(v in live for v in _used_values(op)) or isinstance(op, PIECEWISE_CONSTANT):
            continue
        if isinstance(op, IfOp | WhileOp):
            given = [cotangents.get(r) for r in op.res]
            found = (
                if_adjoint(op, given, live, backpropagate, is_float)
                if isinstance(op, IfOp)
                else while_adjoint(op, given, live, backpropagate, is_float)
            )
            for value, summand in found.items():
                _accumulate(cotangents, value, summand)
            continue
        call = custom.boundaries().get(op.results[0]) if len(op.results) == 1 else None
        if call is not None:  # a tj.custom_gradient function's result: its own gradient
            if op.results[0] is call.boundaries[-1]:  # once, at the last result
                for value, custom_grad in zip(call.inputs, custom.apply(call, cotangents),
                                              strict=True):
                    if custom_grad is not None and value in live and is_float(value):
                        _accumulate(cotangents, value, custom_grad)
            continue
        if custom.MARK in op.attributes:  # its gradient function stayed with another trace
            raise NotDifferentiableError(
                f"{location_of(op)}a tj.custom_gradient result reached this trace through a "
                "ConcreteFunction call, which keeps its gradient function: call the "
                "tj.Function (or the Python function) instead"
            )
        if isinstance(op, LinalgOp):  # several results, one rule per kind
            grads = linalg_adjoint(op, [cotangents.get(r) for r in op.results])
        else:
            rule = ADJOINTS.get(type(op))
            if rule is None or op.regions or len(op.results) != 1:
                raise NotDifferentiableError(_message(op))
            grads = rule(op, cotangents[op.results[0]])
        for operand, grad in zip(op.operands, grads, strict=True):
            if grad is not None and operand in live and is_float(operand):
                _accumulate(cotangents, operand, grad)
    return cotangents


def _accumulate(cotangents: dict[SSAValue, Tensor], value: SSAValue, grad: Tensor) -> None:
    assert grad.value.type == value.type, (grad.value.type, value.type)
    known = cotangents.get(value)
    cotangents[value] = grad if known is None else add(known, grad)


def location_of(op: Operation) -> str:
    """`file:line: ` of the user's code that staged `op` (empty if unknown)."""
    location = op.location
    if hasattr(location, "filename") and hasattr(location, "line"):
        return f"{location.filename.data}:{location.line.data}: "
    return ""


def _message(op: Operation) -> str:
    where = location_of(op)
    what = op.name
    if op.name == "tj.py_call":
        what += (" (a tj.py_function: give it a gradient with tj.custom_gradient or "
                 "tj.py_function(..., grad=...))")
    return (
        f"{where}no gradient is defined for {what}; compute the gradient from code before or "
        "after it, or stop it with tape.stop_recording()"
    )
