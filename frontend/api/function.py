"""`tj.function` and `tj.Function`: the polymorphic, tracing wrapper of a Python function.

A call binds the arguments through the Python signature (so defaults and keywords
give the same key), flattens them, computes the cache key (`cache_key.py`) and reuses
the ConcreteFunction traced for that key, tracing a new one on a miss. Called while
another function is being traced, a Function is traced into the caller's module and
staged as a `func.call` (the `inline` pass later inlines it).
"""

from __future__ import annotations

import functools
import inspect
import os
import sys
import threading
import time
import warnings
import weakref
from collections.abc import Callable
from typing import Any, Concatenate, Generic, ParamSpec, Protocol, TypeVar, cast, overload

import numpy as np

from tracejit.compiler import compile_log
from tracejit.frontend.api import config
from tracejit.frontend.api.cache_key import (
    IdentityKey,
    accepts,
    generalize,
    is_tensor_key,
    is_tensor_leaf,
    leaf_key,
    traced_scalar,
)
from tracejit.frontend.api.concrete_function import ConcreteFunction
from tracejit.frontend.api.input_signature import InputSignature
from tracejit.frontend.api.pickling_hooks import PICKLING
from tracejit.frontend.api.rank_polymorphic import RankPolymorphicConcreteFunction, has_unknown_rank
from tracejit.frontend.api.retracing import RetracingMonitor
from tracejit.frontend.api.trace_function import trace
from tracejit.frontend.autodiff import eager as eager_tapes
from tracejit.frontend.autodiff.tape import recording_in

# AutoGraph (the converter, and the operators its code calls) with tj.function itself: every
# first trace needs both, and importing them there added ~30 ms to a process's first call.
from tracejit.frontend.autograph import convert
from tracejit.frontend.autograph import operators as _autograph_operators  # noqa: F401
from tracejit.frontend.staging import array_subclasses
from tracejit.frontend.staging.source_location import at_user_line
from tracejit.frontend.staging.tensor import Tensor
from tracejit.frontend.staging.tensor_spec import TensorSpec
from tracejit.frontend.staging.tracing import current_trace, is_tracing
from tracejit.runtime.fast_path import PYTHON_NUMBERS, SLOW_PATH, FastCall, retry_with_copies
from tracejit.runtime.gc_pause import collection_paused
from tracejit.runtime.structure import TreeDef, flatten

# Held here: at interpreter exit `sys` may be torn down before a weakref callback runs
_is_finalizing = sys.is_finalizing

# What type checkers and editors see of a decorated function (run time ignores them): a
# Function keeps the wrapped function's parameters `P` and its declared return type `R`.
P = ParamSpec("P")
P2 = ParamSpec("P2")
R = TypeVar("R", covariant=True)
R2 = TypeVar("R2")
S = TypeVar("S")


