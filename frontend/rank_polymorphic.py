"""A concrete function for inputs of unknown rank (`TensorSpec(shape=None)`).

Machine code needs the rank, so `get_concrete_function(TensorSpec(None, float32))`
returns this object: calling it looks at the ranks of the arrays passed where the
spec said `shape=None`, and runs the trace for those ranks (all dims unknown),
tracing it on first use. One object serves every rank, as DESIGN §2 asks.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tracejit.frontend.errors import InvalidArgumentError
from tracejit.frontend.structure import flatten, unflatten
from tracejit.frontend.tensor_spec import TensorSpec


def has_unknown_rank(leaves: list[Any]) -> bool:
    return any(isinstance(leaf, TensorSpec) and leaf.shape is None for leaf in leaves)


class RankPolymorphicConcreteFunction:
    def __init__(self, function: Any, leaves: list[Any], treedef: Any):
        self._function = function
        self._template = leaves
        self._treedef = treedef

    def _specialized(self, leaves: list[Any]) -> list[Any]:
        """The template with each unknown-rank spec given the rank of its argument."""
        specialized = []
        for template, leaf in zip(self._template, leaves, strict=True):
            if isinstance(template, TensorSpec) and template.shape is None:
                array = np.asarray(leaf)
                if array.dtype != template.dtype:
                    raise InvalidArgumentError(
                        f"expected a {template.dtype} array, got {array.dtype}"
                    )
                template = TensorSpec((None,) * array.ndim, template.dtype, template.name)
            specialized.append(template)
        return specialized

    def concrete_for(self, *args: Any, **kwargs: Any) -> Any:
        """The ConcreteFunction these arguments run (traced for their ranks)."""
        bound = self._function._signature.bind_partial(*args, **kwargs)
        template = unflatten(self._treedef, self._template)
        for name, value in zip(self._function._names, template, strict=False):
            bound.arguments.setdefault(name, value)  # omitted Python values: the traced ones
        leaves, treedef = flatten(tuple(bound.arguments.values()))
        if treedef != self._treedef:
            raise TypeError("the arguments' structure does not match this ConcreteFunction")
        specs = unflatten(treedef, self._specialized(leaves))
        return self._function.get_concrete_function(*specs)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.concrete_for(*args, **kwargs)(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<tj.ConcreteFunction of {self._function.__name__} for inputs of any rank>"
