"""`tj.function` and `tj.Function`: the polymorphic, tracing wrapper of a Python function.

A call binds the arguments through the Python signature (so defaults and keywords
give the same key), flattens them, computes the cache key (`cache_key.py`) and reuses
the ConcreteFunction traced for that key, tracing a new one on a miss.
"""

from __future__ import annotations

import functools
import inspect
import threading
import warnings
from typing import Any

from tracejit.frontend import config
from tracejit.frontend.cache_key import leaf_key
from tracejit.frontend.concrete_function import ConcreteFunction
from tracejit.frontend.structure import flatten
from tracejit.frontend.trace_function import trace


class Function:
    """A Python function that runs as compiled machine code, traced per input signature."""

    def __init__(
        self,
        python_function: Any,
        input_signature: Any = None,
        autograph: bool = True,
        jit_compile: bool | None = None,
        reduce_retracing: bool = False,
        experimental_implements: str | None = None,
        experimental_autograph_options: Any = None,
        experimental_follow_type_hints: bool = False,
    ):
        functools.update_wrapper(self, python_function)
        self._python_function = python_function
        self._signature = inspect.signature(python_function)
        self._names = list(self._signature.parameters)
        self._input_signature = input_signature
        self._autograph = autograph
        self._jit_compile = jit_compile
        self._reduce_retracing = reduce_retracing
        self._implements = experimental_implements
        self._follow_type_hints = experimental_follow_type_hints
        self._cache: dict[Any, ConcreteFunction] = {}
        self._lock = threading.RLock()
        self._tracing_count = 0

    @property
    def python_function(self) -> Any:
        return self._python_function

    @property
    def input_signature(self) -> Any:
        return self._input_signature

    def experimental_get_tracing_count(self) -> int:
        return self._tracing_count

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if config.functions_run_eagerly():
            return self._python_function(*args, **kwargs)
        leaves, key, treedef = self._bind(args, kwargs)
        concrete = self._cache.get(key)
        if concrete is None:
            concrete = self._trace(key, leaves, treedef)
        return concrete.call_leaves(leaves)

    def get_concrete_function(self, *args: Any, **kwargs: Any) -> ConcreteFunction:
        """The ConcreteFunction for these arguments (arrays, TensorSpecs or Python values)."""
        leaves, key, treedef = self._bind(args, kwargs)
        concrete = self._cache.get(key)
        return concrete if concrete is not None else self._trace(key, leaves, treedef)

    def _bind(self, args: tuple, kwargs: dict) -> tuple[list[Any], Any, Any]:
        bound = self._signature.bind(*args, **kwargs)
        bound.apply_defaults()
        leaves, treedef = flatten(tuple(bound.arguments.values()))
        key = (treedef, tuple(leaf_key(leaf) for leaf in leaves))
        return leaves, key, treedef

    def _trace(self, key: Any, leaves: list[Any], treedef: Any) -> ConcreteFunction:
        with self._lock:
            concrete = self._cache.get(key)
            if concrete is not None:  # another thread traced it meanwhile
                return concrete
            program = trace(self._python_function, self._signature, self._names, leaves, treedef)
            concrete = ConcreteFunction(program, self._signature, self._names, treedef, leaves)
            self._cache[key] = concrete
            self._tracing_count += 1
            return concrete

    def __get__(self, instance: Any, owner: Any = None) -> Any:
        """As a method: bind the instance (a leaf keyed by identity: one trace per object)."""
        if instance is None:
            return self
        return functools.partial(self, instance)

    def __repr__(self) -> str:
        return f"<tj.Function {getattr(self, '__qualname__', self._python_function)}>"


_DEPRECATED = {
    "experimental_relax_shapes": "reduce_retracing",
    "experimental_compile": "jit_compile",
}


def function(
    func: Any = None,
    *,
    input_signature: Any = None,
    autograph: bool = True,
    jit_compile: bool | None = None,
    reduce_retracing: bool = False,
    experimental_implements: str | None = None,
    experimental_autograph_options: Any = None,
    experimental_relax_shapes: bool | None = None,
    experimental_compile: bool | None = None,
    experimental_follow_type_hints: bool = False,
) -> Any:
    """Compile a NumPy function: `@tj.function` or `tj.function(f, ...)` (like `tf.function`)."""
    if experimental_relax_shapes is not None:
        _warn_deprecated("experimental_relax_shapes")
        reduce_retracing = reduce_retracing or experimental_relax_shapes
    if experimental_compile is not None:
        _warn_deprecated("experimental_compile")
        jit_compile = experimental_compile if jit_compile is None else jit_compile

    def decorate(python_function: Any) -> Function:
        return Function(
            python_function,
            input_signature=input_signature,
            autograph=autograph,
            jit_compile=jit_compile,
            reduce_retracing=reduce_retracing,
            experimental_implements=experimental_implements,
            experimental_autograph_options=experimental_autograph_options,
            experimental_follow_type_hints=experimental_follow_type_hints,
        )

    return decorate if func is None else decorate(func)


def _warn_deprecated(name: str) -> None:
    warnings.warn(
        f"tj.function({name}=...) is deprecated; use {_DEPRECATED[name]}= instead",
        DeprecationWarning,
        stacklevel=3,
    )