class Function(Generic[P, R]):
    """A Python function that runs as compiled machine code, traced per input signature.

    Made by `tj.function`; called like the function it wraps. Each call looks up a trace
    (a `tj.ConcreteFunction`) by the arguments' cache key: NumPy arrays and NumPy scalars
    count by dtype and shape (they become the compiled code's inputs), Python numbers,
    strings and None by value (they are baked into the trace as constants), lists, tuples
    and dicts by structure, other objects by identity. A new key traces the Python function
    again and compiles the trace; a known one runs the machine code already compiled.

    Results come back as NumPy values: an array where the function returned an array, a
    NumPy scalar (`np.float64`, ...) where it returned a 0-d value, Python values and
    containers as they were returned.

    Typing: `Function[P, R]` keeps the wrapped function's parameters `P`, so type checkers
    and editors check and complete calls, and its declared return type `R`. `R` is what
    the function would return run eagerly on NumPy arrays, as annotated (`-> np.ndarray`);
    the compiled call returns the NumPy equivalent of each traced value, which an
    annotation such as `-> float` describes only loosely (a 0-d float32 result is an
    `np.float32`, not a `float`). Type checkers see `@tj.function` over `@staticmethod` as
    a method; put `@staticmethod` above `@tj.function` to keep its calls checked.

    Examples
    --------
    >>> @tj.function
    ... def add(a, b):
    ...     return a + b
    >>> add(np.array([1.0, 2.0]), np.array([3.0, 4.0]))
    array([4., 6.])
    >>> add
    <tj.Function add: 1 trace>

    A new shape traces again; the same shape reuses the trace:

    >>> add(np.ones(3), np.ones(3)), add(np.zeros(3), np.ones(3))
    (array([2., 2., 2.]), array([1., 1., 1.]))
    >>> add.experimental_get_tracing_count()
    2
    """

    __name__: str  # set by functools.update_wrapper when the wrapped callable has one

    def __init__(
        self,
        python_function: Callable[P, R] | staticmethod[P, R] | classmethod[Any, P, R],
        input_signature: Any = None,
        autograph: bool = True,
        jit_compile: bool | None = None,
        reduce_retracing: bool = False,
        experimental_implements: str | None = None,
        experimental_autograph_options: Any = None,
        experimental_follow_type_hints: bool = False,
        experimental_pipeline: str | tuple[str, ...] | None = None,
    ):
        # tj.function over a staticmethod/classmethod: compile the function inside, and
        # bind as the wrapper would (nothing, or the class) in __get__.
        self._binding = _binding_of(python_function)
        inner: Callable[..., Any] = (
            python_function.__func__
            if isinstance(python_function, staticmethod | classmethod)
            else python_function
        )
        functools.update_wrapper(self, inner)
        self._pipeline = experimental_pipeline  # None: the default pipeline
        self._python_function = inner
        self._signature = inspect.signature(inner)
        self._names = list(self._signature.parameters)
        self._input_signature = (
            None if input_signature is None else InputSignature(input_signature, self._signature)
        )
        self._method_signature: InputSignature | None = None  # made on the first bound call
        self._autograph = autograph
        self._jit_compile = jit_compile
        self._reduce_retracing = reduce_retracing
        self._implements = experimental_implements
        self._tensor_hints = (
            _tensor_annotated(self._signature) if experimental_follow_type_hints else set()
        )
        self._cache: dict[tuple, ConcreteFunction] = {}
        # reduce_retracing's generalized keys whose trace met a limit of unknown dims
        self._unrelaxable: set[tuple] = set()
        # The one ConcreteFunction per signature with specs of unknown rank (it traces per
        # rank into _cache), and the views of method traces bound to their instance.
        self._polymorphic: dict[tuple, RankPolymorphicConcreteFunction] = {}
        self._bound_views: weakref.WeakValueDictionary[tuple[int, int], BoundConcreteFunction] = (
            weakref.WeakValueDictionary()
        )
        self._last_fast_call: FastCall | None = None  # the fast path of the trace used last
        self._plain_fast_call: FastCall | None = None  # the same, without the retracing bookkeeping
        self._fast_copies = False  # whether it may take copies of strided arguments
        self._lock = threading.RLock()
        self._options = {
            "input_signature": input_signature,
            "autograph": autograph,
            "jit_compile": jit_compile,
            "reduce_retracing": reduce_retracing,
            "experimental_implements": experimental_implements,
            "experimental_autograph_options": experimental_autograph_options,
            "experimental_follow_type_hints": experimental_follow_type_hints,
            "experimental_pipeline": experimental_pipeline,
        }
        self._tracing_count = 0
        # the objects a method has been traced for: each creates its Variables on its own
        # first call (TensorFlow makes a method one Function per instance)
        self._traced_instances: set[IdentityKey] = set()
        self._retracing = RetracingMonitor(
            self.__name__ if hasattr(self, "__name__") else "function"
        )

    # --- tf.function's public surface ------------------------------------------------
    @property
    def python_function(self) -> Callable[P, R]:
        """The Python function this Function wraps (the function inside a staticmethod or
        classmethod).

        >>> @tj.function
        ... def double(x):
        ...     return 2 * x
        >>> double.python_function(np.array([1, 2]))  # plain NumPy, not compiled
        array([2, 4])
        """
        return self._python_function

    @property
    def input_signature(self) -> Any:
        """The `input_signature` given to `tj.function` (a tuple of `tj.TensorSpec`s), or None.

        >>> @tj.function(input_signature=[tj.TensorSpec([None], tj.float32)])
        ... def total(x):
        ...     return np.sum(x)
        >>> total.input_signature
        (TensorSpec(shape=(None,), dtype=float32, name=None),)
        """
        return None if self._input_signature is None else self._input_signature.specs

    def experimental_get_tracing_count(self) -> int:
        """How many times this Function has traced its Python function.

        That is how often the Python function ran to build a trace: the times its plain
        `print`s print (TF's guide: they "only execute during tracing"). A spec of unknown
        rank (`TensorSpec(shape=None)`) has one ConcreteFunction, but machine code needs
        ranks, so it traces once per rank it is called with, and each counts here (in
        TensorFlow, which keeps the rank unknown in its graph, that is one trace).

        >>> @tj.function
        ... def half(x):
        ...     return x / 2
        >>> _ = half(np.ones(2)), half(np.ones(2)), half(np.ones((2, 2)))
        >>> half.experimental_get_tracing_count()
        2
        """
        return self._tracing_count

    # --- what export, pickling and tools read (frontend/export/) ---------------------------
    @property
    def options(self) -> dict[str, Any]:
        """The options this Function was made with (`input_signature`, `autograph`, ...), as
        keyword arguments of `tj.function`: `tj.function(f.python_function, **f.options)`
        makes the same Function, without its traces.

        >>> f = tj.function(np.negative, reduce_retracing=True)
        >>> f.options["reduce_retracing"], f.options["input_signature"]
        (True, None)
        """
        return dict(self._options)

    @property
    def binding(self) -> str:
        """How the wrapped function binds in a class: "instance" (a plain function or method),
        "static" (`@staticmethod` under `@tj.function`) or "class" (`@classmethod`).

        >>> tj.function(np.negative).binding
        'instance'
        """
        return self._binding

    def concrete_functions(self) -> list[ConcreteFunction]:
        """The traces made so far, one ConcreteFunction each, oldest first.

        >>> @tj.function
        ... def square(x):
        ...     return x * x
        >>> _ = square(np.ones(2)), square(np.ones(3, np.float32))
        >>> for concrete in square.concrete_functions():
        ...     print(concrete.structured_outputs)
        TensorSpec(shape=(2,), dtype=float64, name=None)
        TensorSpec(shape=(3,), dtype=float32, name=None)
        """
        with self._lock:  # one entry per trace (reduce_retracing aliases keys to a trace)
            return list({id(c): c for c in self._cache.values()}.values())

    def pretty_printed_concrete_signatures(self) -> str:
        """Every trace's signature (see `ConcreteFunction.pretty_printed_signature`), one
        block per trace, oldest first (a spec of unknown rank shows once, not per rank).

        >>> @tj.function
        ... def scale(x, factor):
        ...     return x * factor
        >>> _ = scale(np.ones(2), 3.0)
        >>> print(scale.pretty_printed_concrete_signatures())
        Input Parameters:
          x (POSITIONAL_OR_KEYWORD): TensorSpec(shape=(2,), dtype=float64, name=None)
          factor (POSITIONAL_OR_KEYWORD): Literal[3.0]
        Output Type:
          TensorSpec(shape=(2,), dtype=float64, name=None)
        Captures:
          None
        """
        concretes = self.concrete_functions()
        with self._lock:
            owners = {
                id(c): polymorphic
                for polymorphic in self._polymorphic.values()
                for c in polymorphic.concrete_functions()
            }
        shown = {id(owners.get(id(c), c)): owners.get(id(c), c) for c in concretes}
        return "\n\n".join(c.pretty_printed_signature() for c in shown.values())

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R:
        """Run the compiled code for these arguments, tracing and compiling it first when no
        trace fits them (see the class docstring for the cache key).

        Under `tj.config.run_functions_eagerly(True)` the Python function runs instead; inside
        another `tj.function` being traced, the call is traced into the caller.

        Raises
        ------
        TypeError
            The arguments do not bind to the function's parameters (too many, an unknown
            keyword), naming the function and the caller's line.
        ValueError
            An argument does not match the `input_signature`, naming it.
        tj.errors.InvalidArgumentError
            A run-time check of the compiled code failed (a `tj.debugging` assertion, an
            index out of bounds, shapes that do not meet).
        """
        if eager_tapes.open_count and not is_tracing():  # a tj.GradientTape records the call
            return eager_tapes.record(self, args, kwargs, eagerly=config.functions_run_eagerly())
        fast = self._last_fast_call
        if fast is not None and not kwargs and not config._run_functions_eagerly:
            result = fast(args)  # the trace used last, if these arrays fit it (fast_path.py)
            if result is SLOW_PATH and self._fast_copies:
                result = retry_with_copies(fast, args)
            if result is not SLOW_PATH:
                return result
        return self._call(args, kwargs)

    def _call(self, args: tuple, kwargs: dict, method: bool = False) -> Any:
        """Run on these arguments; `method`: args[0] is the bound instance, which the
        input_signature does not describe."""
        if is_tracing() and recording_in(current_trace()):
            # A GradientTape records the caller: stage this function's code right into the
            # caller's trace, so the tape sees its ops (and its custom gradients). Also
            # under run_functions_eagerly: a trace (an eager tape's gradient) is staging.
            python_function = self._python_function
            return (convert(python_function) if self._autograph else python_function)(
                *args, **kwargs
            )
        if config.functions_run_eagerly():
            return self._python_function(*args, **kwargs)
        signature = self._signature_for(method)
        leaves, key, treedef = self._bind(args, kwargs, signature)
        if signature is not None and is_tracing():
            # Staged as a func.call in another trace, whose operand types must be the
            # callee's: trace for the operands' own shapes (the signature has checked them).
            signature, key = None, self._key(leaves, treedef, None)
        concrete = self._cache.get(key)
        if concrete is None and self._reduce_retracing and signature is None:
            concrete = self._relaxed_concrete(key, leaves, treedef)
        traced = concrete is None
        if traced and signature is not None and signature.has_unknown_rank:
            # a new rank: traced through the signature's one ConcreteFunction
            concrete = self._polymorphic_for(leaves, treedef, signature).concrete_for_leaves(leaves)
        elif traced:
            concrete = self._trace(key, leaves, treedef, signature, method)
        assert concrete is not None
        if is_tracing():
            return concrete.call_symbolic(leaves)
        self._retracing.record_call(traced)
        result = concrete.call_leaves(leaves)
        if not kwargs and _all_arrays(args):
            self._plain_fast_call = concrete.fast_call
            self._fast_copies = concrete.fast_call_copies
        self._last_fast_call = self._plain_fast_call
        if self._last_fast_call is not None and self._retracing.recent_calls:
            self._last_fast_call = self._clearing(self._last_fast_call)
        return result

    def _clearing(self, fast: FastCall) -> FastCall:
        """`fast`, which on its first success also tells the retracing monitor that a call
        did not trace (so later fast calls need not check it, ~0.1 us each)."""

        weak_self = weakref.ref(self)  # `first` is held by self: no cycle (design.md)

        def first(args: tuple) -> Any:
            result = fast(args)
            function = weak_self()
            if result is not SLOW_PATH and function is not None:
                function._retracing.recent_calls.clear()
                function._last_fast_call = fast
            return result

        return first

    def get_concrete_function(self, *args: object, **kwargs: object) -> ConcreteFunction:
        """The trace for these arguments, traced now if there is none yet (without running).

        Parameters
        ----------
        *args, **kwargs
            As for a call, where each array may be a `tj.TensorSpec` (a `None` dim is a size
            known only at run time; `shape=None` an unknown rank). With an
            `input_signature`, no arguments mean the signature's own specs.

        Returns
        -------
        ConcreteFunction
            One trace, callable on arrays matching it. For a spec of unknown rank
            (`shape=None`), an object that is called and shows its signature as one, and
            traces once per rank it is called with (its `concrete_functions()` are the
            traces, each with its graph and IR); type checkers see a ConcreteFunction.

        Examples
        --------
        >>> @tj.function
        ... def norm(v):
        ...     return np.sqrt(np.sum(v * v))
        >>> c = norm.get_concrete_function(tj.TensorSpec([None], tj.float64))
        >>> c(np.array([3.0, 4.0])), c(np.array([2.0, 3.0, 6.0]))
        (np.float64(5.0), np.float64(7.0))
        >>> norm.experimental_get_tracing_count()
        1
        """
        # (a RankPolymorphicConcreteFunction for unknown ranks: see Returns)
        return cast(ConcreteFunction, self._concrete_function(args, kwargs, self._input_signature))

    def _concrete_function(
        self, args: tuple, kwargs: dict, signature: InputSignature | None, bound_to: tuple = ()
    ) -> ConcreteFunction | RankPolymorphicConcreteFunction:
        """`bound_to`: the instance of a method, in front of `args`."""
        if signature is not None and not args and not set(signature.names) & set(kwargs):
            args = tuple(signature.specs)  # get_concrete_function(): the signature's own
        leaves, key, treedef = self._bind((*bound_to, *args), kwargs, signature, allow_specs=True)
        template = leaves if signature is None else signature.template_leaves(leaves, treedef)
        if has_unknown_rank(template):  # TensorSpec(shape=None): one object for every rank
            polymorphic = self._polymorphic_for(leaves, treedef, signature)
            if not has_unknown_rank(leaves):  # these inputs' ranks: traced now, as TF does
                polymorphic.concrete_for_leaves(leaves)
            return polymorphic
        concrete = self._cache.get(key)
        if concrete is not None:
            return concrete
        return self._trace(key, leaves, treedef, signature, method=bool(bound_to))

    def _polymorphic_for(
        self, leaves: list[object], treedef: TreeDef, signature: InputSignature | None
    ) -> RankPolymorphicConcreteFunction:
        """The one ConcreteFunction of these arguments with their ranks left open."""
        if signature is None:  # get_concrete_function(TensorSpec(None, ...), ...)
            template = leaves
            key = (treedef, tuple(leaf_key(leaf, self._forget) for leaf in leaves))
        else:
            template = signature.template_leaves(leaves, treedef)
            key = (treedef, signature.template_key(leaves, treedef, self._forget))
        with self._lock:
            polymorphic = self._polymorphic.get(key)
            if polymorphic is None:
                polymorphic = RankPolymorphicConcreteFunction(
                    self.__name__ if hasattr(self, "__name__") else "function",
                    self._signature,
                    template,
                    treedef,
                    functools.partial(self._specialised, treedef=treedef, signature=signature),
                )
                self._polymorphic[key] = polymorphic
        return polymorphic

    def _specialised(
        self, leaves: list[object], treedef: TreeDef, signature: InputSignature | None
    ) -> ConcreteFunction:
        """The trace for leaves whose specs all have a rank (from a rank-polymorphic one)."""
        key = self._key(leaves, treedef, signature)
        concrete = self._cache.get(key)
        return concrete if concrete is not None else self._trace(key, leaves, treedef, signature)

    # --- binding and keys --------------------------------------------------------------
    def _signature_for(self, method: bool) -> InputSignature | None:
        """The input_signature of plain calls, or of calls as a method (after `self`)."""
        if not method or self._input_signature is None:
            return self._input_signature
        if self._method_signature is None:
            self._method_signature = InputSignature(
                self._input_signature.specs, self._signature, skip=1
            )
        return self._method_signature

    def _bind(
        self,
        args: tuple,
        kwargs: dict,
        signature: InputSignature | None = None,
        allow_specs: bool = False,
    ):
        try:
            bound = self._signature.bind(*args, **kwargs)
        except TypeError as error:  # "too many positional arguments", with whose and where
            name = getattr(self, "__name__", "function")
            raise TypeError(at_user_line(f"{name}(): {error}")) from None
        bound.apply_defaults()
        if signature is not None:
            signature.convert(bound, allow_specs)
        for name in self._tensor_hints:
            bound.arguments[name] = _as_array(bound.arguments[name])
        leaves, treedef = flatten(tuple(bound.arguments.values()))
        if any(type(leaf) is not np.ndarray and isinstance(leaf, np.ndarray) for leaf in leaves):
            for name, value in bound.arguments.items():  # masked arrays, np.matrix, ...
                for leaf in flatten(value)[0]:
                    array_subclasses.check_argument(leaf, name)
        return leaves, self._key(leaves, treedef, signature), treedef

    def _key(
        self, leaves: list[object], treedef: TreeDef, signature: InputSignature | None
    ) -> tuple:
        if signature is not None:
            static = signature.static_key(leaves, treedef, self._forget)
            return (treedef, (signature.key_tag, *static))
        return (treedef, tuple(leaf_key(leaf, self._forget) for leaf in leaves))

    def _forget(self, dead: IdentityKey) -> None:
        """An object in some cache keys was garbage-collected: drop those traces."""
        if _is_finalizing is None or _is_finalizing():  # module globals may already be gone
            return
        with self._lock:
            for cache in (self._cache, self._polymorphic):
                for key in [k for k in cache if _contains(k, dead)]:
                    del cache[key]
            self._traced_instances.discard(dead)

    def _trace(
        self,
        key: tuple,
        leaves: list[object],
        treedef: TreeDef,
        signature: InputSignature | None = None,
        method: bool = False,
    ) -> ConcreteFunction:
        """A new trace for these leaves (`method`: leaves[0] is the bound instance)."""
        with self._lock:
            concrete = self._cache.get(key)
            if concrete is not None:  # another thread traced it meanwhile
                return concrete
            _refuse_generators(self._python_function)
            scalars = frozenset(
                i
                for i, leaf in enumerate(leaves)
                if isinstance(leaf, np.generic) or isinstance(leaf, Tensor) and traced_scalar(leaf)
            )
            if signature is not None:
                leaves = signature.trace_leaves(leaves, treedef)
            start = time.perf_counter()
            with collection_paused():
                program = trace(
                    convert(self._python_function) if self._autograph else self._python_function,
                    self._signature,
                    self._names,
                    leaves,
                    treedef,
                    attributes={"tj.implements": self._implements} if self._implements else {},
                    scalar_inputs=scalars,
                )
            instance = leaf_key(leaves[0], self._forget) if method else None
            if isinstance(instance, IdentityKey):
                traced_before = instance in self._traced_instances
                self._traced_instances.add(instance)
            else:
                traced_before = self._tracing_count > 0
            if program.created_variables and traced_before:
                raise ValueError(
                    f"{self.__name__}: tj.function-decorated function tried to create "
                    "variables on non-first call. Create each tj.Variable once, outside the "
                    "function (e.g. in a tj.Module's __init__), or on the first call only "
                    "(`if self.v is None: self.v = tj.Variable(...)`)"
                )
            concrete = ConcreteFunction(
                program, self._signature, self._names, treedef, leaves, *_pipeline(self._pipeline)
            )
            self._retracing.record_trace(key, self._cache.keys(), self._names)
            compile_log.traced(
                self.__name__ if hasattr(self, "__name__") else "function",
                _describe_leaves(leaves),
                self._retracing.last_reason,
                time.perf_counter() - start,
            )
            self._cache[key] = concrete
            self._tracing_count += 1
            return concrete

    # --- reduce_retracing -----------------------------------------------------------------
    def _relaxed_concrete(
        self, key: tuple, leaves: list[object], treedef: TreeDef
    ) -> ConcreteFunction | None:
        """A trace whose unknown (`None`) dims accept these inputs, or a new one with the
        dims that differ from the closest earlier trace generalised to `None`."""
        with self._lock:
            for cached_key, concrete in list(self._cache.items()):
                if cached_key[0] == treedef and accepts(cached_key[1], key[1]):
                    if not concrete.dims_meet(leaves):
                        return None  # unknown dims must be equal, NumPy broadcasts: exact
                    self._cache[key] = concrete
                    return concrete
            for cached_key in reversed(list(self._cache)):  # the most recent trace first
                relaxed = generalize(cached_key[1], key[1]) if cached_key[0] == treedef else None
                if relaxed is not None and (treedef, relaxed) not in self._unrelaxable:
                    spec_leaves = [
                        TensorSpec(k[1], k[2]) if is_tensor_key(k) else leaf
                        for k, leaf in zip(relaxed, leaves, strict=True)
                    ]
                    try:
                        concrete = self._trace((treedef, relaxed), spec_leaves, treedef)
                    except NotImplementedError:  # a limit of unknown dims (np.tile, a
                        self._unrelaxable.add((treedef, relaxed))  # reshape): trace these
                        return None  # shapes exactly, as tf.function would run them
                    if not concrete.dims_meet(leaves):
                        return None
                    self._cache[key] = concrete
                    return concrete
        return None

    # --- methods -----------------------------------------------------------------------
    # Typed for a method: `obj.f` takes the parameters after `self`. Type checkers see a
    # staticmethod or classmethod under @tj.function as its plain function, so they take it
    # for a method too; `@staticmethod` above `@tj.function` is typed right (and runs alike).
    @overload
    def __get__(self, instance: None, owner: type | None = None) -> Function[P, R]: ...
    @overload
    def __get__(
        self: Function[Concatenate[S, P2], R2], instance: S, owner: type | None = None
    ) -> BoundFunction[P2, R2]: ...
    @overload
    def __get__(self, instance: object, owner: type | None = None) -> Any: ...
    def __get__(self, instance: object, owner: type | None = None) -> Any:
        """As a method: bind the instance, a leaf keyed by identity (one trace per object);
        the input_signature then describes the arguments after it, as in TensorFlow."""
        if self._binding == "class":  # bound to the class, from the class or an instance
            return BoundFunction(self, owner if owner is not None else type(instance))
        if instance is None or self._binding == "static":
            return self
        return BoundFunction(self, instance)

    def _call_method(self, instance: object, args: tuple, kwargs: dict) -> Any:
        return self._call((instance, *args), kwargs, method=True)

    def _method_concrete_function(
        self, instance: object, args: tuple, kwargs: dict
    ) -> BoundConcreteFunction:
        concrete = self._concrete_function(
            args, kwargs, self._signature_for(method=True), bound_to=(instance,)
        )
        key = (id(concrete), id(instance))  # both kept alive by the view, so never reused
        with self._lock:
            view = self._bound_views.get(key)
            if view is None:
                view = self._bound_views[key] = BoundConcreteFunction(concrete, instance)
        return view

    # --- pickling (pickling.py) ---------------------------------------------------------------
    def __reduce__(self) -> tuple:
        """By reference to the Python function and the options, never the traces: unpickled,
        this is a Function that traces again in its new process (see pickling.py)."""
        return PICKLING.reduce_function(self)

    def __dask_tokenize__(self) -> tuple:
        """Dask's name for this Function in task keys (without pickling it)."""
        return ("tracejit.Function", PICKLING.token_of(self))

    def __repr__(self) -> str:
        name = getattr(self, "__qualname__", self._python_function)
        traces = self._tracing_count
        return f"<tj.Function {name}: {traces} trace{'' if traces == 1 else 's'}>"


