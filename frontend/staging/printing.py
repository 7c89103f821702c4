"""`tj.print`: print at run time, every call, formatted as NumPy formats arrays.

Plain `print` inside a traced function runs once, while tracing. `tj.print` stages a
`tj.print` op: Python values are formatted into its text pieces at trace time, tensors
are printed by the kernel on every call, in program order with the other effects.
"""

from __future__ import annotations

import builtins
import sys

import numpy as np

from tracejit.frontend.staging.tensor import Tensor
from tracejit.frontend.staging.tracing import emit, is_tracing
from tracejit.ir.state import PrintOp
from tracejit.runtime.callbacks import format_value


def print_(*values: object, sep: str = " ", end: str = "\n") -> None:
    """Print `values` when the compiled function runs (like `tf.print`), to sys.stdout.

    Python's `print` in a traced function runs once, while tracing (and shows tensors as
    `<tj.Tensor ...>`); `tj.print` prints on every call, in program order with the other
    effects, arrays formatted as NumPy formats them. Outside a trace it prints at once.

    Parameters
    ----------
    *values
        Tensors, Variables and Python values.
    sep, end : str
        As `print`'s.

    Examples
    --------
    >>> @tj.function
    ... def show(x):
    ...     tj.print("x =", x, "sum:", np.sum(x))
    ...     return x * 2
    >>> _ = show(np.arange(3.0))
    x = [0. 1. 2.] sum: 3.0
    >>> _ = show(np.ones(3))
    x = [1. 1. 1.] sum: 3.0
    """
    from tracejit.frontend.staging.variable import Variable

    parts: list[object] = []  # text, and the arrays printed when the kernel runs
    for position, value in enumerate(values):
        if position:
            parts.append(sep)
        _parts_of(value, parts, nested=False)
    parts.append(end)
    if not is_tracing():
        text = "".join(p if isinstance(p, str) else format_value(p) for p in parts)
        builtins.print(text, end="", file=sys.stdout)
        return
    pieces, tensors = [""], []
    for part in parts:
        if isinstance(part, str):
            pieces[-1] += part
            continue
        value = part.value() if isinstance(part, Variable) else part
        if isinstance(value, Tensor):
            tensors.append(value.value)
            pieces.append("")
        else:
            pieces[-1] += format_value(value)
    emit(PrintOp(tensors, pieces))


def _parts_of(value: object, parts: list[object], nested: bool) -> None:
    """`value`'s text, with arrays, tensors and Variables left as parts to format with
    NumPy's `str`: lists, tuples and dicts are written out as Python writes them, so a
    container of tensors prints their values (as tf.print does), not `<tj.Tensor ...>`;
    other values inside a container as Python's `repr`, at the top as `str`."""
    from tracejit.frontend.staging.variable import Variable

    if isinstance(value, Tensor | Variable | np.ndarray | np.generic):
        parts.append(value)
    elif isinstance(value, list | tuple | dict) and _holds_arrays(value):
        items = list(value.items()) if isinstance(value, dict) else list(value)
        brackets = "{}" if isinstance(value, dict) else "()" if isinstance(value, tuple) else "[]"
        parts.append(brackets[0])
        for index, item in enumerate(items):
            if index:
                parts.append(", ")
            if isinstance(value, dict):
                parts.append(f"{item[0]!r}: ")
                item = item[1]
            _parts_of(item, parts, nested=True)
        if isinstance(value, tuple) and len(items) == 1:
            parts.append(",")
        parts.append(brackets[1])
    else:
        parts.append(repr(value) if nested else str(value))


def _holds_arrays(value: object) -> bool:
    """Whether a container holds an array, tensor or Variable at any depth."""
    from tracejit.frontend.staging.variable import Variable

    if isinstance(value, Tensor | Variable | np.ndarray | np.generic):
        return True
    if isinstance(value, dict):
        return any(_holds_arrays(v) for v in value.values())
    if isinstance(value, list | tuple):
        return any(_holds_arrays(v) for v in value)
    return False
