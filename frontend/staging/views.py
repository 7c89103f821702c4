"""Views and the functional record of writes on traced arrays.

While tracing, an array is a value (an SSA value of the `tj` IR). Mutation is recorded
functionally, the way JAX's `.at[].set` and PyTorch's functionalization do it: a write makes
a new value the array's value from then on (`set_root_value`); bufferization performs it in
place when the old value is dead. NumPy's ways of writing (item assignment, in-place
operators, `out=`) are in frontend/numpy_api/mutation.py; this module is what they and staged
control flow share:

* A Tensor made by basic indexing, a transpose or a reshape is a *view* of its base, as in
  NumPy: it remembers how it was taken from its parent (`View.forward`) and how to put a
  new value of it back (`View.backward`). Writing to a view writes its parent (and so on
  up to the root); reading a view after its root changed takes it again.
* Every root counts its writes (`Tensor._version`) so that views notice; the trace context
  logs which roots a staged branch or loop body writes (`write_log`), so that staged control
  flow carries their values (frontend/staging/control_flow.py), and an argument written by
  the function is copied back into the caller's array after the call.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np
from xdsl.ir import Operation, SSAValue

from tracejit.frontend.staging import primitives
from tracejit.frontend.staging.source_location import at_user_line
from tracejit.frontend.staging.tensor import Tensor, record_dims

Forward = Callable[[Tensor], Tensor]
Backward = Callable[[Tensor, Tensor], Tensor]


@dataclass
class View:
    """How a view Tensor relates to its parent (see the module docstring)."""

    parent: Tensor
    forward: Forward  # parent -> this view's value
    backward: Backward  # (parent, new value of the view) -> new value of the parent
    seen: int = -1  # the root's version this view's value was taken at
    # `alias_unless`'s views only: the 0-d bool that is true when it is not its parent
    separate: Tensor | None = None
    # ... and true when it is then a NumPy scalar, not an array (`rebind_unless_alias`)
    scalar_when_separate: bool = False
    # whether the view's memory order differs from its parent's (a transpose), or may (a
    # reshape of a view): NumPy's element-wise results of it are then not C-ordered
    reorders: bool = False


def root_of(tensor: Tensor) -> Tensor:
    while tensor._view is not None:
        tensor = tensor._view.parent
    return tensor


def sync(tensor: Tensor) -> SSAValue:
    """The current value of a view: taken again from its parent if the root was written
    since it was last taken, or if it was taken inside a staged branch or loop body that
    is closed now (the other branch of an if may read the view without writing the root)."""
    view = tensor._view
    assert view is not None
    version = root_of(tensor)._version
    if view.seen != version or not visible(tensor._value):
        tensor._value = view.forward(view.parent).value
        view.seen = version
    return tensor._value


def visible(value: SSAValue) -> bool:
    """Whether `value` may be used where ops are staged now: its block is open (not a
    closed branch, nor a loop body traced in an attempt that was thrown away, whose ops
    were erased: they have no block)."""
    from xdsl.ir import BlockArgument

    from tracejit.frontend.staging.tracing import current_trace, is_tracing

    if not is_tracing():
        return True
    block = value.block if isinstance(value, BlockArgument) else value.owner.parent
    return block is not None and block in current_trace().open_blocks


# --- which roots a staged region writes --------------------------------------------------
@dataclass
class WriteLog:
    """The roots written while tracing one staged region, with their values before it."""

    before: dict[Tensor, SSAValue] = field(default_factory=dict)
    # the last op staged in the region's block when each root was first written (None: none
    # yet), so that a staged loop can tell which reads of a value came before the write
    first_write_after: dict[Tensor, Operation | None] = field(default_factory=dict)


_local = threading.local()  # traces are per thread (frontend/staging/tracing.py)


def _logs() -> list[WriteLog]:
    if not hasattr(_local, "logs"):
        _local.logs = []
    return _local.logs


@contextmanager
def write_log() -> Iterator[WriteLog]:
    log = WriteLog()
    _logs().append(log)
    try:
        yield log
    finally:
        _logs().pop()


def set_root_value(root: Tensor, value: SSAValue) -> None:
    """Make `value` the root's value (a write: logged, and views notice)."""
    logs = _logs()
    if logs and root not in logs[-1].before:
        logs[-1].before[root] = root._value
        logs[-1].first_write_after[root] = _last_staged_op()
    _take_value(root, value)