class BoundFunction(Generic[P, R]):
    """A `tj.Function` defined as a method, bound to one instance."""

    def __init__(self, function: Function[..., R], instance: object):
        self._function = function
        self._instance = instance
        functools.update_wrapper(self, function.python_function)

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R:
        if eager_tapes.open_count and not is_tracing():  # a tj.GradientTape records the call
            eagerly = config.functions_run_eagerly()
            instance_args = (self._instance, *args)
            return eager_tapes.record(self._function, instance_args, kwargs, True, eagerly)
        return self._function._call_method(self._instance, args, kwargs)

    def get_concrete_function(self, *args: object, **kwargs: object) -> BoundConcreteFunction:
        """The ConcreteFunction for these arguments after `self` (the input_signature's
        specs if none are given), bound to the instance."""
        return self._function._method_concrete_function(self._instance, args, kwargs)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):  # pickle's and copy's probes
            raise AttributeError(name)
        return getattr(self._function, name)

    def __reduce__(self) -> tuple:
        """Like a bound method: the instance (or class) and the method's name."""
        return PICKLING.reduce_bound_function(self._function, self._instance)


class BoundConcreteFunction:
    """A method's ConcreteFunction (traced for one instance), called without `self`."""

    def __init__(
        self, concrete: ConcreteFunction | RankPolymorphicConcreteFunction, instance: object
    ):
        self._concrete = concrete
        self._instance = instance

    def __call__(self, *args: object, **kwargs: object) -> Any:
        return self._concrete(self._instance, *args, **kwargs)

    @property
    def structured_input_signature(self) -> tuple[tuple[object, ...], dict[str, object]]:
        args, kwargs = self._concrete.structured_input_signature
        return args[1:], kwargs

    def pretty_printed_signature(self) -> str:
        lines = self._concrete.pretty_printed_signature().split("\n")
        return "\n".join(lines[:1] + lines[2:])  # without the instance's line

    @property
    def unbound(self) -> ConcreteFunction | RankPolymorphicConcreteFunction:
        """The method's ConcreteFunction itself, which takes the instance first."""
        return self._concrete

    def __getattr__(self, name: str) -> Any:
        return getattr(self._concrete, name)

    def __repr__(self) -> str:
        return f"ConcreteFunction bound to {self._instance!r}\n{self.pretty_printed_signature()}"


