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
    """A named container of `tj.Variable`s, `tj.Function`s and sub-Modules (like `tf.Module`).

    Subclass it and keep state in attributes: `variables`, `trainable_variables` and
    `submodules` are found by walking the attributes (lists, tuples and dicts included),
    each object once, with no registration. `tj.saved_model.save` walks a Module the same
    way. A `@tj.function` method traces once per instance.

    Parameters
    ----------
    name : str, optional
        The Module's name; by default its class name in snake_case.

    Examples
    --------
    >>> class Dense(tj.Module):
    ...     def __init__(self, n_in, n_out):
    ...         super().__init__()
    ...         self.w = tj.Variable(np.ones((n_in, n_out)), name="w")
    ...         self.b = tj.Variable(np.zeros(n_out), name="b")
    ...     @tj.function
    ...     def __call__(self, x):
    ...         return x @ self.w + self.b
    >>> layer = Dense(2, 3)
    >>> layer(np.array([[1.0, 2.0]]))
    array([[3., 3., 3.]])
    >>> layer, sorted(v.name for v in layer.variables)
    (<tj.Module 'dense'>, ['b:0', 'w:0'])
    """

    def __init__(self, name: str | None = None):
        self._name = name

    @property
    def name(self) -> str:
        """The name given to `__init__`, else the class name in snake_case.

        >>> class ResidualBlock(tj.Module):
        ...     pass
        >>> ResidualBlock().name, ResidualBlock(name="block1").name
        ('residual_block', 'block1')
        """
        name = getattr(self, "_name", None)  # a subclass may not call Module.__init__
        if name:
            return name
        return re.sub(r"(?<!^)(?=[A-Z])", "_", type(self).__name__).lower()

    @property
    def variables(self) -> tuple[Any, ...]:
        """Every tj.Variable of this Module and its sub-Modules, each once.

        >>> class Scale(tj.Module):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.factors = [tj.Variable(2.0, name="a"), tj.Variable(3.0, name="b")]
        >>> [v.name for v in Scale().variables]
        ['a:0', 'b:0']
        """
        from tracejit.frontend.api.object_graph import VariableNode, leaves, walk

        found = {
            id(node.variable): node.variable
            for node in leaves(walk(self))
            if isinstance(node, VariableNode)
        }
        return tuple(found.values())

    @property
    def trainable_variables(self) -> tuple[Any, ...]:
        """The `variables` made with `trainable=True` (the default).

        >>> class Model(tj.Module):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.w = tj.Variable(1.0, name="w")
        ...         self.steps = tj.Variable(0, name="steps", trainable=False)
        >>> [v.name for v in Model().trainable_variables]
        ['w:0']
        """
        return tuple(v for v in self.variables if v.trainable)

    @property
    def submodules(self) -> tuple[Module, ...]:
        """Every tj.Module reachable from this one (not itself).

        >>> class Leaf(tj.Module):
        ...     pass
        >>> class Tree(tj.Module):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.children = {"left": Leaf(), "right": Leaf(name="right")}
        >>> Tree().submodules
        (<tj.Module 'leaf'>, <tj.Module 'right'>)
        """
        from tracejit.frontend.api.object_graph import modules

        return tuple(modules(self))

    def __repr__(self) -> str:
        return f"<tj.Module '{self.name}'>"
