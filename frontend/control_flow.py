"""Staged control flow: `tj.cond`, `tj.while_loop` and `tj.range`.

On Python values these are plain Python (one branch runs; the loop runs, and is
unrolled if it happens while tracing). On a symbolic predicate they stage `tj.if` /
`tj.while`: each branch, the condition and the body are traced once into a region.
Branch outputs and loop values may be any nesting of tensors, arrays and Python
numbers; Python numbers are converted to tensors (taking the other branch's dtype
when it has a tensor there). Everything else must be identical in both branches.
AutoGraph's `if`/`while`/`for` dispatch here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from xdsl.ir import Block, Region, SSAValue

from tracejit.frontend import primitives
from tracejit.frontend.source_location import at_user_line
from tracejit.frontend.structure import TreeDef, flatten, unflatten
from tracejit.frontend.tensor import Tensor
from tracejit.frontend.tensor_array import prepare_loop_vars
from tracejit.frontend.tracing import current_trace, emit
from tracejit.ir.control_flow import ConditionOp, IfOp, WhileOp, YieldOp
from tracejit.ir.dtypes import tensor_type

_NUMBERS = (bool, int, float, np.generic, np.ndarray)


def _is_number(leaf: Any) -> bool:
    return isinstance(leaf, _NUMBERS) and not isinstance(leaf, str)


def _predicate(pred: Tensor, what: str) -> Tensor:
    """A 0-d bool tensor from a 0-d tensor (non-bools test `!= 0`, like Python's bool)."""
    if pred.ndim != 0:
        raise ValueError(
            at_user_line(
                f"the {what} must be a 0-d tensor, got shape {pred.shape}: the truth value "
                "of an array with more than one element is ambiguous (use np.any / np.all)"
            )
        )
    return primitives.cast(pred, np.dtype(np.bool_))


def _label(names: Sequence[str] | None, treedef: TreeDef, position: int) -> str:
    """The variable name of leaf `position` of the outputs, for error messages."""
    if names and treedef.kind == "leaf":
        return names[0]
    if names:
        for name, child in zip(names, treedef.children, strict=False):
            if position < child.num_leaves:
                return name
            position -= child.num_leaves
    return f"output {position}"


# --- tj.cond ------------------------------------------------------------------------------
def cond(
    pred: Any,
    true_fn: Callable[[], Any],
    false_fn: Callable[[], Any],
    *,
    names: Sequence[str] | None = None,
) -> Any:
    """`true_fn()` if `pred` else `false_fn()`; staged as `tj.if` when `pred` is a tensor."""
    if not isinstance(pred, Tensor):
        return true_fn() if pred else false_fn()
    predicate = _predicate(pred, "condition")
    then_block, else_block = Block(), Block()
    then_out = _trace_into(then_block, true_fn)
    else_out = _trace_into(else_block, false_fn)
    then_leaves, treedef = flatten(then_out)
    else_leaves, else_def = flatten(else_out)
    if treedef != else_def:
        raise TypeError(
            at_user_line(
                "the branches of a staged if must return the same structure, got "
                f"{then_out!r} and {else_out!r}"
            )
        )
    kinds = [
        _merge(a, b, _label(names, treedef, i))
        for i, (a, b) in enumerate(zip(then_leaves, else_leaves, strict=True))
    ]
    _finish_region(then_block, then_leaves, kinds)
    _finish_region(else_block, else_leaves, kinds)
    types = [tensor_type(*kind) for kind in kinds if kind is not None]
    op = emit(IfOp(predicate.value, types, Region(then_block), Region(else_block)))
    results = iter(op.res)
    leaves = [
        Tensor(next(results), dims=_common_dims(a, b)) if kind is not None else a
        for a, b, kind in zip(then_leaves, else_leaves, kinds, strict=True)
    ]
    return unflatten(treedef, leaves)


def _common_dims(a: Any, b: Any) -> tuple | None:
    """The dims of an if result: a dim unknown at trace time keeps its source where both
    branches agree on it (`x` and `x * 2`), else only the kernel knows it."""
    from tracejit.frontend.dims import UNKNOWN

    if not (isinstance(a, Tensor) and isinstance(b, Tensor)) or None not in a.shape:
        return None
    return tuple(d if d == e else UNKNOWN for d, e in zip(a.dims, b.dims, strict=True))


def _trace_into(block: Block, fn: Callable[[], Any]) -> Any:
    with current_trace().building_in(block):
        return fn()


def _merge(a: Any, b: Any, name: str) -> tuple[tuple, np.dtype] | None:
    """The (shape, dtype) both branches' values of one output get, or None if Python."""
    if not (isinstance(a, Tensor) or isinstance(b, Tensor) or (_is_number(a) and _is_number(b))):
        if a is b or (type(a) is type(b) and a == b):
            return None  # the same Python value on both paths: stays Python
        raise TypeError(
            at_user_line(
                f"'{name}' must be a tensor or the same Python value in both branches of a "
                f"staged if, got {a!r} and {b!r}"
            )
        )
    for value in (a, b):
        if not (isinstance(value, Tensor) or _is_number(value)):
            raise TypeError(
                at_user_line(
                    f"'{name}' is {value!r} in one branch of a staged if and a tensor in the other"
                )
            )
    spec_a, spec_b = _spec(a, b), _spec(b, a)
    if spec_a != spec_b:
        raise TypeError(
            at_user_line(
                f"'{name}' has dtype {spec_a[1]} and shape {spec_a[0]} in the true branch but "
                f"dtype {spec_b[1]} and shape {spec_b[0]} in the false branch of a staged if"
            )
        )
    return spec_a


def _spec(value: Any, other: Any) -> tuple[tuple, np.dtype]:
    if isinstance(value, Tensor):
        return value.shape, value.dtype
    if isinstance(other, Tensor) and isinstance(value, bool | int | float):
        return (), other.dtype  # a weak Python scalar takes the tensor's dtype
    array = np.asarray(value)
    return array.shape, array.dtype


def _finish_region(block: Block, leaves: list[Any], kinds: list) -> None:
    """Convert the region's outputs to tensors of the agreed types and yield them."""
    with current_trace().building_in(block):
        values = [
            _as_tensor_of(leaf, kind) for leaf, kind in zip(leaves, kinds, strict=True) if kind
        ]
        emit(YieldOp(*(v.value for v in values)))


def _as_tensor_of(leaf: Any, kind: tuple[tuple, np.dtype]) -> Tensor:
    if isinstance(leaf, Tensor):
        return leaf
    return primitives.constant(np.asarray(leaf, dtype=kind[1]))


# --- tj.while_loop ------------------------------------------------------------------------
def while_loop(
    cond_fn: Callable[..., Any],
    body_fn: Callable[..., Any],
    loop_vars: Sequence[Any],
    *,
    maximum_iterations: int | None = None,
    names: Sequence[str] | None = None,
) -> tuple[Any, ...]:
    """Repeat `loop_vars = body_fn(*loop_vars)` while `cond_fn(*loop_vars)`; staged as
    `tj.while` when the condition or a loop variable is a tensor."""
    loop_vars = tuple(loop_vars)
    iterations = 0
    while not _any_tensor(loop_vars):
        pred = cond_fn(*loop_vars)
        if isinstance(pred, Tensor):
            break
        if not pred or (maximum_iterations is not None and iterations >= maximum_iterations):
            return loop_vars
        loop_vars = tuple(body_fn(*loop_vars))
        iterations += 1
    if maximum_iterations is not None:
        raise NotImplementedError(at_user_line("staged while_loop(maximum_iterations=...)"))
    return _staged_while(cond_fn, body_fn, loop_vars, names)


def _any_tensor(values: Any) -> bool:
    return any(isinstance(leaf, Tensor) for leaf in flatten(values)[0])


def _staged_while(cond_fn, body_fn, loop_vars: tuple, names) -> tuple[Any, ...]:
    loop_vars = prepare_loop_vars(loop_vars, body_fn)  # TensorArrays: carried form
    leaves, treedef = flatten(loop_vars)
    inits = [_loop_tensor(leaf, _label(names, treedef, i)) for i, leaf in enumerate(leaves)]
    types = [t.value.type for t in inits]
    before, after = Block(arg_types=types), Block(arg_types=types)
    with current_trace().building_in(before):
        pred = cond_fn(*unflatten(treedef, _carried(before.args, inits)))
        if not isinstance(pred, Tensor):
            pred = primitives.constant(bool(pred))
        emit(ConditionOp(_predicate(pred, "loop condition").value))
    with current_trace().building_in(after):
        new = body_fn(*unflatten(treedef, _carried(after.args, inits)))
        new_leaves, new_def = flatten(tuple(new))
        if new_def != treedef:
            raise TypeError(
                at_user_line(
                    f"a staged loop body must keep the loop variables' structure, got {new!r}"
                )
            )
        values = [
            _next_value(leaf, init, _label(names, treedef, i))
            for i, (leaf, init) in enumerate(zip(new_leaves, inits, strict=True))
        ]
        _check_sizes_kept(values, inits, names, treedef)
        emit(YieldOp(*(v.value for v in values)))
    op = emit(WhileOp([t.value for t in inits], Region(before), Region(after)))
    return tuple(unflatten(treedef, _carried(op.res, inits)))


def _carried(values: Sequence[SSAValue], inits: list[Tensor]) -> list[Tensor]:
    """Loop values as tensors with their initial values' dims (`_check_sizes_kept`)."""
    return [Tensor(v, dims=init.dims) for v, init in zip(values, inits, strict=True)]


def _check_sizes_kept(values: list[Tensor], inits: list[Tensor], names, treedef) -> None:
    """A dim unknown at trace time must keep its size across iterations, as the loop was
    traced assuming it does. (Dims only the kernel knows, like a dynamic TensorArray's,
    may change: their sizes are read at run time wherever they are used.)"""
    for i, (value, init) in enumerate(zip(values, inits, strict=True)):
        if tuple(value.dims) != tuple(init.dims):
            raise NotImplementedError(
                at_user_line(
                    f"loop variable '{_label(names, treedef, i)}' has shape {init.shape} before "
                    f"a staged loop and a shape of other sizes after its body (dims "
                    f"{list(init.dims)} -> {list(value.dims)}); a dim unknown at trace time "
                    "must keep its size across the iterations of a staged loop"
                )
            )


def _loop_tensor(leaf: Any, name: str) -> Tensor:
    if isinstance(leaf, Tensor):
        return leaf
    if _is_number(leaf):
        return primitives.constant(np.asarray(leaf))
    raise TypeError(
        at_user_line(
            f"loop variable '{name}' must be a tensor or a number in a staged loop, got {leaf!r}"
        )
    )


def _next_value(leaf: Any, init: Tensor, name: str) -> Tensor:
    if isinstance(leaf, bool | int | float) and not isinstance(leaf, np.generic):
        return primitives.constant(np.asarray(leaf, dtype=init.dtype))
    value = _loop_tensor(leaf, name)
    if value.dtype != init.dtype or value.shape != init.shape:
        raise TypeError(
            at_user_line(
                f"loop variable '{name}' changes from dtype {init.dtype} and shape {init.shape} "
                f"to dtype {value.dtype} and shape {value.shape} inside a staged loop; a "
                "loop-carried value must keep its dtype and shape"
            )
        )
    return value


# --- tj.range -------------------------------------------------------------------------------
class Range:
    """`tj.range(start, limit=None, delta=1)`: like `range`, but a `for` loop over it is
    staged (not unrolled) by AutoGraph; iterating it directly needs concrete bounds."""

    def __init__(self, start: Any, limit: Any = None, delta: Any = 1):
        if limit is None:
            start, limit = 0, start
        self.start, self.limit, self.delta = start, limit, delta

    def __iter__(self):
        bounds = (self.start, self.limit, self.delta)
        if any(isinstance(b, Tensor) for b in bounds):
            raise TypeError(
                at_user_line(
                    "iterating a tj.range with tensor bounds needs AutoGraph (autograph=True)"
                )
            )
        return iter(range(*(int(b) for b in bounds)))

    def __repr__(self) -> str:
        return f"tj.range({self.start!r}, {self.limit!r}, {self.delta!r})"