def _take_value(root: Tensor, value: SSAValue) -> None:
    """`value` becomes the root's: it has the root's dims (a write keeps the shape), which
    the ops reading it inherit (an if's or loop's result has no dims of its own)."""
    root._value = value
    root._version += 1
    if None in root._shape:
        record_dims(value, root.dims)


def _last_staged_op() -> Operation | None:
    from tracejit.frontend.staging.tracing import current_trace

    return current_trace().open_blocks[-1].last_op


def restore(root: Tensor, value: SSAValue) -> None:
    """Put back a root's value from before a region was traced (not a write of the
    enclosing region: the region's net effect is written by its caller)."""
    _take_value(root, value)


# --- writing -------------------------------------------------------------------------------
def assign(tensor: Tensor, new: Tensor) -> None:
    """Give `tensor` (a root or a view) the value `new` (same shape and dtype)."""
    refused = tensor._write_refused
    if refused:
        raise ValueError(at_user_line(refused))
    view = tensor._view
    if view is None:
        set_root_value(tensor, new.value)
        return
    parent = view.parent
    assign(parent, view.backward(parent, new))
    tensor._value = new.value
    view.seen = root_of(tensor)._version


def alias_unless(entry: Tensor, own: Tensor, separate: Tensor) -> Tensor:
    """A staged loop's result `own` for a variable that named the array `entry` before the
    loop, as NumPy's name is: `entry` itself when the loop ran zero times (`separate`, a
    0-d bool, false), so that a write through either name after the loop is seen through
    the other (`x = a; while i < n: x = x * 2` then `a += 1` or `x += 1`); an array of its
    own otherwise. A view of `entry` whose value is chosen when the kernel runs; its own
    value lives in a root of its own (`shadow`), which staged control flow carries like any
    array written in place."""
    shadow = Tensor(own.value, dims=own.dims)
    shadow._is_array = True
    sizes = {axis: (own.value, axis) for axis in range(own.ndim)}  # at run time, own's
    flag = primitives.broadcast_to(separate, own.dims, sizes)

    def forward(parent: Tensor) -> Tensor:
        return primitives.select(flag, shadow, parent)

    def backward(parent: Tensor, new: Tensor) -> Tensor:
        assign(shadow, new)
        return primitives.select(flag, parent, new)

    result = Tensor(own.value, dims=own.dims, weak=own.weak)
    result._is_array = own._is_array
    result._view = View(entry, forward, backward, root_of(entry)._version, separate)
    root_of(entry)._viewed = True
    return result


def scalar_unless(entry: Tensor, own: Tensor, separate: Tensor, why: str) -> Tensor:
    """`alias_unless` for a 0-d variable that the loop makes a NumPy scalar (`x = a`, then
    `x = x + 1` in the body): `entry` after zero trips, an immutable scalar after one or
    more. `x -= 1` then writes `entry` only where it is `entry`, and binds `x` to a new such
    value (`rebind_unless_alias`), so another name of the old one (`y = x` before) keeps
    it, as NumPy's scalar; other writes (`x[()] = v`) are refused with `why`."""
    result = alias_unless(entry, own, separate)
    assert result._view is not None
    result._view.scalar_when_separate = True
    return refuse_writes(result, why)


def rebind_unless_alias(tensor: Tensor, new: Tensor) -> Tensor:
    """`tensor <op>= v` for a `scalar_unless` value, `new` its result (see there)."""
    view = tensor._view
    assert view is not None and view.separate is not None
    entry = view.parent
    flag = primitives.broadcast_to(view.separate, entry.dims)
    assign(entry, primitives.select(flag, entry, new))
    return scalar_unless(entry, new, view.separate, tensor._write_refused)


def make_view(parent: Tensor, child: Tensor, forward: Forward, backward: Backward) -> Tensor:
    """`child` (just computed from `parent` by `forward`) as a view of `parent`."""
    if child is parent or child._view is not None:
        child = Tensor(child.value, child.dims)
    child._view = View(parent, forward, backward, root_of(parent)._version)
    root_of(parent)._viewed = True
    if parent._write_refused:
        child._write_refused = parent._write_refused
    return child


def refuse_writes(tensor: Tensor, why: str) -> Tensor:
    """Mark `tensor` as one NumPy would give as a view that tracejit does not track: a
    write to it raises (a silent difference from NumPy would be worse)."""
    tensor._write_refused = why
    return tensor


