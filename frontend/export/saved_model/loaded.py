"""What `tj.saved_model.load` returns: functions that dispatch on their inputs to the
saved concrete functions, and objects that hold them and the restored Variables.

A `LoadedFunction` is called like the saved `tj.Function`; it never traces (there is no
Python source to trace): a call whose arguments fit none of the saved signatures raises
`ValueError` listing the signatures it has, as TensorFlow's loaded functions do. Arrays
must have a saved dtype and a shape the spec accepts; Python numbers and lists are
converted to the spec's dtype when NumPy can do so without changing kind.
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np

from tracejit.frontend.api.cache_key import leaf_key
from tracejit.frontend.api.concrete_function import ConcreteFunction
from tracejit.frontend.api.module import Module
from tracejit.frontend.export.saved_model.encoding import same_structure
from tracejit.frontend.staging.tensor_spec import TensorSpec
from tracejit.runtime.fast_path import SLOW_PATH
from tracejit.runtime.structure import flatten


class LoadedFunction:
    """A saved `tj.Function`: its concrete functions, chosen by the call's arguments."""

    saved_function = True  # saved again as a function (frontend/api/object_graph.py)

    def __init__(self, name: str, concretes: list[ConcreteFunction], used_object_code: list[bool]):
        self.__name__ = name
        self.concrete_functions = list(concretes)
        # per concrete function: whether it runs the saved machine code (else it compiles
        # from its IR on first use)
        self.used_object_code = list(used_object_code)
        # Traces whose every parameter is one array: only a call passing exactly those may
        # take their fast path (a trace with a Python value baked in must not answer a call
        # that leaves that value to its default).
        self._all_array_traces = [
            c
            for c in concretes
            if not c.record.static_keys
            and all(t.kind == "leaf" for t in c.record.arg_treedef.children)
        ]

    def __call__(self, *args: object, **kwargs: object) -> Any:
        if not kwargs:  # arrays that fit a compiled trace exactly: its entry point checks them
            for concrete in self._all_array_traces:
                fast = concrete.fast_call
                if fast is not None:
                    result = fast(args)
                    if result is not SLOW_PATH:
                        return result
        only = len(self.concrete_functions) == 1
        for concrete in self.concrete_functions:
            leaves = _matching_leaves(concrete, args, kwargs, fill_traced=only)
            if leaves is not None:
                return concrete.call_leaves(leaves)
        raise ValueError(
            f"Could not find a saved concrete function of '{self.__name__}' for the arguments "
            f"{_describe_call(args, kwargs)}. It was saved with these signatures:\n\n"
            + self.pretty_printed_concrete_signatures()
            + "\n\nPass arrays of one of these dtypes and shapes (a loaded function cannot "
            "trace new signatures: its Python source is not saved)."
        )

    def get_concrete_function(self, *args: object, **kwargs: object) -> ConcreteFunction:
        """The saved concrete function these arguments (arrays or TensorSpecs) select."""
        only = len(self.concrete_functions) == 1
        for concrete in self.concrete_functions:
            if _matching_leaves(concrete, args, kwargs, True, only) is not None:
                return concrete
        raise ValueError(
            f"'{self.__name__}' has no saved concrete function for "
            f"{_describe_call(args, kwargs)}"
        )

    def pretty_printed_concrete_signatures(self) -> str:
        return "\n\n".join(c.pretty_printed_signature() for c in self.concrete_functions)

    def __repr__(self) -> str:
        return f"<loaded tj.Function {self.__name__} ({len(self.concrete_functions)} signatures)>"


def _matching_leaves(
    concrete: ConcreteFunction,
    args: tuple,
    kwargs: dict,
    allow_specs: bool = False,
    fill_traced: bool = False,
) -> list[object] | None:
    """The argument leaves of a call of `concrete`, converted to its specs; None if the
    arguments do not fit it. Omitted arguments take their defaults; `fill_traced` (when the
    function has one trace, as a ConcreteFunction call) lets an argument traced as a Python
    value without a default be omitted too."""
    try:
        bound = concrete.record.signature.bind_partial(*args, **kwargs)
        if fill_traced:
            _fill_traced_values(concrete, bound)
        bound = concrete.record.signature.bind(*bound.args, **bound.kwargs)
    except TypeError:
        return None
    bound.apply_defaults()
    leaves, treedef = flatten(tuple(bound.arguments.values()))
    if not same_structure(treedef, concrete.record.arg_treedef):
        return None
    program = concrete.record.program
    for i, key in concrete.record.static_keys.items():
        if leaf_key(leaves[i]) != key:
            return None
    for i, spec in zip(program.input_positions, program.input_specs, strict=True):
        converted = _converted(leaves[i], spec, allow_specs)
        if converted is None:
            return None
        leaves[i] = converted
    return leaves


def _fill_traced_values(concrete: ConcreteFunction, bound: inspect.BoundArguments) -> None:
    """Omitted parameters without a default that were traced as one Python value."""
    position = 0
    record = concrete.record
    parameters = record.signature.parameters
    for name, child in zip(record.names, record.arg_treedef.children, strict=False):
        omitted = name not in bound.arguments and parameters[name].default is parameters[name].empty
        if omitted and child.kind == "leaf" and position in concrete.record.static_leaves:
            bound.arguments[name] = concrete.record.static_leaves[position]
        position += child.num_leaves


def _converted(value: object, spec: TensorSpec, allow_specs: bool) -> object:
    if isinstance(value, TensorSpec):
        fits = allow_specs and value.dtype == spec.dtype and _shape_fits(value.shape, spec)
        return value if fits else None
    if isinstance(value, np.ndarray | np.generic):
        array = np.asarray(value)
        if array.dtype != spec.dtype or not spec.is_compatible_with(array):
            return None
        return array
    if not isinstance(value, bool | int | float | complex | list | tuple):
        return None
    try:
        array = np.asarray(value)
    except ValueError:
        return None
    if not np.can_cast(array.dtype, spec.dtype, casting="same_kind"):
        return None
    array = array.astype(spec.dtype)
    return array if spec.is_compatible_with(array) else None


def _shape_fits(shape: tuple | None, spec: TensorSpec) -> bool:
    if shape is None or spec.shape is None:
        return spec.shape is None
    return len(shape) == len(spec.shape) and all(
        s is None or s == d for s, d in zip(spec.shape, shape, strict=True)
    )


def _describe_call(args: tuple, kwargs: dict) -> str:
    def one(value: object) -> str:
        if isinstance(value, np.ndarray | np.generic):
            return f"array(shape={value.shape}, dtype={value.dtype})"
        return repr(value)

    shown = [one(a) for a in args] + [f"{k}={one(v)}" for k, v in kwargs.items()]
    return f"({', '.join(shown)})"


class LoadedObject(Module):
    """A saved object: its Functions, Variables and sub-objects as attributes (a tj.Module,
    so `variables` and `trainable_variables` work as on the original)."""

    not_saved_attributes = frozenset({"signatures"})  # saved as the named entry points

    def __init__(self, name: str | None = None):
        super().__init__(name)
        self.signatures: dict[str, LoadedFunction] = {}


def callable_object(call: LoadedFunction) -> LoadedObject:
    """A LoadedObject whose instances are called through `call` (a saved `__call__`)."""
    klass = type(
        "LoadedCallableObject",
        (LoadedObject,),
        {"__call__": lambda self, *args, **kwargs: call(*args, **kwargs)},
    )
    return klass()
