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
    """Print `values` when the compiled function runs (like `tf.print`), to sys.stdout."""
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
