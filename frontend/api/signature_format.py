"""Describing a trace's inputs and outputs the way `tf.function` does.

structured_input_signature  ((TensorSpec(shape=(), dtype=float32, name='a'),), {})
pretty_printed_signature()  Input Parameters: / Output Type: / Captures: sections
"""

from __future__ import annotations

import inspect
from typing import Any

from tracejit.frontend.staging.tensor_spec import TensorSpec
from tracejit.runtime.structure import TreeDef, unflatten


def named_leaves(treedef: TreeDef, leaves: list[object], names: list[str]) -> list[object]:
    """TensorSpec leaves renamed after their parameter (`x`, or `x_1`, `x_2` when nested)."""
    named, position = list(leaves), 0
    for name, child in zip(names, treedef.children, strict=False):
        count = child.num_leaves
        for i in range(count):
            leaf = named[position + i]
            if isinstance(leaf, TensorSpec):
                label = name if child.kind == "leaf" else f"{name}_{i + 1}"
                named[position + i] = TensorSpec(leaf.shape, leaf.dtype, label)
        position += count
    return named


def split_arguments(
    signature: inspect.Signature, values: tuple[Any, ...]
) -> tuple[tuple[object, ...], dict[str, object]]:
    """Bound argument values (in parameter order) -> (args, kwargs) as a call would pass."""
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    for parameter, value in zip(signature.parameters.values(), values, strict=True):
        if parameter.kind is parameter.VAR_POSITIONAL:
            args.extend(value)
        elif parameter.kind is parameter.VAR_KEYWORD:
            kwargs.update(value)
        elif parameter.kind is parameter.KEYWORD_ONLY:
            kwargs[parameter.name] = value
        else:
            args.append(value)
    return tuple(args), kwargs


def pretty_signature(
    signature: inspect.Signature, treedef: TreeDef, leaves: list[Any], outputs: object
) -> str:
    names = list(signature.parameters)
    values = unflatten(treedef, named_leaves(treedef, leaves, names))
    lines = ["Input Parameters:"]
    for parameter, value in zip(signature.parameters.values(), values, strict=True):
        shown = _describe(value)
        lines.append(f"  {parameter.name} ({parameter.kind.name}): {shown}")
    lines += ["Output Type:", f"  {_describe(outputs)}", "Captures:", "  None"]
    return "\n".join(lines)


def _describe(value: object) -> str:
    if isinstance(value, TensorSpec):
        return repr(TensorSpec(value.shape, value.dtype))
    if isinstance(value, list | tuple) and not hasattr(value, "_fields"):
        inner = ", ".join(_describe(v) for v in value)
        kind = "List" if isinstance(value, list) else "Tuple"
        return f"{kind}[{inner}]"
    if isinstance(value, dict):
        inner = ", ".join(f"{k!r}: {_describe(v)}" for k, v in value.items())
        return f"Dict[{inner}]"
    return f"Literal[{value!r}]"