def _binding_of(python_function: object) -> str:
    if isinstance(python_function, staticmethod):
        return "static"
    if isinstance(python_function, classmethod):
        return "class"
    return "instance"


def _refuse_generators(python_function: object) -> None:
    if not (
        inspect.isgeneratorfunction(python_function)
        or inspect.isasyncgenfunction(python_function)
        or inspect.iscoroutinefunction(python_function)
    ):
        return
    code = python_function.__code__
    raise NotImplementedError(
        at_user_line(
            f"{python_function.__qualname__} (defined at {os.path.basename(code.co_filename)}:"
            f"{code.co_firstlineno}) is a generator or coroutine function, which tj.function "
            "does not support (TensorFlow raises here too): return a list, or stack the values "
            "into an array (np.stack, or tj.TensorArray in a loop)"
        )
    )


def _all_arrays(args: tuple) -> bool:
    """Arguments a fast call can take: arrays, NumPy scalars (fast_path.with_numpy_scalars)
    and Python numbers it checks against the trace's (fast_path.with_python_values)."""
    return all(
        type(a) is np.ndarray or type(a) in PYTHON_NUMBERS or isinstance(a, np.generic)
        for a in args
    )


def _contains(key: object, dead: IdentityKey) -> bool:
    if key is dead:
        return True
    return isinstance(key, tuple) and any(_contains(part, dead) for part in key)