# --- augmented assignment --------------------------------------------------------------------
def updates_in_place(tensor: Tensor) -> bool:
    """NumPy's `a += v` changes an array in place; on a scalar it rebinds the name. A 0-d
    tensor is an array when it came in as one (an argument), was made as one
    (np.zeros(()), ...) or is a view; results of reductions and ufuncs on scalars are
    NumPy scalars."""
    if tensor.weak:
        return False
    return tensor.ndim > 0 or tensor._is_array or tensor._view is not None


def may_be_an_array(tensor: object) -> bool:
    """A `scalar_unless` value: an array when the kernel runs if the loop that made it ran
    zero times, a NumPy scalar (whose writes are refused) otherwise."""
    view = getattr(tensor, "_view", None) if isinstance(tensor, Tensor) else None
    return view is not None and view.scalar_when_separate


def writable_array(tensor: object) -> bool:
    """An array that a write through one of its names changes in place, for every name of
    it (not a scalar, and not one whose writes tracejit refuses): what a name that may
    still be it after staged control flow must follow (`alias_unless`)."""
    return isinstance(tensor, Tensor) and updates_in_place(tensor) and not tensor._write_refused


# --- views made by reshapes and transposes ---------------------------------------------------
# NumPy's reshape (and ravel) is a view when the array's memory layout allows it, else a
# copy. Three cases, by what tracejit knows at trace time:
# * only dims of size 1 come or go (np.squeeze, np.expand_dims, `x[:, None]`): always a
#   view, whatever the layout;
# * a reshape of an argument, or of an array made in the function: a view when the array
#   is C-contiguous, which arrays made in the function are and an argument is in most
#   calls. Where the function relies on that (a write through the reshape, or a read of it
#   after its array was written), the trace notes the argument, and a call that passes a
#   non-C-contiguous array there is refused (`layout_dependent_inputs`);
# * a reshape of a view (a slice, a transpose): a view or a copy depending on strides
#   tracejit does not track. Writes through it are refused, and so is a read of it after
#   its array was written (NumPy's answer would depend on the layout).
_WRITE_REFUSED = (
    "writing into a reshape of a view (a slice, transpose, ...), or of an array NumPy may "
    "not lay out in C order (one computed from a transpose, say), is not supported: NumPy "
    "gives a view or a copy there depending on the memory layout. Write into the array "
    "itself, or make the reshape a copy (`.copy()`)"
)
_READ_REFUSED = (
    "reading a reshape of a view (a slice, transpose, ...), or of an array NumPy may not "
    "lay out in C order (one computed from a transpose, say), after a write into its array "
    "is not supported: NumPy gives a view (which sees the write) or a copy (which does "
    "not) depending on the memory layout. Copy the reshape (`.copy()`) before the write, "
    "or reshape after it"
)


def reshaped(
    x: Tensor, result: Tensor, any_layout: bool = False, c_order_only: bool = False
) -> Tensor:
    """`result`, a reshape of `x` (np.reshape, ravel, squeeze, expand_dims), as NumPy gives
    it (see the cases above; a name that may still be an array after staged control flow,
    `alias_unless`, is that array or one of its own: contiguous when the array is).
    `any_layout`: a flat view NumPy writes in C order whatever the layout (np.put's);
    `c_order_only`: a view only of a C-contiguous array even where no dim changes
    (np.ascontiguousarray's)."""
    dims = x.dims
    unit_dims_only = not c_order_only and _without_ones(dims) == _without_ones(result.dims)
    root = root_of(x)
    sources = order_sources(root)
    if not unit_dims_only and (not _contiguous(x) or sources is None):
        return _ambiguous_reshape(x, result)
    created = root._version
    note = None if unit_dims_only or any_layout else _layout_note(sources or set())

    def forward(parent: Tensor) -> Tensor:
        if note is not None and root._version != created:
            note("a read of its reshape after a write into it")
        return primitives.reshape(parent, result.dims)

    def backward(parent: Tensor, new: Tensor) -> Tensor:
        if note is not None:
            note("a write through its reshape")
        return primitives.reshape(new, dims)

    return make_view(x, result, forward, backward)


def _ambiguous_reshape(x: Tensor, result: Tensor) -> Tensor:
    """A reshape of a view: its value now; taken again after a write into its array, a
    `tj.poison` (raising `_READ_REFUSED` if that value is used); writes refused."""
    return _view_or_copy(
        x, result, lambda parent: primitives.reshape(parent, result.dims), _READ_REFUSED,
        _WRITE_REFUSED,
    )  # fmt: skip


