"""Flattening nested Python values (lists, tuples, dicts, namedtuples) into leaves.

Arguments and results of traced functions may be any nesting of containers; tracing
works on the flat list of leaves and rebuilds the structure afterwards. A `TreeDef`
is hashable, so it can be part of a cache key.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol, cast


class _Custom(Protocol):
    """A "custom" node (e.g. tj.TensorArray): its type defines the two hooks."""

    def __tj_flatten__(self) -> tuple[Any, list[Any]]: ...


@dataclass(frozen=True)
class TreeDef:
    """The shape of a nested value: a container kind, its keys, and its children."""

    kind: str  # "leaf", "list", "tuple", "dict", "namedtuple", "custom" (__tj_flatten__)
    node_type: type | None = None
    keys: tuple = ()
    children: tuple[TreeDef, ...] = ()

    @property
    def num_leaves(self) -> int:
        if self.kind == "leaf":
            return 1
        return sum(c.num_leaves for c in self.children)


LEAF = TreeDef("leaf")


def _is_namedtuple(value: object) -> bool:
    return isinstance(value, tuple) and hasattr(type(value), "_fields")


def flatten(value: object) -> tuple[list[Any], TreeDef]:
    leaves: list[Any] = []
    return leaves, _flatten_into(value, leaves)


def _flatten_into(value: Any, leaves: list[Any]) -> TreeDef:
    if _is_namedtuple(value):
        children = tuple(_flatten_into(v, leaves) for v in value)
        return TreeDef("namedtuple", type(value), tuple(value._fields), children)
    if isinstance(value, list | tuple):
        children = tuple(_flatten_into(v, leaves) for v in value)
        return TreeDef(
            type(value).__name__ if type(value) in (list, tuple) else "tuple", None, (), children
        )
    if isinstance(value, dict):
        keys = tuple(sorted(value, key=repr))
        children = tuple(_flatten_into(value[k], leaves) for k in keys)
        return TreeDef("dict", None, keys, children)
    if hasattr(type(value), "__tj_flatten__"):  # e.g. tj.TensorArray: its tensors are leaves
        key, parts = value.__tj_flatten__()
        children = tuple(_flatten_into(v, leaves) for v in parts)
        return TreeDef("custom", type(value), key, children)
    leaves.append(value)
    return LEAF


def unflatten(treedef: TreeDef, leaves: Iterable[object]) -> Any:
    iterator = iter(leaves)
    result = _build(treedef, iterator)
    return result


def _build(treedef: TreeDef, leaves: Iterator[object]) -> Any:
    if treedef.kind == "leaf":
        return next(leaves)
    children = [_build(c, leaves) for c in treedef.children]
    if treedef.kind == "list":
        return children
    if treedef.kind == "tuple":
        return tuple(children)
    if treedef.kind == "namedtuple":
        return treedef.node_type(*children)  # type: ignore[misc]  # node_type is the namedtuple class
    if treedef.kind == "custom":
        return treedef.node_type.__tj_unflatten__(treedef.keys, children)  # type: ignore[union-attr]  # node_type defines __tj_unflatten__ here
    return dict(zip(treedef.keys, children, strict=True))


def map_leaves(fn: Callable[[object], object], value: object) -> Any:
    leaves, treedef = flatten(value)
    return unflatten(treedef, [fn(leaf) for leaf in leaves])


def flatten_up_to(treedef: TreeDef, value: object) -> list[Any]:
    """The sub-values of `value` at the leaves of `treedef` (a leaf takes a whole list).

    Raises ValueError when `value` does not have the structure `treedef` describes."""
    if treedef.kind == "leaf":
        return [value]
    if treedef.kind == "dict":
        if not isinstance(value, dict) or set(value) != set(treedef.keys):
            raise ValueError("structure mismatch")
        children = [value[k] for k in treedef.keys]
    elif treedef.kind == "custom":
        if type(value) is not treedef.node_type:
            raise ValueError("structure mismatch")
        children = cast(_Custom, value).__tj_flatten__()[1]
    else:
        if not isinstance(value, list | tuple) or len(value) != len(treedef.children):
            raise ValueError("structure mismatch")
        children = list(value)
    leaves: list[Any] = []
    for child_def, child in zip(treedef.children, children, strict=True):
        leaves.extend(flatten_up_to(child_def, child))
    return leaves


def leaf_owner(treedef: TreeDef, names: Iterable[str], index: int, missing: str = "?") -> str:
    """The name (of `names`, one per child of `treedef`: the arguments) whose value holds
    leaf number `index`."""
    for name, child in zip(names, treedef.children, strict=False):
        if index < child.num_leaves:
            return name
        index -= child.num_leaves
    return missing