def _tensor_annotated(signature: inspect.Signature) -> set[str]:
    return {
        name
        for name, parameter in signature.parameters.items()
        if parameter.annotation is Tensor or parameter.annotation == "tj.Tensor"
    }


def _as_array(value: object) -> object:
    import numpy as np

    if isinstance(value, bool | int | float | list | tuple):
        return np.asarray(value)
    return value


_DEPRECATED = {
    "experimental_relax_shapes": "reduce_retracing",
    "experimental_compile": "jit_compile",
}


class _Decorator(Protocol):
    """What `tj.function(...)` returns when given options but no function: the decorator."""

    def __call__(self, func: Callable[P2, R2], /) -> Function[P2, R2]: ...


@overload
def function(
    func: Callable[P2, R2],
    *,
    input_signature: object = None,
    autograph: bool = True,
    jit_compile: bool | None = None,
    reduce_retracing: bool = False,
    experimental_implements: str | None = None,
    experimental_autograph_options: object = None,
    experimental_relax_shapes: bool | None = None,
    experimental_compile: bool | None = None,
    experimental_follow_type_hints: bool = False,
    experimental_pipeline: str | tuple[str, ...] | None = None,
) -> Function[P2, R2]: ...
@overload
def function(
    func: None = None,
    *,
    input_signature: object = None,
    autograph: bool = True,
    jit_compile: bool | None = None,
    reduce_retracing: bool = False,
    experimental_implements: str | None = None,
    experimental_autograph_options: object = None,
    experimental_relax_shapes: bool | None = None,
    experimental_compile: bool | None = None,
    experimental_follow_type_hints: bool = False,
    experimental_pipeline: str | tuple[str, ...] | None = None,
) -> _Decorator: ...
def function(
    func: Any = None,
    *,
    input_signature: object = None,
    autograph: bool = True,
    jit_compile: bool | None = None,
    reduce_retracing: bool = False,
    experimental_implements: str | None = None,
    experimental_autograph_options: object = None,
    experimental_relax_shapes: bool | None = None,
    experimental_compile: bool | None = None,
    experimental_follow_type_hints: bool = False,
    experimental_pipeline: str | tuple[str, ...] | None = None,
) -> Any:
    """Compile a NumPy function: `@tj.function` or `tj.function(f, ...)` (like `tf.function`).

    The function is traced on its first call: its NumPy code runs on symbolic tensors and
    records the operations, which are compiled to machine code through tracejit's passes
    and LLVM. Later calls with arguments of the same dtypes and shapes run that machine
    code; other arguments trace again (`tj.Function` explains the cache key). Python
    control flow on traced values (`if`, `while`, `for`) is staged by AutoGraph.

    Parameters
    ----------
    func : callable, optional
        The Python function. Without it, `tj.function(...)` returns a decorator with the
        options given.
    input_signature : sequence of tj.TensorSpec, optional
        Fix the dtypes and shapes of the leading arguments: one trace for every input that
        matches (a `None` dim may vary), a ValueError naming the argument for any that does
        not. Python numbers and lists given for a spec are converted to its dtype.
    autograph : bool, default True
        Convert Python `if`/`while`/`for` on traced values into staged control flow. False
        traces the function as written (a tensor condition then raises a TypeError).
    jit_compile : bool, optional
        Accepted for TensorFlow compatibility; tracejit always compiles.
    reduce_retracing : bool, default False
        On a new shape, trace once more with the dims that changed left unknown (`None`),
        so later shapes reuse that trace.
    experimental_implements : str, optional
        Recorded on the traced function as the `tj.implements` attribute.
    experimental_autograph_options : optional
        Accepted for TensorFlow compatibility; ignored.
    experimental_relax_shapes : bool, optional
        Deprecated spelling of `reduce_retracing` (warns).
    experimental_compile : bool, optional
        Deprecated spelling of `jit_compile` (warns).
    experimental_follow_type_hints : bool, default False
        Parameters annotated `tj.Tensor` become tensor inputs even when given Python
        numbers (one trace for every value, not one per value).
    experimental_pipeline : str or tuple of str, optional
        The pass pipeline to compile with instead of the default (a comma-separated list
        of pass names, as `tracejit-opt` takes).

    Returns
    -------
    Function
        The compiled function (or, without `func`, a decorator that makes one).

    Raises
    ------
    TypeError
        `input_signature` is not a list or tuple of `tj.TensorSpec`, has more entries than
        the function has positional parameters, or the function takes `**kwargs`.

    Examples
    --------
    >>> @tj.function
    ... def clipped_sum(x, limit):
    ...     total = np.float64(0.0)
    ...     for v in x:
    ...         if v < limit:
    ...             total += v
    ...     return total
    >>> clipped_sum(np.array([1.0, 5.0, 2.0]), 3.0)
    np.float64(3.0)

    With options, as a decorator factory:

    >>> @tj.function(input_signature=[tj.TensorSpec([None], tj.float32)])
    ... def mean(x):
    ...     return np.mean(x)
    >>> mean([1, 2, 3, 4])  # converted to float32 for the spec
    np.float32(2.5)
    """
    if experimental_relax_shapes is not None:
        _warn_deprecated("experimental_relax_shapes")
        reduce_retracing = reduce_retracing or experimental_relax_shapes
    if experimental_compile is not None:
        _warn_deprecated("experimental_compile")
        jit_compile = experimental_compile if jit_compile is None else jit_compile

    def decorate(python_function: Any) -> Function[..., Any]:
        return Function(
            python_function,
            input_signature=input_signature,
            autograph=autograph,
            jit_compile=jit_compile,
            reduce_retracing=reduce_retracing,
            experimental_implements=experimental_implements,
            experimental_autograph_options=experimental_autograph_options,
            experimental_follow_type_hints=experimental_follow_type_hints,
            experimental_pipeline=experimental_pipeline,
        )

    return decorate if func is None else decorate(func)