_LAYOUT_COPY_WRITE = (
    "writing into np.asfortranarray of an argument or a view is not supported: NumPy gives "
    "the array itself when it is Fortran-ordered (a transpose) and a copy otherwise, and "
    "tracejit does not know the layout while tracing. Make a copy you can write: "
    "np.array(x, order='F')"
)
_LAYOUT_COPY_READ = (
    "reading np.asfortranarray of an argument or a view after a write into that array is "
    "not supported: NumPy gives the array itself (which sees the write) when it is "
    "Fortran-ordered, else a copy (which does not). Use np.array(x, order='F') for a copy"
)


def separate_copy(x: Tensor, result: Tensor) -> Tensor:
    """`result`, a copy of `x` with x's values where NumPy gives x itself for some layouts
    and a copy for others (np.asfortranarray of an argument or a view, whose layout the
    trace does not know): as `_view_or_copy`."""
    return _view_or_copy(x, result, lambda parent: parent, _LAYOUT_COPY_READ, _LAYOUT_COPY_WRITE)


def _view_or_copy(
    x: Tensor, result: Tensor, value_of: Forward, read_refused: str, write_refused: str
) -> Tensor:
    """`result` (`value_of(x)`), which NumPy makes a view of x or a copy depending on a
    memory layout tracejit does not know: its value now; taken again after a write into
    x's array, a `tj.poison` (raising `read_refused` if that value is used); writes
    refused with `write_refused`."""
    root = root_of(x)
    created = root._version
    refused = NotImplementedError(at_user_line(read_refused))

    def forward(parent: Tensor) -> Tensor:
        if root._version != created:
            return primitives.poison(refused, result.dims, result.dtype)
        return value_of(parent)

    def backward(parent: Tensor, new: Tensor) -> Tensor:
        raise ValueError(at_user_line(write_refused))  # as `assign` does, first

    view = make_view(x, result, forward, backward)
    view._view.reorders = True  # type: ignore[union-attr]  # made just now
    return refuse_writes(view, write_refused)


def _without_ones(dims: tuple) -> tuple:
    return tuple(d for d in dims if d != 1)


def _layout_note(arguments: set[Tensor]) -> Callable[[str], None] | None:
    """For arguments of the traced function whose layout an array's follows: a function
    noting, with the user's line, that the trace relies on them being C-contiguous."""
    from tracejit.frontend.staging.tracing import current_trace, is_tracing

    if not is_tracing() or not arguments:
        return None
    context = current_trace()
    indices = [context.argument_indices[id(a)] for a in arguments]

    def note(what: str) -> None:
        for index in indices:
            context.layout_dependent_inputs.setdefault(index, at_user_line(what))

    return note


def rely_on_c_order(x: Tensor, reason: str) -> None:
    """A called trace relies on its input `x` being C-contiguous (`reason`, with the
    callee's line): note the arguments x's layout follows, as a reshape in this trace
    would. Where NumPy may lay x out otherwise (a view, an array made from a transpose), the
    callee would answer for a layout x may not have: refused."""
    sources = order_sources(x) if _contiguous(x) else None
    if sources is None:
        raise NotImplementedError(at_user_line(
            "passing a view (a slice, transpose, ...), or an array NumPy may not lay out in C "
            "order, to a tj.function that relies on that input being C-contiguous is not "
            f"supported ({reason}): NumPy's answer there depends on the layout. Pass "
            "np.ascontiguousarray(x)"
        ))  # fmt: skip
    note = _layout_note(sources)
    if note is not None:
        note(f"in a called tj.function, {reason}")


def order_sources(tensor: Tensor, depth: int = 0) -> set[Tensor] | None:
    """The arguments whose being C-contiguous makes `tensor` C-ordered in NumPy (an empty
    set: C-ordered whatever they are), or None when it may not be C-ordered at all (made
    from a transpose, or by an op whose result's order tracejit does not follow). NumPy's
    element-wise results, reductions, sorts and `*_like` arrays take the memory order of
    their operands (`x.T * 2` is Fortran-ordered, and its reshape a copy), so an array made
    in the function is C-ordered only as its `_order_from` says."""
    from tracejit.frontend.staging.tracing import current_trace, is_tracing

    view = tensor._view
    while view is not None:
        if view.reorders:
            return None
        tensor, view = view.parent, view.parent._view
    if is_tracing() and id(tensor) in current_trace().argument_indices:
        return {tensor}
    order = tensor._order_from
    if order == "C":
        return set()
    if not isinstance(order, tuple) or depth > 64:
        return None
    sources: set[Tensor] = set()
    for operand in order:
        found = order_sources(operand, depth + 1)
        if found is None:
            return None
        sources |= found
    return sources


