"""`input_signature=`: one trace for all inputs matching a list of TensorSpecs.

Inputs are converted to the specs' dtypes (Python scalars and lists included, as
`tf.function` does); anything incompatible raises ValueError listing the inputs and
the signature. Only the leading parameters covered by the signature become tensors;
the function may have further parameters with defaults. Entries beyond the named
parameters describe `*args`, which must then hold exactly that many.

On a method the signature describes the parameters after `self` (as in TensorFlow,
where `tf.Module` methods are exported this way): `skip=1` leaves the bound instance
out of the signature; it stays a leaf keyed by identity, so traces are per instance.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from tracejit.frontend.api.cache_key import leaf_key, native
from tracejit.frontend.staging.source_location import at_user_line
from tracejit.frontend.staging.tensor import Tensor
from tracejit.frontend.staging.tensor_spec import TensorSpec
from tracejit.runtime.structure import TreeDef, flatten, flatten_up_to, leaf_owner, unflatten


class InputSignature:
    def __init__(self, specs: object, signature: inspect.Signature, skip: int = 0):
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
        if len(positional) < skip:
            raise TypeError(
                f"a method with an input_signature needs a parameter for the instance, but "
                f"the function takes {len(positional)} positional arguments"
            )
        varargs = [p.name for p in parameters if p.kind is p.VAR_POSITIONAL]
        if len(specs) > len(positional) - skip and not varargs:
            after = " after the instance" if skip else ""
            raise TypeError(
                f"input_signature has {len(specs)} entries but the function takes "
                f"{len(positional) - skip} positional arguments{after}"
            )
        self.specs = tuple(specs)
        self.spec_leaves = spec_leaves
        self.skip = skip
        self.names = positional[skip : skip + len(specs)]
        # Entries beyond the named parameters describe `*args`, which must then hold exactly
        # that many (as in TensorFlow): `def f(*xs)` with two specs takes two tensors.
        self.extra = len(specs) - len(self.names)
        self.varargs = varargs[0] if self.extra else None
        # Part of every cache key, so a method's traces and plain calls never mix.
        self.key_tag = "method_input_signature" if skip else "input_signature"
        self.has_unknown_rank = any(spec.shape is None for spec in spec_leaves)

    def convert(self, bound: inspect.BoundArguments, allow_specs: bool) -> None:
        """Replace the covered arguments by arrays of the specs' dtypes (in place)."""
        values = [bound.arguments[name] for name in self.names]
        if self.varargs is not None:
            rest = bound.arguments.get(self.varargs, ())
            if len(rest) != self.extra:
                raise TypeError(
                    at_user_line(
                        f"the input_signature has {len(self.specs)} entries, and the function "
                        f"was called with {len(values) + len(rest)} positional arguments"
                    )
                )
            values += list(rest)
        try:
            leaves = flatten_up_to(self.treedef, values)
        except ValueError:
            raise ValueError(self._incompatible(values)) from None
        converted = []
        for index, (value, spec) in enumerate(zip(leaves, self.spec_leaves, strict=True)):
            try:
                converted.append(_convert(value, spec, allow_specs))
            except ValueError as error:
                extra = [f"{self.varargs}[{i}]" for i in range(self.extra)]
                name = leaf_owner(self.treedef, self.names + extra, index)
                which = f"argument '{name}' was declared {spec!r}, but {error}"
                raise ValueError(self._incompatible(values, at_user_line(which))) from None
        values = unflatten(self.treedef, converted)
        for name, value in zip(self.names, values, strict=False):
            bound.arguments[name] = value
        if self.varargs is not None:
            bound.arguments[self.varargs] = tuple(values[len(self.names) :])

    def _span(self, treedef: TreeDef) -> tuple[int, int]:
        """Where the covered inputs are among the leaves of all the arguments (after the
        leaves of the skipped instance, which may itself be a container)."""
        start = sum(child.num_leaves for child in treedef.children[: self.skip])
        return start, start + len(self.spec_leaves)

    def static_key(
        self, leaves: list[object], treedef: TreeDef, on_death: Callable[[Any], None] | None = None
    ) -> tuple:
        """The key of the arguments the signature does not cover (Python values, and the
        instance of a method), and the ranks of the inputs given for specs of unknown rank
        (one trace per rank)."""
        start, stop = self._span(treedef)
        ranks = tuple(
            rank(leaf)
            for leaf, spec in zip(leaves[start:stop], self.spec_leaves, strict=True)
            if spec.shape is None
        )
        others = leaves[:start] + leaves[stop:]
        # NumPy scalars are immutable and 0-d arrays are not (`y = x; y += 1`): one trace each
        scalars = tuple(i for i, leaf in enumerate(leaves[start:stop]) if _is_scalar(leaf))
        return (
            tuple(leaf_key(leaf, on_death) for leaf in others)
            + ranks
            + ((("numpy scalars", scalars),) if scalars else ())
        )

    def template_key(
        self, leaves: list[object], treedef: TreeDef, on_death: Callable[[Any], None] | None = None
    ) -> tuple:
        """`static_key` without the ranks: what the one ConcreteFunction of a signature
        of unknown rank is keyed by."""
        start, stop = self._span(treedef)
        others = leaves[:start] + leaves[stop:]
        return (self.key_tag,) + tuple(leaf_key(leaf, on_death) for leaf in others)

    def template_leaves(self, leaves: list[object], treedef: TreeDef) -> list[object]:
        """The leaves with the signature's own specs in place of the covered inputs."""
        start, stop = self._span(treedef)
        return leaves[:start] + list(self.spec_leaves) + leaves[stop:]

    def trace_leaves(self, leaves: list[object], treedef: TreeDef) -> list[object]:
        """Leaves to trace with: the signature's specs in place of the covered inputs (a
        spec of unknown rank takes the rank of its argument, every dim unknown)."""
        start, stop = self._span(treedef)
        specs = [
            TensorSpec(_unknown_dims(leaf), spec.dtype, spec.name) if spec.shape is None else spec
            for leaf, spec in zip(leaves[start:stop], self.spec_leaves, strict=True)
        ]
        return leaves[:start] + specs + leaves[stop:]

    def _incompatible(self, values: list[object], which: str = "") -> str:
        inputs = ",\n    ".join(repr(v) for v in values)
        specs = ",\n    ".join(repr(s) for s in self.specs)
        return (
            f"Python inputs incompatible with input_signature: {which}\n"
            f"  inputs: (\n    {inputs})\n  input_signature: (\n    {specs})."
        )


