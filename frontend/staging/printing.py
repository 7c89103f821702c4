"""`tj.print`: print at run time, every call, formatted as NumPy formats arrays.

Plain `print` inside a traced function runs once, while tracing. `tj.print` stages a
`tj.print` op: Python values are formatted into its text pieces at trace time, tensors
are printed by the kernel on every call, in program order with the other effects.
"""

from __future__ import annotations

import builtins
import sys

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
    if not is_tracing():
        builtins.print(*(format_value(v) for v in values), sep=sep, end=end, file=sys.stdout)
        return
    from tracejit.frontend.staging.variable import Variable

    pieces, tensors = [""], []
    for position, value in enumerate(values):
        if position:
            pieces[-1] += sep
        if isinstance(value, Variable):
            value = value.value()
        if isinstance(value, Tensor):
            tensors.append(value.value)
            pieces.append("")
        else:
            pieces[-1] += format_value(value)
    pieces[-1] += end
    emit(PrintOp(tensors, pieces))