def is_c_ordered(tensor: Tensor) -> bool:
    """Whether `tensor` is C-ordered in NumPy whatever the arguments' layouts."""
    return order_sources(tensor) == set()


def follow_order(result: Tensor, operands: Sequence[object]) -> Tensor:
    """`result` (a new array computed element-wise from `operands`) with NumPy's memory
    order: that of its operands of several dims (C when there are none)."""
    if any(result is x for x in operands):
        return result
    shaped = tuple(
        x for x in operands if isinstance(x, Tensor) and sum(d != 1 for d in x.dims) > 1
    )
    fortran = any(  # a NumPy array of the trace in another order (np.asfortranarray(c))
        isinstance(x, np.ndarray) and sum(d != 1 for d in x.shape) > 1
        and not x.flags.c_contiguous
        for x in operands
    )  # fmt: skip
    result._order_from = None if fortran else (shaped or "C")
    return result


def _contiguous(x: Tensor) -> bool:
    view = x._view
    return view is None or (view.separate is not None and _contiguous(view.parent))


def permuted(x: Tensor, result: Tensor, permutation: list[int]) -> Tensor:
    """`result`, `x` with its axes permuted (transpose, swapaxes, moveaxis): a view."""
    inverse = [permutation.index(d) for d in range(len(permutation))]

    def forward(parent: Tensor) -> Tensor:
        return primitives.transpose(parent, permutation)

    def backward(parent: Tensor, new: Tensor) -> Tensor:
        return primitives.transpose(new, inverse)

    view = make_view(x, result, forward, backward)
    moved = [d for d in permutation if x.dims[d] != 1]
    view._view.reorders = moved != sorted(moved)  # type: ignore[union-attr]  # made just now
    return view


# --- in-place reshape ------------------------------------------------------------------------
def reshape_in_place(tensor: Tensor, shape: object) -> None:
    """NumPy's `x.shape = s`: the array object itself takes the new shape, so every name of
    it sees it (NPBench's `X.shape = Y.shape = n`). Done on the traced array when nothing
    else depends on its old shape; refused, saying what to write, where it is not."""
    why = _in_place_reshape_refused(tensor)
    if why is not None:
        raise AttributeError(
            at_user_line(
                f"setting .shape of a traced array (an in-place reshape to {shape!r}) is not "
                f"supported here: {why}. Rebind the name instead: `x = x.reshape(...)` (a "
                "view, as NumPy's in-place reshape is)"
            )
        )
    one_dim = sum(d != 1 for d in tensor.dims) <= 1  # contiguous in any order NumPy uses
    sources = set() if one_dim else order_sources(tensor)
    if sources is None:  # computed from a transpose (Fortran order), say
        raise AttributeError(
            at_user_line(
                f"setting .shape of a traced array (an in-place reshape to {shape!r}) is not "
                "supported here: NumPy may lay the array out in an order other than C (it "
                "was computed from a transpose, or by an op whose layout tracejit does not "
                "follow), and then refuses an in-place reshape (Incompatible shape for "
                "in-place modification). Use `x = x.reshape(...)`"
            )
        )
    note = _layout_note(sources)  # C-ordered as the arguments it follows: calls check them
    if note is not None:
        note("an in-place reshape (x.shape = ...) of an array laid out as it")
    result = tensor.reshape(shape)  # NumPy's rules: the size must match, one -1 at most
    tensor._value, tensor._shape, tensor.dims = result.value, result._shape, result.dims
    tensor._viewed = False  # `result`, the one view just made, is dropped


def _in_place_reshape_refused(tensor: Tensor) -> str | None:
    from tracejit.frontend.staging.tracing import current_trace, is_tracing

    if not is_tracing():
        return "not while tracing"
    if not updates_in_place(tensor):
        return "it is a NumPy scalar, whose shape NumPy does not let change either"
    if tensor._view is not None:
        return "it is a view of another array, whose reads tracejit follows by shape"
    if tensor._viewed:
        return "views of it were taken before, which tracejit follows by its old shape"
    if id(tensor) in current_trace().argument_indices:
        return "it is an argument, and the caller's array would change shape"
    if _logs():
        return "it is inside a staged loop or branch, whose variables keep their shapes"
    return None
