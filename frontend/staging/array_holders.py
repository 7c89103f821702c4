"""Whether anything but a staged loop's own variable can see the array that variable
named before the loop.

NumPy's `np.multiply(z, z, out=z)` followed by `z = z[keep]` in a loop body changes the
array `z` named before the loop in the first trip only; later trips change arrays the
body made. A staged loop carries `z` by value, so that first write reaches a copy, never
the array itself. That is exact when no other name, container or attribute the user can
reach holds the array (or a view of it): then nothing can tell the difference
(control_flow's `_WrittenArrays.learn`). This module looks for such a holder.

It walks the stack's user frames (tracejit's and NumPy's own are skipped: they hold the
loop's bookkeeping) and their local values, one level into lists, tuples, dicts, sets and
objects' attributes. An array that came in as an argument of the traced function is seen
by the caller (tracejit copies its final value back), so it always has a holder.
"""

from __future__ import annotations

from types import FrameType, FunctionType, ModuleType

import numpy as np

from tracejit.frontend.staging import views
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
    for frame in user_frames():
        own = loop_names if frame is loop_frame else set()
        for local, value in list(frame.f_locals.items()):
            if local not in own and _holds(value, entry):
                return f"'{local}'"
        if isinstance(entry, np.ndarray):  # a module's array taken by the function
            for global_name, value in list(frame.f_globals.items()):
                if isinstance(value, np.ndarray) and _shares(value, entry):
                    return f"the global '{global_name}'"
    return None


def _holds(value: object, entry: object) -> bool:
    """`value` is `entry` or a view of it, or holds one directly (one level down)."""
    try:
        return _holds_directly(value, entry)
    except Exception:  # noqa: BLE001  (a proxy whose attributes fail to read holds no tensor)
        return False


def _holds_directly(value: object, entry: object) -> bool:
    if _shares(value, entry):
        return True
    if isinstance(value, list | tuple | set | frozenset):
        return any(_shares(item, entry) for item in value)
    if isinstance(value, dict):
        return any(_shares(item, entry) for item in value.values())
    if isinstance(value, type | ModuleType | FunctionType):
        return False
    attributes = getattr(value, "__dict__", None)
    if isinstance(attributes, dict):
        return any(_shares(item, entry) for item in list(attributes.values()))
    return False


def _shares(value: object, entry: object) -> bool:
    if isinstance(entry, Tensor):
        return isinstance(value, Tensor) and views.root_of(value) is entry
    if isinstance(entry, np.ndarray):
        return isinstance(value, np.ndarray) and np.may_share_memory(value, entry)
    return False
