"""`tj.Module`: a base class for objects that hold Variables, Functions and other Modules
(like `tf.Module`).

A Module finds its state by walking its attributes (`saved_model/object_graph.py`): no
registration, so `self.dense = Dense(...)` or `self.layers = [...]` is all a subclass does.
`tj.saved_model.save` walks a Module the same way.
"""

from __future__ import annotations

import re
from typing import Any


class Module:
    """A named container of `tj.Variable`s, `tj.Function`s and sub-Modules.

    `variables`, `trainable_variables` and `submodules` are found by walking the attributes
    (lists, tuples and dicts included), each object once."""

    def __init__(self, name: str | None = None):
        self._name = name

    @property
    def name(self) -> str:
        name = getattr(self, "_name", None)  # a subclass may not call Module.__init__
        if name:
            return name
        return re.sub(r"(?<!^)(?=[A-Z])", "_", type(self).__name__).lower()

    @property
    def variables(self) -> tuple[Any, ...]:
        """Every tj.Variable of this Module and its sub-Modules, each once."""
        from tracejit.frontend.api.object_graph import VariableNode, leaves, walk

        found = {
            id(node.variable): node.variable
            for node in leaves(walk(self))
            if isinstance(node, VariableNode)
        }
        return tuple(found.values())

    @property
    def trainable_variables(self) -> tuple[Any, ...]:
        return tuple(v for v in self.variables if v.trainable)

    @property
    def submodules(self) -> tuple[Module, ...]:
        """Every tj.Module reachable from this one (not itself)."""
        from tracejit.frontend.api.object_graph import modules

        return tuple(modules(self))

    def __repr__(self) -> str:
        return f"<tj.Module '{self.name}'>"
