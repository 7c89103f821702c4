"""NumPy array subclasses whose meaning differs from ndarray's, which tracejit refuses.

A traced function sees an argument or a captured array as its buffer, dtype and shape:
whatever a subclass adds is gone. For most subclasses that is harmless (np.memmap is an
ndarray over a file), but a masked array's mask changes what `np.sum` means, an np.matrix's
`*` is a matrix product, and a subclass that overrides `__array_ufunc__` or
`__array_function__` changes what NumPy's functions do. Compiling those as plain arrays
would give NumPy's answer for a different program, so they are refused, with what to pass
instead.
"""

from __future__ import annotations

import numpy as np

from tracejit.frontend.staging.source_location import at_user_line


def refusal(value: object) -> str | None:
    """Why `value` cannot be traced as a plain array and what to pass instead (None if it
    can: an ndarray, or a subclass that keeps ndarray's meaning)."""
    kind = type(value)
    if kind is np.ndarray or not isinstance(value, np.ndarray):
        return None
    if isinstance(value, np.ma.MaskedArray):
        return (
            "is a masked array (np.ma): tracejit would drop its mask, which NumPy's functions "
            "honour (np.sum skips masked elements). Pass the data and the mask as two arrays, "
            "e.g. `x.filled(0)` and `np.ma.getmaskarray(x)`, and use np.where on the mask"
        )
    if isinstance(value, np.matrix):
        return (
            "is an np.matrix, whose `*` is a matrix product and whose results stay 2-D; "
            "tracejit would treat it as an ndarray. Pass `np.asarray(m)` and write `@` for "
            "matrix products"
        )
    overrides = [
        name
        for name in ("__array_ufunc__", "__array_function__")
        if getattr(kind, name, None) is not getattr(np.ndarray, name)
    ]
    if overrides:
        return (
            f"is a {kind.__name__}, an ndarray subclass that overrides {' and '.join(overrides)}"
            ", so NumPy's functions mean something else on it; tracejit would treat it as a "
            "plain ndarray. Pass `np.asarray(x)` if plain NumPy semantics are what you want"
        )
    return None


def check_argument(value: object, name: str) -> None:
    """Raise TypeError if argument `name` is an array subclass tracejit refuses."""
    why = refusal(value)
    if why is not None:
        raise TypeError(at_user_line(f"argument '{name}' {why}"))


def check_constant(value: object) -> None:
    """Raise TypeError if an array the traced function uses (a global, a closure's) is an
    array subclass tracejit refuses."""
    why = refusal(value)
    if why is not None:
        raise TypeError(at_user_line(f"an array used by the traced function {why}"))
