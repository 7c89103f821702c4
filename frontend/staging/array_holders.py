"""Whether anything but a staged loop's own variable can see the array that variable
named before the loop.

NumPy's `np.multiply(z, z, out=z)` followed by `z = z[keep]` in a loop body changes the
array `z` named before the loop in the first trip only; later trips change arrays the
body made. A staged loop carries `z` by value, so that first write reaches a copy, never
the array itself. That is exact when no other name, container or attribute the user can
reach holds the array (or a view of it): then nothing can tell the difference
(control_flow's `_WrittenArrays.learn`). This module looks for such a holder.

It walks the user's frames of the trace, from the loop's out to the traced function's
(tracejit's and NumPy's own are skipped: they hold the loop's bookkeeping), and their
local values, three levels into lists, tuples, dicts, sets and objects' attributes; a
value too large to look through counts as a holder. An array that came in as an argument
of the traced function is seen by the caller (tracejit copies its final value back), so
it always has a holder.
"""

from __future__ import annotations

from collections.abc import Iterator
from types import FrameType, FunctionType, ModuleType

import numpy as np

from tracejit.frontend.staging import non_strict, views
from tracejit.frontend.staging.source_location import user_frames
from tracejit.frontend.staging.tensor import Tensor
from tracejit.frontend.staging.tracing import current_trace


def other_holder(
    entry: object, name: str, loop_frame: FrameType | None, loop_values: dict[str, object]
) -> str | None:
    """What else holds `entry` (a Tensor or a NumPy array), or a view of it, than the
    loop variable `name`: a phrase for an error message; None when nothing does.
    `loop_values`: the loop's other variables, by name, as they were before the loop (in
    the loop's own frame, `loop_frame`, their names hold the body's values by now)."""
    for other, value in loop_values.items():
        if _holds(value, entry):
            return f"'{other}'"
    loop_names = {label.split("[")[0].split(".")[0] for label in (name, *loop_values)}
    if isinstance(entry, Tensor):
        if entry._view is not None:
            return "the array it is a view of"
        if id(entry) in current_trace().argument_indices:
            return "the caller (it is an argument of the traced function)"
    for frame in _frames_in_trace():
        own = loop_names if frame is loop_frame else set()
        for local, value in list(frame.f_locals.items()):
            if local not in own and _holds(value, entry):
                return f"'{local}'"
        if isinstance(entry, np.ndarray):  # a module's array taken by the function
            for global_name, value in list(frame.f_globals.items()):
                if isinstance(value, np.ndarray) and _shares(value, entry):
                    return f"the global '{global_name}'"
    return None


_DEPTH = 3  # how far into containers and attributes a holder is looked for
_BUDGET = 20_000  # objects looked at per value; past it, the value counts as a holder


def _frames_in_trace() -> Iterator[FrameType]:
    """The user's frames from the innermost out to the traced function's own: frames
    outside it (the caller's, pytest's) cannot hold the trace's arrays, except a module's
    NumPy array, which the traced function's globals show."""
    return user_frames(stop=_CALL_TRACED)


_CALL_TRACED = non_strict.call_traced.__code__


def _holds(value: object, entry: object) -> bool:
    """`value` is `entry` or a view of it, or holds one in its containers or attributes
    (`_DEPTH` levels down)."""
    seen: set[int] = set()
    try:
        return _reaches(value, entry, _DEPTH, seen)
    except _TooLarge:
        return True  # not looked through: counted as a holder (then unrolled or refused)


class _TooLarge(Exception):
    pass


def _reaches(value: object, entry: object, depth: int, seen: set[int]) -> bool:
    if _shares(value, entry):
        return True
    if depth == 0 or id(value) in seen or isinstance(value, _OPAQUE):
        return False
    seen.add(id(value))
    if len(seen) > _BUDGET:
        raise _TooLarge
    return any(_reaches(item, entry, depth - 1, seen) for item in _contents(value))


# values that hold no tensor worth following (classes, modules, functions, text, numbers)
_OPAQUE = (type, ModuleType, FunctionType, str, bytes, int, float, complex, np.generic)


def _contents(value: object) -> list:
    """What `value` holds directly: a container's items, an object's attributes."""
    if isinstance(value, Tensor | np.ndarray):
        return []
    if isinstance(value, list | tuple | set | frozenset):
        return list(value)
    if isinstance(value, dict):
        return list(value.values())
    try:
        attributes = getattr(value, "__dict__", None)
    except Exception:  # noqa: BLE001  (a proxy whose attributes fail to read holds nothing)
        return []
    return list(attributes.values()) if isinstance(attributes, dict) else []


def _shares(value: object, entry: object) -> bool:
    if isinstance(entry, Tensor):
        return isinstance(value, Tensor) and views.root_of(value) is entry
    if isinstance(entry, np.ndarray):
        return isinstance(value, np.ndarray) and np.may_share_memory(value, entry)
    return False