def _unknown_dims(leaf: object) -> tuple[None, ...]:
    """Every dim of `leaf` unknown (a spec of unknown rank is not traced)."""
    n = rank(leaf)
    assert n is not None
    return (None,) * n


def rank(leaf: Any) -> int | None:
    """The rank of an input: None for a TensorSpec of unknown rank."""
    if isinstance(leaf, TensorSpec):
        return None if leaf.shape is None else len(leaf.shape)
    return np.ndim(leaf)


def _convert(value: object, spec: TensorSpec, allow_specs: bool) -> object:
    if isinstance(value, TensorSpec):
        if not allow_specs or value.dtype != spec.dtype or not _shapes_compatible(value, spec):
            raise ValueError(f"got {value!r}")
        return value
    if isinstance(value, Tensor):  # called from inside another traced function
        described = TensorSpec(value.shape, value.dtype)
        if value.dtype != spec.dtype or not _shapes_compatible(described, spec):
            raise ValueError(f"got a tensor of dtype {value.dtype} and shape {value.shape}")
        return value
    if isinstance(value, np.ndarray | np.generic):
        array = np.asarray(value)
        if native(array.dtype) != spec.dtype:
            raise ValueError(f"got {_describe(array)}")
    else:  # Python scalars and (nested) lists are converted, as tf.function does
        source = np.asarray(value)
        if source.dtype == object or not np.can_cast(source.dtype, spec.dtype, "same_kind"):
            raise ValueError(f"got {value!r}, which does not convert to {spec.dtype}")
        array = np.asarray(value, dtype=spec.dtype)
    if not spec.is_compatible_with(array):
        raise ValueError(f"got {_describe(array)}")
    if isinstance(value, np.ndarray | np.generic):
        return value
    return array[()] if array.ndim == 0 else array  # a Python number: a scalar, immutable


def _describe(array: np.ndarray) -> str:
    return f"an array of dtype {array.dtype} and shape {array.shape}"


def _is_scalar(leaf: object) -> bool:
    return isinstance(leaf, np.generic)


def _shapes_compatible(value: TensorSpec, spec: TensorSpec) -> bool:
    if spec.shape is None or value.shape is None:
        return spec.shape is None or value.shape is None
    return len(value.shape) == len(spec.shape) and all(
        s is None or s == v for v, s in zip(value.shape, spec.shape, strict=True)
    )
