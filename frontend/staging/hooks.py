"""Functions a higher floor installs for a lower one to call.

The frontend's floors import only downwards (docs/design.md). Where a lower floor must call
code of a higher one -- a Tensor's indexing is NumPy's (numpy_api/), a Function pickles
through export/ -- the lower floor declares the functions it needs as the annotations of a
`Hooks` subclass, and the higher floor installs them when it is imported (as JAX's numpy
layer attaches the array methods). frontend/__init__.py imports every installing floor.
"""

from __future__ import annotations

from typing import Any


class Hooks:
    """A set of named functions, declared by a subclass's annotations, installed later."""

    def install(self, **functions: object) -> None:
        declared = {
            name for klass in type(self).__mro__ for name in getattr(klass, "__annotations__", {})
        }
        for name, function in functions.items():
            if name not in declared:
                raise TypeError(f"{type(self).__name__} declares no hook {name!r}")
            setattr(self, name, function)

    def __getattr__(self, name: str) -> Any:  # only called for a hook not installed yet
        raise RuntimeError(
            f"{type(self).__name__}.{name} is not installed: import tracejit.frontend (it "
            "imports the floors that install their hooks)"
        )
