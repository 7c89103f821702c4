"""The one ConcreteFunction for inputs of unknown rank (`TensorSpec(shape=None)`).

`tf.function(f, input_signature=[tf.TensorSpec(shape=None, ...)])` has one concrete
function, whatever the rank of the arguments. Machine code needs the rank, so that one
object (which a Function keeps per signature and hands out from every
`get_concrete_function`) holds a trace per rank: a call looks at the ranks of the
arrays passed where the spec said `shape=None` and runs the trace for those ranks (all
dims unknown), which the Function traces on first use. Its signature shows the specs
of unknown rank; its outputs are the traces' outputs, with what differs between ranks
unknown.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from tracejit.frontend.api.cache_key import IdentityKey, is_tensor_leaf, leaf_key, native, spec_of
from tracejit.frontend.api.input_signature import rank
from tracejit.frontend.api.signature_format import named_leaves, pretty_signature, split_arguments
from tracejit.frontend.staging.tensor_spec import TensorSpec
from tracejit.runtime.errors import InvalidArgumentError
from tracejit.runtime.structure import TreeDef, flatten, unflatten

_NOT_TRACED = object()  # structured outputs before any rank was traced


def has_unknown_rank(leaves: list[object]) -> bool:
    return any(isinstance(leaf, TensorSpec) and leaf.shape is None for leaf in leaves)


class RankPolymorphicConcreteFunction:
    """One ConcreteFunction for arguments of any rank where a spec has `shape=None`."""

    def __init__(
        self,
        name: str,
        signature: inspect.Signature,
        template: list[object],
        treedef: TreeDef,
        specialise: Callable[[list[object]], object],
    ):
        self._name = name
        self._signature = signature
        self._names = list(signature.parameters)
        # Specs, Python values, and other objects (a method's instance) only through their
        # weak identity key, so this object, kept by the Function, never keeps them alive.
        self._template = [_template_leaf(leaf) for leaf in template]
        self._treedef = treedef
        self._specialise = specialise  # specs of known rank -> the Function's trace of them
        self._by_ranks: dict[tuple[int, ...], object] = {}

    # --- the trace for given ranks -------------------------------------------------------
    def concrete_for(self, *args: object, **kwargs: object) -> Any:
        """The ConcreteFunction (of one rank) these arguments run, traced if need be."""
        return self.concrete_for_leaves(self._leaves_of(args, kwargs))

    def concrete_for_leaves(self, leaves: list[object]) -> Any:
        ranks, specialised = [], []
        for template, leaf in zip(self._template, leaves, strict=True):
            if isinstance(template, TensorSpec) and template.shape is None:
                ranks.append(self._rank_of(leaf, template))
                template = TensorSpec((None,) * ranks[-1], template.dtype, template.name)
            elif isinstance(template, IdentityKey):
                template = _live(template)
            specialised.append(template)
        ranks_key = tuple(ranks)
        concrete = self._by_ranks.get(ranks_key)
        if concrete is None:
            concrete = self._by_ranks[ranks_key] = self._specialise(specialised)
        return concrete

    def concrete_functions(self) -> list[Any]:
        """The traces made so far, one per combination of ranks."""
        return list(self._by_ranks.values())

    def _rank_of(self, leaf: object, spec: TensorSpec) -> int:
        if isinstance(leaf, TensorSpec):
            if leaf.shape is None:
                raise TypeError("a concrete function needs the rank of every input to run")
            if leaf.dtype != spec.dtype:
                raise InvalidArgumentError(f"expected a {spec.dtype} input, got {leaf.dtype}")
            return len(leaf.shape)
        dtype = native(np.asarray(leaf).dtype)
        if dtype != spec.dtype:
            raise InvalidArgumentError(f"expected a {spec.dtype} array, got {dtype}")
        n = rank(leaf)
        assert n is not None  # `leaf` is not a TensorSpec
        return n

    def _leaves_of(self, args: tuple, kwargs: dict) -> list[object]:
        """The argument leaves of a call; omitted arguments traced as Python values take
        the traced values, as with any ConcreteFunction."""
        try:
            bound = self._signature.bind_partial(*args, **kwargs)
            values = unflatten(self._treedef, self._template)
            for name, value, child in zip(
                self._names, values, self._treedef.children, strict=False
            ):
                if name not in bound.arguments and child.kind == "leaf" and _is_python(value):
                    bound.arguments[name] = value
            bound = self._signature.bind(*bound.args, **bound.kwargs)
        except TypeError as error:
            raise TypeError(f"{self._call_name()}: {error}") from None
        bound.apply_defaults()
        leaves, treedef = flatten(tuple(bound.arguments.values()))
        if treedef != self._treedef:
            raise TypeError(
                f"ConcreteFunction {self._call_name()} was called with arguments of a "
                "different structure than it was traced with"
            )
        return leaves

    def __call__(self, *args: object, **kwargs: object) -> Any:
        return self.concrete_for(*args, **kwargs)(*args, **kwargs)

    # --- introspection, as a ConcreteFunction ----------------------------------------------
    @property
    def structured_input_signature(self) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """`((TensorSpec(shape=None, dtype=float32, name='x'),), {})`: args and kwargs."""
        leaves = named_leaves(self._treedef, self._template, self._names)
        return split_arguments(self._signature, unflatten(self._treedef, leaves))

    @property
    def structured_outputs(self) -> Any:
        """The outputs of the ranks traced so far, dims (or ranks) that differ unknown;
        None before the first call."""
        outputs = self._merged_outputs()
        return None if outputs is _NOT_TRACED else outputs

    def pretty_printed_signature(self) -> str:
        outputs = self._merged_outputs()
        shown = None if outputs is _NOT_TRACED else outputs
        text = pretty_signature(self._signature, self._treedef, self._template, shown)
        if outputs is _NOT_TRACED:
            lines = text.split("\n")
            lines[lines.index("Output Type:") + 1] = "  known once called (traced per input rank)"
            text = "\n".join(lines)
        return text

    def _merged_outputs(self) -> object:
        structures = [c.structured_outputs for c in self.concrete_functions()]
        if not structures:
            return _NOT_TRACED
        flat = [flatten(s) for s in structures]
        treedef = flat[0][1]
        if any(t != treedef for _, t in flat):
            return _NOT_TRACED  # the structure itself depends on the rank
        columns = zip(*(leaves for leaves, _ in flat), strict=True)
        merged = [_merge_leaves(column) for column in columns]
        if any(leaf is _NOT_TRACED for leaf in merged):
            return _NOT_TRACED
        return unflatten(treedef, merged)

    def _call_name(self) -> str:
        return f"{self._name}({', '.join(self._names)})"

    def __repr__(self) -> str:
        return f"ConcreteFunction {self._call_name()}\n{self.pretty_printed_signature()}"


def _template_leaf(leaf: object) -> object:
    if isinstance(leaf, TensorSpec):
        return leaf
    if is_tensor_leaf(leaf):  # an array given next to a spec of unknown rank: its spec
        return spec_of(leaf)
    key = leaf_key(leaf)
    return key if isinstance(key, IdentityKey) else leaf


def _is_python(value: object) -> bool:
    return not isinstance(value, TensorSpec | IdentityKey)


def _live(key: IdentityKey) -> Any:
    target = key.ref() if key.ref is not None else key.strong
    if target is None:
        raise TypeError(f"the object {key!r} this ConcreteFunction was traced for no longer exists")
    return target


def _merge_leaves(column: tuple) -> object:
    """One output leaf over every traced rank: a spec with the differing dims unknown (an
    unknown rank if the ranks differ), or the Python value all of them return."""
    first = column[0]
    if all(isinstance(leaf, TensorSpec) for leaf in column):
        if any(leaf.dtype != first.dtype for leaf in column):
            return _NOT_TRACED
        shapes = {leaf.shape for leaf in column}
        if None in shapes or len({len(shape) for shape in shapes}) > 1:
            return TensorSpec(None, first.dtype)
        dims = zip(*shapes, strict=True)
        return TensorSpec([ds[0] if len(set(ds)) == 1 else None for ds in dims], first.dtype)
    if all(_same(leaf, first) for leaf in column):
        return first
    return _NOT_TRACED


def _same(a: object, b: object) -> bool:
    try:
        return a is b or bool(type(a) is type(b) and a == b)
    except Exception:  # noqa: BLE001 - values without a plain truth value differ
        return False
