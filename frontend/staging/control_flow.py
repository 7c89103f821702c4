"""Staged control flow: `tj.cond`, `tj.while_loop` and `tj.range`.

On Python values these are plain Python (one branch runs; the loop runs, and is
unrolled if it happens while tracing). On a symbolic predicate they stage `tj.if` /
`tj.while`: each branch, the condition and the body are traced once into a region.
Branch outputs and loop values may be any nesting of tensors, arrays and Python
numbers; Python numbers are converted to tensors (taking the other branch's dtype
when it has a tensor there). Everything else must be identical in both branches.
AutoGraph's `if`/`while`/`for` dispatch here.

Python ints and floats stay weakly typed (NEP 50) as staged values: a loop variable a
literal starts is a weak tensor (`Tensor.weak`) that takes the dtype NumPy's promotion
gives the literal against what the body computes (`s = 0; s = s + x_int32[i]` is int32),
re-tracing the loop once it is known; an if result from literals or weak values in both
branches is weak. A loop variable that really changes dtype or shape raises ValueError.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
from xdsl.ir import Block, Operation, Region, SSAValue

from tracejit.frontend.staging import array_holders, loop_options, numpy_locals, primitives, views
from tracejit.frontend.staging.dims import SliceLength
from tracejit.frontend.staging.source_location import at_user_line, user_frame
from tracejit.frontend.staging.tensor import Tensor, next_serial, python_value_message, weak_type
from tracejit.frontend.staging.tensor_array import prepare_loop_vars
from tracejit.frontend.staging.tracing import TraceContext, current_trace, emit
from tracejit.ir.control_flow import ConditionOp, IfOp, WhileOp, YieldOp
from tracejit.ir.dtypes import tensor_type
from tracejit.runtime.structure import TreeDef, flatten, unflatten

_NUMBERS = (bool, int, float, complex, np.generic, np.ndarray)


def _is_number(leaf: object) -> bool:
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
    pred: object,
    true_fn: Callable[[], object],
    false_fn: Callable[[], object],
    *,
    names: Sequence[str] | None = None,
) -> Any:
    """`true_fn()` if `pred` else `false_fn()`; staged as `tj.if` when `pred` is a tensor.

    AutoGraph turns an `if` on a tensor into this; call it directly in functions traced
    with `autograph=False`. A Python `pred` just calls one branch.

    Parameters
    ----------
    pred : bool or 0-d bool tensor
        The condition.
    true_fn, false_fn : callable
        Functions of no arguments; both are traced, and must return the same structure
        (arrays of the same dtype and shape, or the same Python value).
    names : sequence of str, optional
        The names of the outputs, for error messages.

    Raises
    ------
    TypeError
        The branches return different structures, dtypes or shapes.

    Examples
    --------
    >>> @tj.function
    ... def relu(x):
    ...     return tj.cond(x > 0, lambda: x, lambda: np.zeros_like(x))
    >>> relu(np.float64(-2.0)), relu(np.float64(3.0))
    (np.float64(0.0), np.float64(3.0))
    """
    if not isinstance(pred, Tensor):
        return true_fn() if pred else false_fn()
    predicate = _predicate(pred, "condition")
    mark = next_serial()  # arrays made before the branches have smaller serials
    then_block, else_block = Block(), Block()
    then = _trace_branch(then_block, true_fn)
    other = _trace_branch(else_block, false_fn)
    if then.treedef != other.treedef:
        raise TypeError(
            at_user_line(
                "the branches of a staged if must return the same structure, got "
                f"{then.out!r} and {other.out!r}"
            )
        )
    # the same array object out of both branches stays that object (its value, if a
    # branch wrote it, is carried with the written arrays below)
    kept = [
        a is b and isinstance(a, Tensor) for a, b in zip(then.leaves, other.leaves, strict=True)
    ]
    kinds = [
        None if same else _merge(a, b, _label(names, then.treedef, i))
        for i, (a, b, same) in enumerate(zip(then.snapshot, other.snapshot, kept, strict=True))
    ]
    roots = sorted(then.written.keys() | other.written.keys(), key=lambda r: r._serial)
    aliases = _branch_aliases(then, other, kinds, mark)
    # each aliased output's "another array" flag, yielded after the outputs
    flag_kinds = [((), np.dtype(np.bool_))] * len(aliases)
    then_flags = [separate for _, separate, _ in aliases.values()]
    other_flags = [separate for _, _, separate in aliases.values()]
    then_values = [then.value_of(r) for r in roots]
    _finish_region(then_block, then.snapshot + then_flags, kinds + flag_kinds, then_values)
    other_values = [other.value_of(r) for r in roots]
    _finish_region(else_block, other.snapshot + other_flags, kinds + flag_kinds, other_values)
    types: list = [tensor_type(*kind) for kind in kinds + flag_kinds if kind is not None]
    types += [r._value.type for r in roots]
    op = emit(IfOp(predicate.value, types, Region(then_block), Region(else_block)))
    results = iter(op.res)
    leaves = [
        with_run_time_lengths(
            Tensor(next(results), dims=_common_dims(a, b), weak=bool(weak_type(a) and weak_type(b)))
        )
        if kind is not None
        else original
        for a, b, kind, original in zip(
            then.snapshot, other.snapshot, kinds, then.leaves, strict=True
        )
    ]
    for i, (leaf, a, b) in enumerate(zip(leaves, then.leaves, other.leaves, strict=True)):
        if leaf is not a and _both_arrays(a, b):
            leaf._is_array = True  # 0-d: an array out of both branches is one after the if
        elif leaf is not a and _kinds_differ(a, b):
            leaf._is_array = True  # `x += v` is a write then, and refused
            views.refuse_writes(leaf, _branches_kind_message(_label(names, then.treedef, i)))
    flags = [Tensor(next(results)) for _ in aliases]
    for root in roots:
        views.set_root_value(root, next(results))
    for (i, (entry, _, _)), separate in zip(aliases.items(), flags, strict=True):
        if tuple(leaves[i].dims) != tuple(entry.dims):
            # the other branch's array may differ in size: no alias to choose at run time
            why = _untracked_alias_message(_label(names, then.treedef, i))
            views.refuse_writes(entry, why)
            views.refuse_writes(views.root_of(entry), why)  # a write to its base shows too
            leaves[i] = views.refuse_writes(leaves[i], why)
            continue
        if _is_scalar(then.leaves[i]) or _is_scalar(other.leaves[i]):
            # the array where a branch keeps it, a NumPy scalar where one rebinds it
            why = _kind_message(_label(names, then.treedef, i), "if")
            leaves[i] = views.scalar_unless(entry, leaves[i], separate, why)
        else:
            leaves[i] = views.alias_unless(entry, leaves[i], separate)
    return unflatten(then.treedef, leaves)


def _is_scalar(value: object) -> bool:
    return isinstance(value, Tensor) and value.ndim == 0 and not views.updates_in_place(value)


def _both_arrays(a: object, b: object) -> bool:
    return all(isinstance(t, Tensor) and views.updates_in_place(t) for t in (a, b))


def _kinds_differ(a: object, b: object) -> bool:
    """A 0-d array out of one branch and a NumPy scalar (or Python number) out of the other."""
    return (_is_zero_d_array(a) and _is_number_kind(b)) or (
        _is_zero_d_array(b) and _is_number_kind(a)
    )


def _is_zero_d_array(value: object) -> bool:
    if isinstance(value, Tensor):
        return value.ndim == 0 and views.updates_in_place(value)
    return isinstance(value, np.ndarray) and value.ndim == 0


def _is_number_kind(value: object) -> bool:
    if isinstance(value, Tensor):
        return _is_scalar(value)
    return isinstance(value, bool | int | float | complex | np.generic)


def _branches_kind_message(name: str) -> str:
    return (
        f"'{name}' is a 0-d array after one branch of a staged if and a NumPy scalar after the "
        "other: whether a write through it (`x += v`) changes the array, and every other name "
        "of it, depends on the branch taken, which tracejit does not follow. Keep one kind: "
        "`x = np.asarray(...)` in both branches, or scalars in both (`x = x[()]`)"
    )


def _untracked_alias_message(name: str) -> str:
    return (
        f"after a staged if, '{name}' is the array it named before in one branch and an "
        "array of a size known only at run time in the other: in NumPy a write through "
        "either name is seen through both only where the branch kept the array, which "
        "tracejit cannot follow when their sizes may differ. Make the names independent "
        f"(`{name} = {name}.copy()` before the if), or give the inputs static shapes"
    )


def _branch_aliases(then: _Branch, other: _Branch, kinds: list, mark: int) -> dict:
    """Outputs that name, after one branch or both, an array from before the if -- the
    array itself (`x = a; if c: x = x * 2`: the false branch keeps it) or a view of it a
    staged loop in the branch made (`views.alias_unless`: the loop may have run zero
    times). NumPy's name then still is that array, and writes through either name after
    the if are seen through both. Output position -> (the array, whether each branch's
    value is another array: a Python bool, or the loop's 0-d bool tensor)."""
    found = {}
    for i, kind in enumerate(kinds):
        if kind is None:
            continue
        entry_a, separate_a = _alias_of(then.leaves[i], mark)
        entry_b, separate_b = _alias_of(other.leaves[i], mark)
        entry = entry_a if entry_a is not None else entry_b
        other_array = entry_b is not None and entry_b is not entry
        if entry is None or other_array or kind != (entry._shape, entry.dtype):
            continue
        if separate_a is not True or separate_b is not True:
            found[i] = (entry, separate_a, separate_b)
    return found


def _alias_of(leaf: object, mark: int) -> tuple[Tensor | None, object]:
    """(array from before the if that `leaf` may be, whether it is another array)."""

    def before_if(t: object) -> bool:
        return views.writable_array(t) and cast(Tensor, t)._serial < mark

    if isinstance(leaf, Tensor) and before_if(leaf):
        return leaf, False
    view = leaf._view if isinstance(leaf, Tensor) else None
    if view is not None and view.separate is not None and before_if(view.parent):
        return view.parent, view.separate
    return None, True


def _common_dims(a: object, b: object) -> tuple | None:
    """The dims of an if result: a dim unknown at trace time keeps its source where both
    branches agree on it (`x` and `x * 2`), else only the kernel knows it."""
    from tracejit.frontend.staging.dims import UNKNOWN

    if not (isinstance(a, Tensor) and isinstance(b, Tensor)) or None not in a.shape:
        return None
    # a run-time length made inside a branch is computed there: outside, only the kernel
    # knows it (with_run_time_lengths then measures the result itself)
    return tuple(
        d if d == e and not isinstance(d, SliceLength) else UNKNOWN
        for d, e in zip(a.dims, b.dims, strict=True)
    )


def with_run_time_lengths(tensor: Tensor) -> Tensor:
    """`tensor` with each dim only the kernel knows (and no count of non-zeros) given its own
    run-time length, measured from the tensor itself (`tj.dim`): two such dims of one value
    are then the same size where they meet (`v + v * 2`), and others are checked."""
    from tracejit.frontend.staging.dims import Counted, Unknown, untracked
    from tracejit.ir.shape_ops import DimOp

    if not any(isinstance(d, Unknown) and not isinstance(d, Counted) for d in tensor.dims):
        return tensor
    dims = tuple(
        SliceLength(emit(DimOp(tensor.value, axis)).result, None)
        if untracked(d)
        else d
        for axis, d in enumerate(tensor.dims)
    )
    measured = Tensor(tensor.value, dims=dims, weak=tensor.weak)
    measured._is_array = tensor._is_array
    return measured


@dataclass
class _Branch:
    """One traced branch: its outputs (as returned, and as values taken inside the branch,
    since a view read later would see the other branch's writes) and the arrays made
    before the if that it wrote, with their values at its end."""

    out: object
    leaves: list[Any]
    treedef: TreeDef
    snapshot: list[Any]
    written: dict[Tensor, SSAValue]

    def value_of(self, root: Tensor) -> SSAValue:
        return self.written.get(root, root._value)


def _trace_branch(block: Block, fn: Callable[[], object]) -> _Branch:
    """Trace `fn` into `block`; the arrays it writes get their values from before it back."""
    mark = next_serial()
    with current_trace().building_in(block), views.write_log() as log:
        try:
            out = fn()
            leaves, treedef = flatten(out)
            snapshot = [_snapshot(leaf) for leaf in leaves]
            written = {r: r._value for r in log.before if r._serial < mark}
        finally:
            for root, before in log.before.items():
                views.restore(root, before)
    return _Branch(out, leaves, treedef, snapshot, written)


def _snapshot(leaf: object) -> object:
    if not isinstance(leaf, Tensor):
        return leaf
    return Tensor(leaf.value, leaf.dims, weak=leaf.weak)


def _merge(a: object, b: object, name: str) -> tuple[tuple, np.dtype] | None:
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
    for value, spec in ((a, spec_a), (b, spec_b)):
        _check_number_fits(value, spec[1], name)
    if spec_a != spec_b:
        raise TypeError(
            at_user_line(
                f"'{name}' has dtype {spec_a[1]} and shape {spec_a[0]} in the true branch but "
                f"dtype {spec_b[1]} and shape {spec_b[0]} in the false branch of a staged if"
            )
        )
    return spec_a


def _check_number_fits(value: object, dtype: np.dtype, name: str) -> None:
    """A Python number in one branch takes the other branch's dtype only if that changes
    neither its value nor its kind (`scale = 2.75` against an int32 array was staged as 2;
    `ok = 5` against a bool as True): else the two branches have no one type."""
    if not isinstance(value, bool | int | float) or isinstance(value, np.generic):
        return
    # the kinds that hold a Python bool, int or float as that kind of number
    kinds = "b" if isinstance(value, bool) else "biufc" if isinstance(value, int) else "fc"
    with np.errstate(all="ignore"), contextlib.suppress(OverflowError):
        if dtype.kind in kinds and np.asarray(value).astype(dtype) == value:
            return
    raise TypeError(
        at_user_line(
            f"'{name}' is the Python {type(value).__name__} {value!r} in one branch of a "
            f"staged if and a {dtype} array in the other, which cannot hold it as it is: "
            f"make both branches one type (np.{dtype}(...), or float(...) in both)"
        )
    )


def _spec(value: object, other: object) -> tuple[tuple, np.dtype]:
    kind, other_kind = weak_type(value), weak_type(other)
    if isinstance(value, Tensor) and kind and other_kind:  # both weak: promoted, still weak
        return value.shape, np.result_type(kind(0), other_kind(0))
    if isinstance(value, Tensor) and kind and isinstance(other, Tensor):
        return value.shape, np.result_type(kind(0), other.dtype)  # NEP 50: may take other's
    if isinstance(value, Tensor):
        return value.shape, value.dtype
    if other_kind and kind and not isinstance(value, Tensor):  # Python numbers: promoted,
        return (), np.result_type(kind(0), other_kind(0))  # weak (`r = 0` or `r = 0.5`)
    if isinstance(other, Tensor) and isinstance(value, bool | int | float):
        return (), other.dtype  # a weak Python scalar takes the tensor's dtype
    if isinstance(other, np.generic | np.ndarray) and weak_type(value):
        return (), other.dtype  # ... and a NumPy value's (`r = 0` or `r = 0 + np.int32(0)`)
    array = np.asarray(value)
    return array.shape, array.dtype


def _finish_region(
    block: Block, leaves: list[Any], kinds: list, arrays: Sequence[SSAValue] = ()
) -> None:
    """Convert the region's outputs to tensors of the agreed types and yield them, then
    the values of the written arrays."""
    with current_trace().building_in(block):
        values = [
            _as_tensor_of(leaf, kind) for leaf, kind in zip(leaves, kinds, strict=True) if kind
        ]
        emit(YieldOp(*(v.value for v in values), *arrays))


def _as_tensor_of(leaf: object, kind: tuple[tuple, np.dtype]) -> Tensor:
    if isinstance(leaf, Tensor):
        return primitives.cast(leaf, kind[1])  # a weak tensor may take the other branch's
    return primitives.constant(np.asarray(leaf, dtype=kind[1]))


# --- tj.while_loop ------------------------------------------------------------------------
def while_loop(
    cond_fn: Callable[..., object],
    body_fn: Callable[..., Any],
    loop_vars: Sequence[object],
    *,
    maximum_iterations: int | None = None,
    names: Sequence[str] | None = None,
) -> tuple[Any, ...]:
    """Repeat `loop_vars = body_fn(*loop_vars)` while `cond_fn(*loop_vars)`; staged as
    `tj.while` when the condition or a loop variable is a tensor.

    AutoGraph turns a `while` on tensors into this. A staged loop's body is traced once;
    each loop variable must keep its dtype and shape from one iteration to the next.

    Parameters
    ----------
    cond_fn : callable
        `cond_fn(*loop_vars)`, a bool (0-d tensor).
    body_fn : callable
        `body_fn(*loop_vars)`, the next values, as a tuple or list.
    loop_vars : sequence
        The initial values.
    maximum_iterations : int or 0-d integer tensor, optional
        Stop after this many iterations even if `cond_fn` still holds.
    names : sequence of str, optional
        The names of the loop variables, for error messages.

    Returns
    -------
    tuple
        The loop variables' final values.

    Examples
    --------
    >>> def collatz(n, steps):
    ...     n = np.where(n % 2 == 0, n // 2, 3 * n + 1)
    ...     return n, steps + 1
    >>> @tj.function
    ... def collatz_steps(n):
    ...     return tj.while_loop(lambda n, steps: n != 1, collatz, (n, np.int64(0)))
    >>> collatz_steps(np.int64(6))
    (np.int64(1), np.int64(8))
    """
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
        return _bounded_while(cond_fn, body_fn, loop_vars, names, maximum_iterations, {})
    return _staged_while(cond_fn, body_fn, loop_vars, names)


def _bounded_while(cond_fn, body_fn, loop_vars: tuple, names, maximum: object, relaxed: dict):
    """A staged loop that also stops after `maximum` iterations: an iteration counter is
    carried first (`relaxed`: the other variables' shape invariants, by leaf)."""
    limit = maximum if isinstance(maximum, Tensor) else primitives.constant(np.asarray(maximum))
    limit = limit.astype(np.int64) if limit.dtype != np.int64 else limit

    def counted_cond(count: Tensor, *values: object) -> object:
        go = cond_fn(*values)
        within = count < limit
        return within if go is True else np.logical_and(within, go)

    def counted_body(count: Tensor, *values: object) -> tuple:
        return (count + 1, *body_fn(*values))

    first = Tensor(primitives.constant(np.asarray(0, np.int64)).value)
    labels = None if names is None else ["the iteration count", *names]
    shifted = {i + 1: shape for i, shape in relaxed.items()}
    results = _staged_while(
        counted_cond, counted_body, (first, *loop_vars), labels, shifted, options_applied=True
    )
    return results[1:]


def _any_tensor(values: object) -> bool:
    return any(isinstance(leaf, Tensor) for leaf in flatten(values)[0])


class LoopStaged(Exception):  # noqa: N818  (not an error: a trial's answer)
    """Raised where a loop is about to be staged inside `stopping_at_a_staged_loop`."""


_trials = threading.local()
_relaxing = threading.local()


@contextmanager
def relaxing_changed_shapes() -> Iterator[None]:
    """Stage the loops traced inside with any variable whose shape the body changes (same
    dtype and rank) carried with the changed dims unknown, as if `set_loop_options` had
    given that shape invariant: an index loop whose arrays shrink each trip (`z = z[mask]`)
    stays one loop instead of being unrolled (operators._staged_with_relaxed_shapes)."""
    saved = getattr(_relaxing, "on", False)
    _relaxing.on = True
    try:
        yield
    finally:
        _relaxing.on = saved


def _changed_shapes(inits: list[Tensor], new_leaves: list, by_name: list[int], relaxed: dict):
    """Leaf -> shape invariant for each variable the body gave a new shape of its dtype and
    rank (the dims that changed open), when `relaxing_changed_shapes` is on."""
    if not getattr(_relaxing, "on", False):
        return {}
    changed = {}
    for i, init in zip(by_name, inits, strict=True):
        new = new_leaves[i]
        if i in relaxed or not isinstance(new, Tensor) or new.dtype != init.dtype:
            continue
        if new.ndim == init.ndim and new.shape != init.shape:
            pairs = zip(init.shape, new.shape, strict=True)
            changed[i] = tuple(a if a == b else None for a, b in pairs)
    return changed


@contextmanager
def stopping_at_a_staged_loop() -> Iterator[None]:
    """Within the block, staging a loop raises LoopStaged at once: a trial that only asks
    whether some loop would be staged (autograph's `_first_trip_stages_a_loop`) stops there
    instead of tracing the rest, and the loop's body (nested trials, each tracing its body
    in full, cost 2^depth traces of the innermost body: 8 nested short loops took 6 s)."""
    _trials.depth = getattr(_trials, "depth", 0) + 1
    try:
        yield
    finally:
        _trials.depth -= 1


def _staged_while(
    cond_fn, body_fn, loop_vars: tuple, names, relaxed=None, options_applied=False
) -> tuple[object, ...]:
    """Stage `tj.while`. A loop variable initialised from a Python int or float is weakly
    typed (NEP 50): it takes the dtype NumPy's promotion gives the literal against the values
    it meets in the body, as TF's and JAX's loops do (`s = 0; for i in tj.range(n_int32):
    s = s * 10 + i` is int32). The body is traced with the literal weak; if a weak variable
    comes out of it with another dtype the literal adopts, the loop is traced again with that
    variable of that dtype (the attempt is thrown away).

    Arrays written in place (frontend/staging/views.py) are carried too: the body sees the same
    array objects, whose values are the loop's block arguments while it is traced. Which
    arrays the body writes is known once it has been traced: a loop variable written but
    not rebound, or an array made before the loop and written through any name or view,
    makes the loop be traced again with it carried that way."""
    if getattr(_trials, "depth", 0):
        raise LoopStaged
    loop_vars = prepare_loop_vars(loop_vars, body_fn)  # TensorArrays: carried form
    leaves, treedef = flatten(loop_vars)
    labels = [_label(names, treedef, i) for i in range(len(leaves))]
    adopted: dict[int, tuple[np.dtype, bool]] = {}  # leaf -> the (dtype, weak) its init takes
    relaxed = dict(relaxed or {})  # leaf -> its shape invariant (set_loop_options)
    maximum = None  # set_loop_options(maximum_iterations=...)
    arrays = _WrittenArrays(leaves, labels)
    arrays.recall()
    mixed: set[int] = set()  # 0-d variables an array before the loop, a scalar after it
    while True:
        mark = _TraceMark(current_trace())
        by_name = [i for i in range(len(leaves)) if i not in arrays.kept]
        inits = [
            _relax(_loop_init(leaves[i], labels[i], adopted.get(i)), relaxed.get(i), labels[i])
            for i in by_name
        ]
        aliased = _zero_trip_aliases(leaves, inits, by_name)
        refused = [_kind_message(labels[i]) if i in mixed else "" for i in by_name]
        flag_types = [tensor_type((), np.dtype(np.bool_))] if aliased else []
        first = len(inits) + len(flag_types)  # the arrays' block arguments from here on
        types = [t.value.type for t in inits] + flag_types + arrays.types()
        before, after = Block(arg_types=types), Block(arg_types=types)
        with arrays.tracing(before, first):
            carried = _carried(before.args[: len(inits)], inits, refused)
            loop_leaves = arrays.leaves_in(carried, by_name)
            pred = cond_fn(*unflatten(treedef, loop_leaves))
            if not isinstance(pred, Tensor):
                pred = primitives.constant(bool(pred))
            emit(ConditionOp(_predicate(pred, "loop condition").value))
            arrays.check_condition()
        with arrays.tracing(after, first):
            given = arrays.leaves_in(_carried(after.args[: len(inits)], inits, refused), by_name)
            new, failure = None, None
            with loop_options.recording() as asked:
                try:
                    new = body_fn(*unflatten(treedef, given))
                except Exception as error:  # noqa: BLE001  (raised below, unless the body
                    failure = error  # asked for options that change how it is traced)
            options = asked[0]
            changes: dict[int, tuple[np.dtype, bool]] = {}
            if options is not None and options.changes_trace() and not options_applied:
                # traced again with the options (the dims it may change unknown), as
                # TensorFlow reads them before it traces the body
                relaxed.update(_invariant_leaves(options.shape_invariants, given, labels))
                maximum, options_applied, retrace = options.maximum_iterations, True, True
            elif failure is not None:
                raise failure
            else:
                new_leaves, new_def = flatten(tuple(new))  # type: ignore[arg-type]  # no failure
                if new_def != treedef:
                    raise TypeError(  # TensorFlow's type for a loop variable's structure change
                        at_user_line(
                            "a staged loop body must keep the loop variables' structure, got "
                            f"{new!r}"
                        )
                    )
                changes = {
                    i: change
                    for i, init in zip(by_name, inits, strict=True)
                    if (change := _adopts(new_leaves[i], init)) is not None
                }
                retrace = arrays.learn(given, new_leaves)
                unchanged = _unchanged(leaves, given, new_leaves, by_name, relaxed)
                arrays.kept.update(unchanged)
                kinds = _kind_changes(inits, new_leaves, by_name) - mixed - unchanged
                mixed.update(kinds)
                grown = _changed_shapes(inits, new_leaves, by_name, relaxed)
                relaxed.update(grown)
                retrace = retrace or bool(unchanged) or bool(kinds) or bool(grown)
            if not changes and not retrace:
                arrays.check_aliases_by_name(given, new_leaves, by_name, after)
                values = [
                    _next_value(new_leaves[i], init, labels[i], i in relaxed)
                    for i, init in zip(by_name, inits, strict=True)
                ]
                _check_sizes_kept(values, inits, names, treedef)
                ran = [primitives.constant(True).value] if aliased else []
                emit(YieldOp(*(v.value for v in values), *ran, *arrays.values()))
        if not changes and not retrace:
            arrays.remember()
            break
        made = [
            init
            for init, i in zip(inits, by_name, strict=True)
            if not (isinstance(leaves[i], Tensor) and leaves[i].value is init.value)
        ]
        mark.rewind([before, after], made)
        adopted.update(changes)
        if maximum is not None:
            return _bounded_while(cond_fn, body_fn, loop_vars, names, maximum, relaxed)
    not_yet = [primitives.constant(False).value] if aliased else []
    operands = [t.value for t in inits] + not_yet + arrays.initial_values()
    op = emit(WhileOp(operands, Region(before), Region(after)))
    results = arrays.leaves_in(_carried(op.res[: len(inits)], inits, refused), by_name)
    arrays.finish(op.res[first:])
    for i in by_name:
        numpy_locals.refuse_later_writes(leaves[i], results[i], labels[i], "loop")
    if aliased:
        trips = Tensor(op.res[len(inits)])  # true once the body ran
        for i in aliased:
            own = cast(Tensor, results[i])
            if i in mixed:  # the array after zero trips, a NumPy scalar after more
                results[i] = views.scalar_unless(leaves[i], own, trips, _kind_message(labels[i]))
            else:
                results[i] = views.alias_unless(leaves[i], own, trips)
    return tuple(unflatten(treedef, results))


def _unchanged(leaves: list[Any], given: list[Any], new_leaves: list[Any], by_name, relaxed):
    """The loop variables carried by name that the body gave back as it got them (named as
    assigned in the body by AutoGraph, but not rebound in this trace: an assignment under a
    Python `if`, `x = x`). The loop then keeps each one as its array from before the loop,
    the same object: carried by value, it would be a copy, and after the loop it would miss
    the writes made through another name of that array (`c = a; while c > 0: c -= 1`
    leaves `a` at 0 in NumPy)."""
    return {
        i
        for i in by_name
        if isinstance(leaves[i], Tensor) and new_leaves[i] is given[i] and i not in relaxed
    }


def _zero_trip_aliases(leaves: list[Any], inits: list[Tensor], by_name: list[int]) -> list[int]:
    """The loop variables carried by name that name an array before the loop: after a
    loop that ran zero times they still do, in NumPy, and a write through another name of
    that array (or through them) is seen through both (`views.alias_unless`). Only those
    the loop carries in the array's own shape and dtype: a variable the loop makes another
    dtype or shape is a different array after any trip (its dtype then depends on the trip
    count, which tracejit does not follow). Also a variable that an earlier loop left as
    that array or a NumPy scalar (`views.scalar_unless`): the array, if both loops ran zero
    times."""
    found = []
    for i, init in zip(by_name, inits, strict=True):
        leaf = leaves[i]
        if not (views.writable_array(leaf) or views.may_be_an_array(leaf)):
            continue
        if init.dtype == leaf.dtype and tuple(init.dims) == tuple(leaf.dims):
            found.append(i)
    return found


def _ancestor_in(op: Operation, block: Block) -> Operation | None:
    """`op` or the op holding it (through nested regions) that is directly in `block`; None
    when `op` is not inside `block`."""
    while op.parent is not block:
        parent = op.parent_op()
        if parent is None:
            return None
        op = parent
    return op


REBOUND_AFTER_WRITE = "is changed in place and then assigned a new array"
"""Why a loop variable written in place and rebound cannot be carried (`_WrittenArrays.learn`):
a static index loop retries two or three trips per staged trip (operators._staged_in_groups)."""
SHAPE_CHANGE = "a loop-carried value must keep its dtype and shape"
"""What the error for a loop variable changing dtype or shape says (an index loop whose
variables change shape is staged with them relaxed: operators._staged_with_relaxed_shapes)."""


def _loop_key(labels: list[str]) -> tuple:
    """A loop statement, as the trace meets it again: the user's line and its variables."""
    frame = user_frame()
    where = (frame.f_code, frame.f_lineno) if frame is not None else None
    return (where, tuple(labels))


def _holds(tensors: list[Tensor], tensor: Tensor) -> bool:
    """`tensor in tensors` by identity (`==` on tensors is staged, as in NumPy)."""
    return any(t is tensor for t in tensors)


class _WrittenArrays:
    """The arrays a staged loop writes in place (see `_staged_while`): loop variables kept
    as the same objects (`kept`), and the roots of the arrays written (`roots`), whose
    values are loop values after the ones carried by name."""

    def __init__(self, leaves: list[Any], labels: list[str]):
        self.leaves, self.labels = leaves, labels
        self.kept: set[int] = set()
        self.roots: list[Tensor] = []
        self.mark = next_serial()  # arrays made from here on belong to the loop
        self.log: Any = None
        self.recalled: set[int] = set()  # kept from the loop's memory, not learned here
        self.key = _loop_key(labels)

    # What a loop writes is learned by tracing its body and then tracing it again carrying
    # those arrays. A loop nested in another is staged again on each trace of the outer
    # body, so learning anew each time cost 2^depth traces of the innermost body (an 8-deep
    # nest writing one array: 96 traces, 2 s). The trace remembers, per loop statement, what
    # it carried, and the next staging of that loop starts from it.
    def recall(self) -> None:
        """Carry from the start what this loop carried when last staged in this trace: the
        loop variables it kept (by label, when still the same kind of value) and the roots
        made before it that are still visible here. Carrying one it does not write is
        harmless (it is yielded unchanged); one it rebinds is forgotten in `learn`."""
        memory = current_trace().loop_memory.get(self.key)
        if memory is None:
            return
        labels, roots = memory
        for i, label in enumerate(self.labels):
            if label in labels and isinstance(self.leaves[i], Tensor):
                self.kept.add(i)
                self.recalled.add(i)
                self._carry(views.root_of(self.leaves[i]))
        for root in roots:
            if root._view is None and root._serial < self.mark and views.visible(root._value):
                self._carry(root)

    def remember(self) -> None:
        kept = {self.labels[i] for i in self.kept}
        current_trace().loop_memory[self.key] = (kept, list(self.roots))

    def types(self) -> list:
        return [root._value.type for root in self.roots]

    def initial_values(self) -> list[SSAValue]:
        return [root._value for root in self.roots]

    def values(self) -> list[SSAValue]:
        return [root._value for root in self.roots]

    def leaves_in(self, carried: list[Tensor], by_name: list[int]) -> list[object]:
        """All loop variables: the kept ones as themselves, the others as `carried`."""
        values = list(self.leaves)
        for i, value in zip(by_name, carried, strict=True):
            values[i] = value
        return values

    @contextmanager
    def tracing(self, block: Block, first: int):
        """Trace into `block` with the roots holding its arguments from `first` on; their
        values from before the loop come back afterwards."""
        swapped = list(self.roots)  # `learn` may add roots while the block is traced
        outside = [root._value for root in swapped]
        with current_trace().building_in(block), views.write_log() as log:
            self.log = log
            try:
                for root, arg in zip(swapped, block.args[first:], strict=True):
                    views.restore(root, arg)
                yield
            finally:
                for root, value in zip(swapped, outside, strict=True):
                    views.restore(root, value)
                for root, value in log.before.items():
                    if not _holds(swapped, root):
                        views.restore(root, value)

    def _outer_writes(self) -> list[Tensor]:
        return [r for r in self.log.before if r._serial < self.mark and not _holds(self.roots, r)]

    def check_condition(self) -> None:
        if self._outer_writes() or any(r in self.log.before for r in self.roots):
            raise NotImplementedError(
                at_user_line("the condition of a staged loop writes into an array")
            )

    def learn(self, given: list[Any], new_leaves: list[Any]) -> bool:
        """After tracing the body: True if it must be traced again, carrying more arrays."""
        if self._forget_rebound(given, new_leaves):
            return True  # traced again without the memory first
        retrace = False
        for i, (was, now) in enumerate(zip(given, new_leaves, strict=True)):
            if not isinstance(was, Tensor):
                continue
            kept = i in self.kept
            written = _holds(self.roots, views.root_of(was)) if kept else was._version > 0
            if i in self.kept or written:
                if now is not was and written:
                    holder = self._rebind_seen_by(i, given, now)
                    if holder is None:
                        continue  # carried by name: nothing else sees its array before
                    raise NotImplementedError(
                        at_user_line(
                            f"'{self.labels[i]}' {REBOUND_AFTER_WRITE} inside a staged "
                            f"loop, and {holder} also refers to the array it named before "
                            "the loop (or a view of it): NumPy would change that array in "
                            "the first iteration only. Copy it first "
                            f"(`{self.labels[i]} = {self.labels[i]}.copy()` before the loop) "
                            "or do not reassign it"
                        )
                    )
                # an ndarray or number leaf (a constant while tracing) is written in its
                # carried copy: no other name can see that copy, so by name is right --
                # unless another local name holds the NumPy array or a view of it
                if written and isinstance(self.leaves[i], np.ndarray):
                    numpy_locals.refuse_shared(self.leaves[i], self.labels[i], "loop")
                if i not in self.kept and isinstance(self.leaves[i], Tensor):
                    self.kept.add(i)
                    self._carry(views.root_of(self.leaves[i]))
                    retrace = True
        for root in self._outer_writes():
            self._carry(root)
            retrace = True
        return retrace

    def _rebind_seen_by(self, i: int, given: list[Any], now: object) -> str | None:
        """What sees the array loop variable `i` named before the loop, which the body
        writes in place and then rebinds (`np.multiply(z, z, out=z); z = z[keep]`); None
        when nothing does, and the variable is carried by name. NumPy's first trip writes
        that array, later trips arrays the body made, so a copy carried by value is exact
        when nothing else can see the first one (`array_holders`). A swap with another
        loop variable (`old, new = new, old`) keeps each array on a name, and is staged
        two trips at a time instead (operators._staged_in_groups)."""
        for j, value in enumerate(given):
            if j != i and now is value:
                return f"'{self.labels[j]}' (swapped with it)"
        if i in self.kept:
            return "the loop (which carries it as one array)"
        others = {self.labels[j]: leaf for j, leaf in enumerate(self.leaves) if j != i}
        frame = numpy_locals.watched_frame()
        return array_holders.other_holder(self.leaves[i], self.labels[i], frame, others)

    def _forget_rebound(self, given: list[Any], new_leaves: list[Any]) -> bool:
        """A recalled loop variable that this staging's body rebinds is learned anew, as
        if never recalled (True: trace again): the body may differ between stagings of a
        loop (`if k > 0: a = a + 1` in a Python loop around it)."""
        rebound = [i for i in self.recalled if new_leaves[i] is not given[i]]
        for i in rebound:
            self.kept.discard(i)
            self.recalled.discard(i)
            root = views.root_of(self.leaves[i])
            self.roots = [r for r in self.roots if r is not root]
        return bool(rebound)

    def check_aliases_by_name(
        self, given: list[Any], new_leaves: list[Any], by_name: list[int], body: Block
    ) -> None:
        """A loop variable carried by name is a copy of its value at the start of each trip.
        When that value is (a view of) an array the loop writes in place -- it was one
        before the loop (`c = a; while ...: a += 1; c = c - 1`) or the body rebinds it to
        one -- NumPy's name sees the write in that trip and the copy does not: refused
        unless every read of the variable in the body comes before the array's first write."""
        position = {op: n for n, op in enumerate(body.ops)}
        for i in by_name:
            for value in (self.leaves[i], new_leaves[i]):
                if not isinstance(value, Tensor) or not isinstance(given[i], Tensor):
                    continue
                root = views.root_of(value)
                if root not in self.log.first_write_after or not _holds(self.roots, root):
                    continue
                written = self.log.first_write_after[root]
                # the write's position in the body (-1: before its first op, or not
                # found, which counts every read as after the write: refused, not wrong)
                holder = None if written is None else _ancestor_in(written, body)
                last_before = -1 if holder is None else position[holder]
                reads = [_ancestor_in(use.operation, body) for use in given[i]._value.uses]
                if any(read is None or position[read] > last_before for read in reads):
                    raise NotImplementedError(self._alias_message(i, root))

    def _alias_message(self, i: int, root: Tensor) -> str:
        name = self.labels[i]
        others = [
            self.labels[k]
            for k, leaf in enumerate(self.leaves)
            if k != i and isinstance(leaf, Tensor) and views.root_of(leaf) is root
        ]
        array = f"'{others[0]}'" if others else "an array"
        copy = f"{name} = {others[0] if others else name}.copy()"
        return at_user_line(
            f"'{name}' refers to {array} (or a view of it) that a staged loop changes in "
            f"place, and is read after the change; NumPy's '{name}' would see the change "
            "while it refers to that array, a staged loop carries it by value. Copy it "
            f"(`{copy}`) where it is assigned, or read it before the change"
        )

    def _carry(self, root: Tensor) -> None:
        if not _holds(self.roots, root):
            self.roots.append(root)

    def finish(self, results: Sequence[SSAValue]) -> None:
        for root, value in zip(self.roots, results, strict=True):
            views.set_root_value(root, value)


def _carried(values: Sequence[SSAValue], inits: list[Tensor], refused: list[str]) -> list[Tensor]:
    """Loop values as tensors with their initial values' dims (`_check_sizes_kept`), weak
    types and kinds of 0-d value (an array, which `x[()] = v` and `x += v` write in place,
    or a NumPy scalar: frontend/staging/views.py); `refused`: why a write is refused."""
    carried = []
    for v, init, why in zip(values, inits, refused, strict=True):
        carried.append(Tensor(v, dims=init.dims, weak=init.weak))
        carried[-1]._is_array = views.updates_in_place(init) or bool(why)  # a view too
        if why:
            views.refuse_writes(carried[-1], why)
        carried[-1] = with_run_time_lengths(carried[-1])  # dims that may change: measured
    return carried


def _kind_changes(inits: list[Tensor], new_leaves: list[Any], by_name: list[int]) -> set[int]:
    """The 0-d loop variables that are an array before the loop and a NumPy scalar after
    its body, or the other way round (`x = np.array(2.0)`, then `x = x + 1` in the body).
    In NumPy which one the name holds depends on the trip: `y = x; y -= 1` writes the array
    (and every name of it) after zero trips and rebinds `y` after one or more."""
    return {
        i
        for i, init in zip(by_name, inits, strict=True)
        if init.ndim == 0
        and isinstance(new_leaves[i], Tensor)
        and views.updates_in_place(init) != views.updates_in_place(new_leaves[i])
    }


def _kind_message(name: str, construct: str = "loop") -> str:
    after, which = (
        ("its body", "number of trips") if construct == "loop" else ("a branch", "branch taken")
    )
    return (
        f"'{name}' is a 0-d array before a staged {construct} and a NumPy scalar after {after} "
        f"(or the other way round): whether a write through it changes the array depends on the "
        f"{which}, which tracejit does not follow. Keep one kind: `x = np.asarray(...)` where "
        f"it is assigned in the {construct}, or a scalar before it (`x = x[()]`)"
    )


def _check_sizes_kept(values: list[Tensor], inits: list[Tensor], names, treedef) -> None:
    """A dim unknown at trace time must keep its size across iterations, as the loop was
    traced assuming it does. (Dims only the kernel knows, like a dynamic TensorArray's,
    may change: their sizes are read at run time wherever they are used.) Two dims the call
    checks equal before the kernel runs (`a = b + a` of two inputs' unknown dims) are the
    same size."""
    equal = {frozenset(pair) for pair in current_trace().dim_constraints}
    for i, (value, init) in enumerate(zip(values, inits, strict=True)):
        changed = [
            axis
            for axis, (d, e) in enumerate(zip(init.dims, value.dims, strict=True))
            if not (_kept(d, e) or frozenset((d, e)) in equal)
        ]
        if all(_measurable(init.dims[axis], value.dims[axis]) for axis in changed):
            for axis in changed:  # sizes tracejit follows but cannot prove equal
                _check_size_kept(value, init, axis, _label(names, treedef, i))
            continue
        if changed:
            raise NotImplementedError(
                at_user_line(
                    f"loop variable '{_label(names, treedef, i)}' has shape {init.shape} before "
                    f"a staged loop and a shape of other sizes after its body (dims "
                    f"{list(init.dims)} -> {list(value.dims)}); a dim unknown at trace time "
                    "must keep its size across the iterations of a staged loop"
                )
            )


def _measurable(before: object, after: object) -> bool:
    """Whether two dims of a loop variable, before and after its body, are sizes the kernel
    can compare, which may be equal (neither static, nor one it cannot follow, nor made from
    the other: `c = z[:, :H] * c + z[:, H:]` with `H = c.shape[1]` is a slice's length
    against an input's dim)."""
    from tracejit.frontend.staging.dims import UNKNOWN, Counted, Product, Sliced, Sum

    if isinstance(before, int) or isinstance(after, int) or UNKNOWN in (before, after):
        return False
    if isinstance(before, Counted) or isinstance(after, Counted):
        return False  # a mask's count (`y = y[y > 1]`) changes with the data: refused now
    parts = {  # a size made from `before` itself (`x = x[1:]`) is another one: refused
        Sliced: lambda d: (d.base,), Product: lambda d: d.factors, Sum: lambda d: d.terms
    }.get(type(after))
    return parts is None or before not in parts(after)


def _check_size_kept(value: Tensor, init: Tensor, axis: int, name: str) -> None:
    """Stage the kernel's check, at the end of each trip, that `value` (the variable after
    the body) has `init`'s size along `axis`, as the loop was traced assuming."""
    from tracejit.frontend.staging.slice_bounds import assert_same_sizes
    from tracejit.ir.shape_ops import DimOp

    sizes: list[SSAValue] = [
        emit(DimOp(value.value, axis)).result, emit(DimOp(init.value, axis)).result
    ]
    assert_same_sizes(sizes, "NotImplementedError: " + at_user_line(
        f"loop variable '{name}' changed its size along axis {axis} (a dim unknown at trace "
        f"time) inside a staged loop; {SHAPE_CHANGE}: give the loop a shape invariant "
        f"(tj.autograph.experimental.set_loop_options) or make the size a Python int"
    ))  # fmt: skip


def _kept(before: object, after: object) -> bool:
    """Whether a loop variable's dim keeps its size across an iteration: a dim only the
    kernel knows may change (its size is measured wherever it is used)."""
    from tracejit.frontend.staging.dims import untracked

    return untracked(before) or before == after


def _loop_tensor(leaf: object, name: str) -> Tensor:
    from tracejit.frontend.staging.variable import Variable

    if isinstance(leaf, Tensor):
        return leaf
    if isinstance(leaf, Variable):  # `y = v`, then `y = y * 2` in the loop: its value, as TF
        return leaf.value()
    if _is_number(leaf):
        constant = primitives.constant(np.asarray(leaf))
        if weak_type(leaf):  # a Python int/float: weak, until the body gives it a dtype
            return Tensor(constant.value, weak=True)
        return constant
    raise TypeError(
        at_user_line(
            f"loop variable '{name}' must be a tensor or a number in a staged loop, got {leaf!r}"
        )
    )


def _invariant_leaves(invariants: list, given: list, labels: list[str]) -> dict[int, tuple]:
    """Leaf index -> shape of each (loop variable, shape) pair of set_loop_options, the
    variable found among the values the body was given (TensorFlow's rule: the invariants
    name the loop's variables as the body sees them)."""
    found = {}
    for value, shape in invariants:
        matches = [i for i, leaf in enumerate(given) if leaf is value]
        if not matches:
            raise ValueError(
                at_user_line(
                    "set_loop_options(shape_invariants=...) names a value that is not a "
                    f"variable of this loop (the loop's variables: {', '.join(labels)}); "
                    "call it first in the loop's body, with the loop's variables"
                )
            )
        found[matches[0]] = shape
    return found


def _relax(init: Tensor, shape: tuple | None, name: str) -> Tensor:
    """`init` with the dims its shape invariant leaves open (None) unknown at trace time."""
    if shape is None:
        return init
    if not _fits(init.shape, shape):
        raise ValueError(
            at_user_line(
                f"loop variable '{name}' has shape {init.shape} before the loop, which does "
                f"not fit its shape invariant {shape}"
            )
        )
    from tracejit.frontend.staging.dims import UNKNOWN

    dims = tuple(UNKNOWN if d is None else d for d in shape)
    return _relaxed_to(init, dims)


def _fits(shape: tuple, invariant: tuple) -> bool:
    return len(shape) == len(invariant) and all(
        want is None or have == want for have, want in zip(shape, invariant, strict=True)
    )


def _relaxed_to(value: Tensor, dims: tuple) -> Tensor:
    """`value` as a tensor of `dims` (the same sizes, some of them unknown at trace time)."""
    if tuple(value.dims) == tuple(dims):
        return value
    witnesses = {d: (value.value, d) for d in range(len(dims))}
    relaxed = primitives.broadcast_to(value, dims, witnesses)
    return Tensor(relaxed.value, dims=dims, weak=value.weak)


def _loop_init(leaf: object, name: str, adopted: tuple[np.dtype, bool] | None) -> Tensor:
    """The initial value of a loop variable: `leaf` as a tensor, of the dtype a weak `leaf`
    adopted in an earlier attempt to trace the loop, if any."""
    if adopted is None:
        return _loop_tensor(leaf, name)
    dtype, weak = adopted
    if isinstance(leaf, Tensor):
        init = primitives.cast(leaf, dtype)
    else:
        try:
            init = primitives.constant(np.asarray(leaf, dtype=dtype))
        except OverflowError as error:  # NEP 50: `s = 300` meeting int8 values raises
            raise OverflowError(at_user_line(f"loop variable '{name}': {error}")) from None
    return Tensor(init.value, init.dims, weak=weak)


def _adopts(leaf: object, init: Tensor) -> tuple[np.dtype, bool] | None:
    """The (dtype, weak) a weak initial value adopts from the body's new value `leaf`, or
    None if it keeps its own: NumPy's promotion of the literal against a tensor of dtype D
    gives D (NEP 50) for a strong value; a weak int meeting a float becomes a weak float."""
    kind = weak_type(init)
    if kind is None:
        return None
    if isinstance(leaf, Tensor | np.ndarray | np.generic) and not weak_type(leaf):
        dtype, shape = leaf.dtype, leaf.shape
        if shape == init.shape and np.result_type(kind(0), dtype) == dtype:
            return dtype, False
        return None  # a real change: _next_value raises
    if kind is int and weak_type(leaf) is float:
        return np.dtype(np.float64), True
    return None


def _next_value(leaf: object, init: Tensor, name: str, relaxed: bool = False) -> Tensor:
    if isinstance(leaf, bool | int | float) and not isinstance(leaf, np.generic):
        return primitives.constant(np.asarray(leaf, dtype=init.dtype))
    value = _loop_tensor(leaf, name)
    if relaxed and _fits(value.shape, init.shape):
        value = _relaxed_to(value, init.dims)  # a shape invariant: its dims may change
    kind = weak_type(value)
    if kind and value.shape == init.shape and np.result_type(kind(0), init.dtype) == init.dtype:
        value = primitives.cast(value, init.dtype)  # a weak value takes the loop's dtype
    if value.dtype != init.dtype or value.shape != init.shape:
        # TensorFlow's types: TypeError for a dtype change (checked first), ValueError for a
        # shape change (a weak literal's dtype is not fixed: becoming a vector is a shape change)
        kind = weak_type(init)
        weak_fits = kind is not None and np.result_type(kind(0), value.dtype) == value.dtype
        error = TypeError if value.dtype != init.dtype and not weak_fits else ValueError
        raise error(
            at_user_line(
                f"loop variable '{name}' changes from dtype {init.dtype} and shape {init.shape} "
                f"to dtype {value.dtype} and shape {value.shape} inside a staged loop; "
                f"{SHAPE_CHANGE}"
            )
        )
    return value


class _TraceMark:
    """What the trace context holds before an attempt to trace a loop, to forget what the
    attempt added when it is thrown away (nothing of it may reach the final IR)."""

    def __init__(self, context: TraceContext):
        self.context = context
        self.sizes = {name: len(getattr(context, name)) for name in self._RECORDS}
        self.module_ops = len(context.module.body.block.ops)

    # What a traced body adds for its ops: read guards of nested loops' results, pending
    # errors of tj.poison values, py_function callbacks, run-time dim constraints, NumPy
    # arrays left on two names (numpy_locals). (Python side effects stay, tj.Variables
    # created included, as in a trial trace of a body.)
    _RECORDS = (
        "read_guards",
        "pending_errors",
        "py_functions",
        "dim_constraints",
        "shared_arrays",
    )

    def rewind(self, blocks: list[Block], inits: list[Tensor]) -> None:
        """Erase the attempt's blocks and the initial values made for it; drop its records
        and the callees (traced Functions it called) it added to the module."""
        for block in blocks:
            for op in reversed(list(block.ops)):
                block.erase_op(op, safe_erase=False)
        for init in inits:
            owner = init.value.owner
            if isinstance(owner, Operation) and not init.value.uses and owner.parent:
                owner.parent.erase_op(owner)
        for name, size in self.sizes.items():
            record = getattr(self.context, name)
            if isinstance(record, dict):
                for key in list(record)[size:]:
                    del record[key]
            else:
                del record[size:]
        module = self.context.module.body.block
        for op in list(module.ops)[self.module_ops :]:
            module.erase_op(op, safe_erase=False)


def traced_and_thrown_away(fn: Callable[[], Any], block: Block | None = None) -> Any:
    """`fn()` traced into `block` (a new one by default), which is then thrown away: the
    arrays it wrote get their values back, and what it added to the trace (records,
    callees) is forgotten. Tensors it returns hold values that are gone: only their specs
    may be read; Python side effects stay, as in any trial trace."""
    trace = current_trace()
    mark = _TraceMark(trace)
    block = Block() if block is None else block
    with views.write_log() as written:
        try:
            with trace.building_in(block):
                return fn()
        finally:
            for root, value in written.before.items():
                views.restore(root, value)
            mark.rewind([block], [])


# --- tj.range -------------------------------------------------------------------------------
class _NoLimit:
    """`tj.range(n)`'s missing limit: not `None`, which `tj.range(1, None)` passes (a
    TypeError, as `range(1, None)`); shown as the `None` TF's signature has."""

    def __repr__(self) -> str:
        return "None"


_NO_LIMIT: object = _NoLimit()


def _check_bound(name: str, bound: object) -> None:
    """A bound of `tj.range` is a number or a tensor (as `tf.range`'s, floats too); `None`
    is Python's `range(1, None)` TypeError, not "no limit"."""
    if isinstance(bound, Tensor | np.ndarray):  # a 0-d array when run eagerly
        if bound.ndim != 0:
            raise TypeError(at_user_line(f"tj.range {name} must be a 0-d tensor, got {bound!r}"))
        return
    if bound is None:
        raise TypeError(
            at_user_line(
                f"tj.range {name} is None, as `range(1, None)` is a TypeError in Python; "
                "for the size of a dim known only at run time write x.shape[k] of the traced "
                "array x (a run-time int64 tensor), not a Python value that is None"
            )
        )
    if not isinstance(bound, int | float | np.number) or isinstance(
        bound, complex | np.complexfloating
    ):
        raise TypeError(
            at_user_line(
                f"tj.range {name} must be a number or a 0-d tensor, got "
                f"{type(bound).__name__} {bound!r}"
            )
        )


class Range:
    """`tj.range(start, limit=None, delta=1)`: like `range`, but a `for` loop over it is
    staged (not unrolled) by AutoGraph; iterating it directly needs concrete bounds.

    In a `tj.function`, `for i in tj.range(n)` compiles to one loop whose body is traced
    once, with `i` a tensor, whatever `n` is (a Python int or a tensor known only at run
    time); a `for` over Python's `range` is unrolled when it is short
    (`tj.config.set_loop_unroll_limit`). Outside a trace it iterates like `range`.

    Parameters
    ----------
    start, limit, delta : number or 0-d tensor
        As `range`'s (floats too, as `tf.range`'s): `tj.range(n)` counts 0, 1, ..., n - 1.

    Raises
    ------
    TypeError
        A bound is None or an array that is not 0-d; or a loop Python runs (not AutoGraph)
        has a tensor bound.

    Examples
    --------
    >>> @tj.function
    ... def triangle(n):
    ...     total = np.int64(0)
    ...     for i in tj.range(1, n + 1):
    ...         total += i
    ...     return total
    >>> triangle(np.int64(100))
    np.int64(5050)
    >>> list(tj.range(1, 7, 2))
    [1, 3, 5]
    """

    def __init__(self, start: Any, limit: Any = _NO_LIMIT, delta: Any = 1):
        if limit is _NO_LIMIT:
            start, limit = 0, start
        for name, bound in (("start", start), ("limit", limit), ("delta", delta)):
            _check_bound(name, bound)
        self.start, self.limit, self.delta = start, limit, delta

    def __iter__(self):
        bounds = (self.start, self.limit, self.delta)
        if any(isinstance(b, Tensor) for b in bounds):
            message = python_value_message("the bound of a Python loop over tj.range")
            raise TypeError(at_user_line(message))
        return iter(range(*(int(b) for b in bounds)))

    def __repr__(self) -> str:
        return f"tj.range({self.start!r}, {self.limit!r}, {self.delta!r})"
