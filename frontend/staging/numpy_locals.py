"""NumPy arrays held by the user's local names around staged control flow.

An array made in the function from Python values (`np.eye(3)`, `np.zeros(4)`) is a NumPy
array while tracing: a constant of the trace. Staged control flow cannot change one in
place as NumPy would on each trip or in the branch taken, in two ways:

* code that changes it without assigning to a name -- `E.fill(0)`, `np.copyto(E, v)`, a
  literal written through a view -- runs once, while tracing, whatever the trip count or
  the branch (`watching` compares the local arrays before and after the construct is
  traced, puts them back and refuses);
* a loop variable or branch output holding it is changed through a traced copy (the
  construct carries copies of its variables), which another name holding the array or a
  view of it would not see: `w = E[0]`, then `E[0, 1] = 5.0` in a staged loop or if
  (`refuse_shared`, called where the copy is found written: control_flow's loops, and
  operators' ifs, whose branches get a traced copy of such an array); after the
  construct, a write through a name it may have left on the array is refused too
  (`refuse_later_writes`: a loop of zero trips, an untaken branch), and so is a
  later change through the other name, if the construct's value is used
  (`refuse_changed_shared_arrays`, at the end of the trace).

AutoGraph's operators (frontend/autograph/operators.py) wrap each staged `for`, `while`
and `if` in `watching(frame)`, the frame of the converted function.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

import numpy as np

from tracejit.frontend.staging import non_strict, views
from tracejit.frontend.staging.source_location import SourceLocation, at_user_line
from tracejit.frontend.staging.tensor import Tensor
from tracejit.frontend.staging.tracing import TraceContext, current_trace

_SNAPSHOT_LIMIT = 1 << 24
"""Arrays of more elements than this are not compared (a copy of each per construct)."""

_frames = threading.local()


@contextmanager
def watching(frame: FrameType, construct: str) -> Iterator[None]:
    """Trace a staged `construct` ("loop" or "if") of the function running in `frame`;
    refuse if that changed a NumPy array one of its local names holds (module docstring)."""
    where = SourceLocation(frame.f_code.co_filename, frame.f_lineno)  # the construct's line
    saved = [
        (name, array, array.copy())
        for name, array in _local_arrays(frame)
        if array.size <= _SNAPSHOT_LIMIT
    ]
    stack = _stack()
    stack.append(frame)
    failed = True
    try:
        yield
        failed = False
    finally:
        stack.pop()
        changed = _put_back(saved)
    if changed and not failed:
        raise NotImplementedError(
            f"the NumPy array '{changed[0]}' is changed in place inside a staged "
            f"{construct} by code that does not assign to its name (a method such as "
            "`.fill`, `np.copyto`, or a write through a view): that would happen once, "
            f"while tracing, not each time the {construct} runs. Write it with an item "
            f"assignment to its own name (`{changed[0]}[...] = value`), or copy it from a "
            f"traced array first ({where})"
        )


def refuse_shared(array: np.ndarray, name: str, construct: str) -> None:
    """Refuse changing the traced copy of `array` (the value of `name` before a staged
    `construct`) when another local name holds it or a view sharing its memory."""
    others = sharing(array, name)
    if others:
        raise NotImplementedError(
            at_user_line(
                f"'{name}' is a NumPy array that '{others[0]}' also refers to (the same "
                f"array, or a view sharing its memory), and a staged {construct} changes it "
                f"in place: the compiled {construct} changes a traced copy of '{name}', "
                f"which '{others[0]}' would not see. Make '{name}' a traced array before "
                f"'{others[0]}' takes it (e.g. `{name} = {name} + np.zeros_like(x)` for a "
                f"traced x of its shape), or copy it (`{name} = {name}.copy()`) if "
                f"'{others[0]}' should keep the old values"
            )
        )


def refuse_later_writes(before: object, after: object, name: str, construct: str) -> None:
    """After a staged `construct` that may leave `name` on the NumPy array it held before
    (a loop of zero trips, the branch that did not rebind it), while another local name
    shares that array: NumPy's later in-place write to `name` changes the other name's
    array too, then only; the traced `after` is marked so that such a write raises."""
    if not isinstance(before, np.ndarray) or not isinstance(after, Tensor):
        return
    others = sharing(before, name)
    if not others:
        return
    views.refuse_writes(
        after,
        f"'{name}' may still be the NumPy array '{others[0]}' refers to after the "
        f"staged {construct} (which may not rebind it), and NumPy's in-place change of "
        f"it would then change '{others[0]}' too, which the compiled code cannot follow: "
        f"write `{name} = {name} + v` for a new array, or copy it "
        f"(`{name} = {name}.copy()`) before the {construct}",
    )
    # ... and a change through the other name would change `name` too, then only
    why = at_user_line(
        f"'{others[0]}' is changed in place after a staged {construct} that may leave "
        f"'{name}' on the same NumPy array (a loop of zero trips, an untaken branch), "
        f"where NumPy's '{name}' would then see the change and the compiled '{name}' "
        f"(a copy the {construct} carries) would not. Copy it before the {construct} "
        f"(`{name} = {others[0]}.copy()`), or change '{others[0]}' by assigning a new "
        f"array to it (`{others[0]} = {others[0]} + v`)"
    )
    current_trace().shared_arrays.append((before, before.tobytes(), after.value, why))


def refuse_changed_shared_arrays(context: TraceContext) -> None:
    """At the end of a trace: refuse if a NumPy array `refuse_later_writes` saw left on
    two names changed since, and the construct's traced value is used."""
    changed = [
        (value, why)
        for array, then, value, why in context.shared_arrays
        if array.tobytes() != then and context.function.is_ancestor(value.owner)
    ]
    context.shared_arrays.clear()
    if changed:
        live = non_strict.live_values(context.function)
        for value, why in changed:
            if value in live:
                raise NotImplementedError(why)


def sharing(array: np.ndarray, name: str) -> list[str]:
    """The other local names of the innermost watched frame whose arrays may share memory
    with `array` (the value of local `name`)."""
    stack = _stack()
    if not stack:
        return []
    return [
        other
        for other, value in _local_arrays(stack[-1])
        if other != name and np.may_share_memory(value, array)
    ]


def watched_frame() -> FrameType | None:
    """The frame of the innermost staged construct being traced (`watching`)."""
    stack = _stack()
    return stack[-1] if stack else None


def _stack() -> list[FrameType]:
    stack = getattr(_frames, "stack", None)
    if stack is None:
        stack = _frames.stack = []
    return stack


def _local_arrays(frame: FrameType) -> list[tuple[str, np.ndarray]]:
    return [
        (name, value)
        for name, value in frame.f_locals.items()
        if isinstance(value, np.ndarray) and value.size > 0
    ]


def _put_back(saved: list[tuple[str, np.ndarray, np.ndarray]]) -> list[str]:
    """Restore the arrays whose bytes changed; their names."""
    changed = []
    for name, array, before in saved:
        if array.tobytes() != before.tobytes():
            array[...] = before
            changed.append(name)
    return changed
