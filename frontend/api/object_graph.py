"""Finding what an object holds that `save` can save: `tj.Function`s and `tj.Variable`s
reachable through its attributes, with paths such as `model.dense.kernel`.

The walk follows, like tf.Module's: the attributes of the root object and of every
`tj.Module` under it (instance attributes in name order, then methods that are
`tj.Function`s), and the items of lists, tuples and dicts (str or int keys). Other objects
are not entered: their state is not the model's. An object reached twice is walked once
(at its first path), so cycles end.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from tracejit.frontend.api.concrete_function import ConcreteFunction
from tracejit.frontend.api.function import BoundConcreteFunction, BoundFunction, Function
from tracejit.frontend.api.rank_polymorphic import RankPolymorphicConcreteFunction
from tracejit.frontend.staging.variable import Variable


@dataclass
class FunctionNode:
    path: str
    function: Any  # a Function, ConcreteFunction, or a LoadedFunction (saved again)
    instance: object = None  # the object of a method (its traces for that object are saved)


@dataclass
class VariableNode:
    path: str
    variable: Variable


@dataclass
class ObjectNode:
    path: str
    attributes: dict[str, Node] = field(default_factory=dict)


@dataclass
class ContainerNode:
    path: str
    kind: str  # "list", "tuple" or "dict"
    items: list[tuple[object, Node]] = field(default_factory=list)


Node = FunctionNode | VariableNode | ObjectNode | ContainerNode


def walk(obj: object, root_name: str = "") -> Node | None:
    """The tree of what `obj` holds (None if it holds nothing saveable)."""
    return _walk(obj, root_name, set(), is_root=True)


def _walk(obj: object, path: str, seen: set[int], is_root: bool = False) -> Node | None:
    if isinstance(obj, Variable):
        return VariableNode(path, obj)
    if isinstance(obj, Function | ConcreteFunction | RankPolymorphicConcreteFunction):
        return FunctionNode(path, obj)
    if _is_loaded_function(obj):
        return FunctionNode(path, obj)
    if isinstance(obj, BoundFunction):
        return FunctionNode(path, obj._function, obj._instance)
    if isinstance(obj, BoundConcreteFunction) and isinstance(obj._concrete, ConcreteFunction):
        return FunctionNode(path, obj._concrete, obj._instance)
    if id(obj) in seen:
        return None
    if isinstance(obj, list | tuple | dict):
        seen.add(id(obj))
        return _container(obj, path, seen)
    if not (is_root or is_module(obj)):
        return None
    seen.add(id(obj))
    node = ObjectNode(path)
    for name, value in attributes(obj):
        child = _walk(value, _join(path, name), seen)
        if child is not None:
            node.attributes[name] = child
    return node if node.attributes or is_root else None


def _container(obj: Any, path: str, seen: set[int]) -> ContainerNode | None:
    kind = "dict" if isinstance(obj, dict) else ("list" if isinstance(obj, list) else "tuple")
    items = obj.items() if isinstance(obj, dict) else enumerate(obj)
    node = ContainerNode(path, kind)
    for key, value in items:
        if type(key) not in (str, int):
            continue
        child = _walk(value, _join(path, str(key)), seen)
        if child is not None:
            node.items.append((key, child))
    return node if node.items else None


def _is_loaded_function(obj: object) -> bool:
    """A Function loaded from a SavedModel (export/saved_model/loaded.py marks its class)."""
    return getattr(type(obj), "saved_function", False)


def is_module(obj: object) -> bool:
    from tracejit.frontend.api.module import Module

    return isinstance(obj, Module)


def attributes(obj: object) -> Iterator[tuple[str, object]]:
    """The instance attributes of `obj` by name, then its methods that are tj.Functions
    (bound to `obj`)."""
    names = set()
    skipped: frozenset[str] = getattr(type(obj), "not_saved_attributes", frozenset())
    for name, value in sorted(getattr(obj, "__dict__", {}).items()):
        if name in skipped:
            continue  # a loaded object's named entry points: `save` saves them as such again
        names.add(name)
        yield name, value
    for klass in type(obj).__mro__:
        for name, value in sorted(vars(klass).items()):
            if name in names or not isinstance(value, Function):
                continue
            names.add(name)
            yield name, value.__get__(obj, type(obj))


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def leaves(node: Node | None) -> Iterator[FunctionNode | VariableNode]:
    """The functions and variables of a tree, in walk order."""
    if node is None:
        return
    if isinstance(node, FunctionNode | VariableNode):
        yield node
    elif isinstance(node, ObjectNode):
        for child in node.attributes.values():
            yield from leaves(child)
    else:
        for _, child in node.items:
            yield from leaves(child)


def modules(obj: object) -> list[Any]:
    """Every tj.Module reachable from `obj` (not `obj` itself), in walk order."""
    found: list[Any] = []
    _collect_modules(obj, set(), found, is_root=True)
    return found


def _collect_modules(
    obj: object, seen: set[int], found: list[object], is_root: bool = False
) -> None:
    if id(obj) in seen:
        return
    if isinstance(obj, list | tuple | dict):
        seen.add(id(obj))
        for value in obj.values() if isinstance(obj, dict) else obj:
            _collect_modules(value, seen, found)
    elif is_root or is_module(obj):
        seen.add(id(obj))
        if not is_root:
            found.append(obj)
        for _, value in sorted(getattr(obj, "__dict__", {}).items()):
            _collect_modules(value, seen, found)
