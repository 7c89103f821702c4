"""`input_signature=`: one trace for all inputs matching a list of TensorSpecs.

Inputs are converted to the specs' dtypes (Python scalars and lists included, as
`tf.function` does); anything incompatible raises ValueError listing the inputs and
the signature. Only the leading parameters covered by the signature become tensors;
the function may have further parameters with defaults.
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np

from tracejit.frontend.cache_key import leaf_key, native
from tracejit.frontend.structure import flatten, flatten_up_to, unflatten
from tracejit.frontend.tensor_spec import TensorSpec


class InputSignature:
    def __init__(self, specs: Any, signature: inspect.Signature):
        if not isinstance(specs, list | tuple):
            raise TypeError("input_signature must be a list or tuple of tj.TensorSpec")
        spec_leaves, self.treedef = flatten(list(specs))
        for spec in spec_leaves:
            if not isinstance(spec, TensorSpec):
                raise TypeError(f"input_signature must contain only tj.TensorSpec, got {spec!r}")
        parameters = list(signature.parameters.values())
        if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters):
            raise TypeError("a function with **kwargs cannot have an input_signature")
        positional = [
            p.name for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        ]
        if len(specs) > len(positional):
            raise TypeError(
                f"input_signature has {len(specs)} entries but the function takes "
                f"{len(positional)} positional arguments"
            )
        self.specs = tuple(specs)
        self.spec_leaves = spec_leaves
        self.names = positional[: len(specs)]

    def convert(self, bound: inspect.BoundArguments, allow_specs: bool) -> None:
        """Replace the covered arguments by arrays of the specs' dtypes (in place)."""
        values = [bound.arguments[name] for name in self.names]
        try:
            leaves = flatten_up_to(self.treedef, values)
            converted = [
                _convert(v, s, allow_specs) for v, s in zip(leaves, self.spec_leaves, strict=True)
            ]
        except ValueError:
            raise ValueError(self._incompatible(values)) from None
        for name, value in zip(self.names, unflatten(self.treedef, converted), strict=True):
            bound.arguments[name] = value

    def static_key(self, leaves: list[Any]) -> tuple:
        """The key of the arguments the signature does not cover (Python values), and
        the ranks of the arrays given for specs of unknown rank (one trace per rank)."""
        ranks = tuple(
            np.ndim(leaf)
            for leaf, spec in zip(leaves, self.spec_leaves, strict=False)
            if spec.shape is None and not isinstance(leaf, TensorSpec)
        )
        return tuple(leaf_key(leaf) for leaf in leaves[len(self.spec_leaves) :]) + ranks

    def trace_leaves(self, leaves: list[Any]) -> list[Any]:
        """Leaves to trace with: the signature's specs in place of the covered inputs (a
        spec of unknown rank takes the rank of its argument, every dim unknown)."""
        specs = [
            TensorSpec((None,) * np.ndim(leaf), spec.dtype, spec.name)
            if spec.shape is None and not isinstance(leaf, TensorSpec)
            else spec
            for leaf, spec in zip(leaves, self.spec_leaves, strict=False)
        ]
        return specs + leaves[len(self.spec_leaves) :]

    def _incompatible(self, values: list[Any]) -> str:
        inputs = ",\n    ".join(repr(v) for v in values)
        specs = ",\n    ".join(repr(s) for s in self.specs)
        return (
            "Python inputs incompatible with input_signature:\n"
            f"  inputs: (\n    {inputs})\n  input_signature: (\n    {specs})."
        )


def _convert(value: Any, spec: TensorSpec, allow_specs: bool) -> Any:
    if isinstance(value, TensorSpec):
        if not allow_specs or value.dtype != spec.dtype or not _shapes_compatible(value, spec):
            raise ValueError("incompatible spec")
        return value
    if isinstance(value, np.ndarray | np.generic):
        array = np.asarray(value)
        if native(array.dtype) != spec.dtype:
            raise ValueError("dtype mismatch")
    else:  # Python scalars and (nested) lists are converted, as tf.function does
        source = np.asarray(value)
        if source.dtype == object or not np.can_cast(source.dtype, spec.dtype, "same_kind"):
            raise ValueError("cannot convert")
        array = np.asarray(value, dtype=spec.dtype)
    if not spec.is_compatible_with(array):
        raise ValueError("shape mismatch")
    return value if isinstance(value, np.ndarray | np.generic) else array


def _shapes_compatible(value: TensorSpec, spec: TensorSpec) -> bool:
    if spec.shape is None or value.shape is None:
        return spec.shape is None or value.shape is None
    return len(value.shape) == len(spec.shape) and all(
        s is None or s == v for v, s in zip(value.shape, spec.shape, strict=True)
    )