def _pipeline(spec: str | tuple[str, ...] | None) -> tuple:
    """ConcreteFunction's `pipeline` argument for `experimental_pipeline` (a pass list such as
    "inline,cse,bufferize,..." or a tuple of names; passes.pipeline.Pipeline parses it)."""
    return () if spec is None else (spec,)


def _warn_deprecated(name: str) -> None:
    warnings.warn(
        f"tj.function({name}=...) is deprecated; use {_DEPRECATED[name]}= instead",
        DeprecationWarning,
        stacklevel=3,
    )


__all__ = ["BoundConcreteFunction", "BoundFunction", "Function", "function"]


def _describe_leaves(leaves: list[Any]) -> str:
    """`f32[3], i64[], 2.0`: the arguments of a trace, as its log line shows them."""
    parts = []
    for leaf in leaves:
        if is_tensor_leaf(leaf) and leaf.shape is not None:  # (a class, e.g. a dtype, is not)
            dims = ",".join("?" if d is None else str(d) for d in leaf.shape)
            parts.append(f"{np.dtype(leaf.dtype).name}[{dims}]")
        else:
            parts.append(repr(leaf)[:40])
    return ", ".join(parts)


# a tape's vector-Jacobian products of Function calls are Functions (frontend/autodiff/eager.py)
eager_tapes.make_function = function
