"""A GradientTape outside `tj.function`: it records calls of `tj.Function`s.

Each recorded call keeps its arguments and results, and the value each Variable it used
(read or wrote, captured or passed) had when the call began. `gradient` walks the calls
backwards; for each call whose results received a cotangent it runs the Function's
vector-Jacobian product, itself a compiled `tj.Function` (`vjp_function`: the Function's
Python code traced under a tape, and the tape's gradient taken with the cotangents as
`output_gradients`), which returns cotangents for the call's float array arguments and for
the Variables the tape watches among those the call used. The product does not touch those
Variables: its trace reads and writes a copy of each (`_copy_of`), filled with the value
the call began with, so it differentiates the values the call read (not the ones it or a
later call left) and does not repeat the call's writes. A Variable is watched as in
TensorFlow: trainable and read while the tape records (`watch_accessed_variables=True`),
or given to `tape.watch` before the call; an integer one gets no gradient (None).
Plain NumPy code between the calls is not recorded (it is not staged): a target that no
recorded call produced is an error, not a None.
"""

from __future__ import annotations

import atexit
import functools
import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tracejit.frontend.staging.variable import Variable, note_array, noting_uses
from tracejit.runtime.structure import flatten, unflatten

make_function: Callable[[Callable[..., Any]], Any] | None = None
"""`tj.function`, which compiles a call's vector-Jacobian product: set by
frontend/api/function.py (a floor up) when it is imported."""

_local = threading.local()
# How many eager tapes are open in any thread: `Function.__call__` checks this one int
# before it looks for a tape (a call outside any tape pays nothing else).
open_count = 0


def open_tapes() -> list[EagerRecord]:
    if not hasattr(_local, "tapes"):
        _local.tapes = []
    return _local.tapes


@dataclass
class Call:
    function: Any  # a tj.Function (a method's instance is the first of `args`)
    args: tuple
    kwargs: dict
    outputs: list[Any]
    # every Variable the call used, with its value when the call began
    used: list[tuple[Variable, np.ndarray]] = field(default_factory=list)
    variables: list[Variable] = field(default_factory=list)  # those differentiated (watched, float)
    # id -> the value before the call of each argument array the call wrote
    written: dict[int, np.ndarray] = field(default_factory=dict)


@dataclass(eq=False)  # tapes are told apart by identity (open_tapes().remove)
class EagerRecord:
    calls: list[Call] = field(default_factory=list)
    watched: dict[int, np.ndarray] = field(default_factory=dict)
    paused: bool = False
    watch_accessed: bool = True
    # the tape's watched Variables (GradientTape._watched_variables, the same dict)
    watched_variables: dict[int, Variable] = field(default_factory=dict)

    def differentiated(self, used: list[tuple[Variable, np.ndarray]]) -> list[Variable]:
        """Of the Variables a call used, those this tape differentiates: watched (trainable
        and accessed, or `tape.watch`ed before the call) and of a float dtype."""
        variables = []
        for variable, _ in used:
            if self.watch_accessed and variable.trainable:
                self.watched_variables.setdefault(id(variable), variable)
            if id(variable) in self.watched_variables and variable.dtype.kind == "f":
                variables.append(variable)
        return variables

    def watch(self, array: np.ndarray) -> None:
        self.watched[id(array)] = array

    def clear(self) -> None:
        self.calls.clear()

    def gradient(self, target, sources, output_gradients, unconnected):
        targets = flatten(target)[0]
        given = [None] * len(targets) if output_gradients is None else flatten(output_gradients)[0]
        cotangents: dict[int, np.ndarray] = {}
        produced = {id(o) for call in self.calls for o in call.outputs}
        for t, seed in zip(targets, given, strict=True):
            if id(t) not in produced:
                raise ValueError(_not_recorded_message())
            g = np.ones_like(t) if seed is None else np.asarray(seed, np.asarray(t).dtype)
            _add(cotangents, t, np.broadcast_to(g, np.shape(t)))
        variable_grads: dict[int, np.ndarray] = {}
        for call in reversed(self.calls):
            seeds = [cotangents.get(id(o)) for o in call.outputs]
            if all(s is None for s in seeds):
                continue
            filled = [np.zeros_like(o) if s is None else s for o, s in zip(call.outputs, seeds,
                                                                            strict=True)]
            arg_grads, var_grads = run_vjp(call, filled)
            for leaf, grad in zip(flatten((call.args, call.kwargs))[0], arg_grads, strict=True):
                if grad is not None:
                    _add(cotangents, leaf, grad)
            for variable, grad in var_grads:
                _add(variable_grads, variable, grad)
        leaves, tree = flatten(sources)
        return unflatten(
            tree, [_result(leaf, cotangents, variable_grads, unconnected) for leaf in leaves]
        )


def _not_recorded_message() -> str:
    return (
        "tape.gradient target was not computed by a tj.function called while the tape "
        "recorded (outside tj.function a tape records tj.function calls, not NumPy code): "
        "compute the target inside a tj.function (a loss too: `loss = mse(model(x), y)` "
        "with `mse` a tj.function)"
    )


def _add(store: dict[int, Any], key_object: object, grad: np.ndarray | None) -> None:
    if grad is None:
        return
    key = id(key_object)
    store[key] = grad if key not in store else store[key] + grad


def _result(leaf, cotangents, variable_grads, unconnected):
    from tracejit.frontend.staging.variable import Variable

    grad = (variable_grads if isinstance(leaf, Variable) else cotangents).get(id(leaf))
    if grad is None and id(leaf) in cotangents:
        grad = cotangents[id(leaf)]
    if grad is None and unconnected == "zero":
        return np.zeros(np.shape(leaf), np.result_type(leaf.dtype, np.float32)
                        if not hasattr(leaf, "dtype") or leaf.dtype.kind != "f" else leaf.dtype)
    if grad is not None and np.ndim(grad) == 0:
        return np.asarray(grad)[()]
    return grad


# --- recording calls ---------------------------------------------------------------------
def record(
    function: Any, args: tuple, kwargs: dict, method: bool = False, eagerly: bool = False
) -> Any:
    """Call `function` and put the call on every open eager tape of this thread, with the
    Variables it used and their values before the call. `method`: args[0] is the bound
    instance (`Function._call`'s argument); `eagerly`: the call runs the Python function
    (`tj.config.run_functions_eagerly`), so NumPy may write any argument in place."""
    tapes = [t for t in open_tapes() if not t.paused]
    if not tapes:
        return function._call(args, kwargs, method=method)
    for tape in tapes:  # the Functions this one calls (eagerly) are part of its record
        tape.paused = True
    try:
        with noting_uses() as used:
            if eagerly:
                for leaf in flatten((args, kwargs))[0]:
                    note_array(leaf)
            result = function._call(args, kwargs, method=method)
    finally:
        for tape in tapes:
            tape.paused = False
    outputs = flatten(result)[0]
    variables = [(v, value) for v, value in used.values() if isinstance(v, Variable)]
    written = {key: value for key, (a, value) in used.items() if isinstance(a, np.ndarray)}
    for tape in tapes:
        tape.calls.append(Call(function, args, dict(kwargs), outputs, variables,
                               tape.differentiated(variables), written))
    return result


def opened() -> None:
    global open_count
    open_count += 1


def closed() -> None:
    global open_count
    open_count -= 1


# --- the vector-Jacobian product of a Function --------------------------------------------
_vjps: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
# id(Variable) -> the Variable that vector-Jacobian products read and write in its place
_copies: dict[int, Variable] = {}
_copy_ids: set[int] = set()  # the copies' own ids
_copies_lock = threading.RLock()  # one product at a time fills and runs on the copies


@atexit.register
def _drop_products() -> None:
    """Before the interpreter tears modules down: the products' traces hold the Variables
    they were given by identity, whose death callbacks then find no modules to call."""
    _vjps.clear()


def run_vjp(call: Call, seeds: list[np.ndarray]) -> tuple[list[Any], list[tuple[Any, Any]]]:
    """Cotangents of the call's argument leaves (None for non-float ones) and of the
    Variables it differentiates (`call.variables`), at the values the call began with.

    Compiled even under `tj.config.run_functions_eagerly(True)` (through its
    ConcreteFunction): the gradient of a call run as plain NumPy comes from its trace."""
    vjp = vjp_function(call.function)
    variables = tuple(call.variables)
    with _copies_lock:
        for variable, value in call.used:
            _copy_of(variable).assign(value)
        leaves, tree = flatten((call.args, call.kwargs))  # the arguments as the call got them
        args, kwargs = unflatten(tree, [call.written.get(id(x), x) for x in leaves])
        concrete = vjp.get_concrete_function(args, kwargs, variables, seeds)
        arg_grads, var_grads = concrete(args, kwargs, variables, seeds)
    return list(arg_grads), list(zip(variables, var_grads, strict=True))


def vjp_function(function: Any):
    """A `tj.Function` computing a call's cotangents: of its float array arguments, and
    (`variables`) of those Variables. Its trace reads each Variable's copy (`_copy_of`)."""
    if function in _vjps:
        return _vjps[function]
    from tracejit.frontend.autodiff.tape import GradientTape
    from tracejit.frontend.staging.tensor import Tensor
    from tracejit.frontend.staging.tracing import current_trace

    def vjp(args, kwargs, variables, seeds):
        context = current_trace()
        context.substitute = functools.partial(_substitute, context)
        leaves, tree = flatten((args, kwargs))
        with GradientTape(persistent=True, watch_accessed_variables=False) as tape:
            tape.watch([x for x in leaves if isinstance(x, Tensor)])
            args, kwargs = unflatten(tree, leaves)
            outputs = flatten(function._call(args, kwargs))[0]  # inlined: the tape records
        sources = [x if isinstance(x, Tensor) and x.dtype.kind == "f" else None for x in leaves]
        wanted = [x for x in sources if x is not None]
        grads = iter(tape.gradient(outputs, wanted, output_gradients=seeds))
        arg_grads = [next(grads) if x is not None else None for x in sources]
        copies = [_copy_of(v) for v in variables]
        tape.watch(copies)
        var_grads = tape.gradient(outputs, copies, output_gradients=seeds,
                                  unconnected_gradients="zero")
        return arg_grads, var_grads

    assert make_function is not None, "tj.function installs itself (frontend/api/function.py)"
    vjp_fn = make_function(vjp)
    _vjps[function] = vjp_fn
    return vjp_fn


def _substitute(context: Any, variable: Variable) -> Variable:
    """In a vector-Jacobian product's trace: the copy in place of each Variable (not one
    the traced code creates itself, nor a copy)."""
    if any(variable is made for made in context.created_variables):
        return variable
    if id(variable) in _copy_ids:
        return variable
    return _copy_of(variable)


COPY_SUFFIX = "/vjp"  # a copy's name: the Variable's, then this


def _copy_of(variable: Variable) -> Variable:
    """The one Variable that stands for `variable` in vector-Jacobian products (made on
    first use, outside every trace's bookkeeping; dropped with `variable`)."""
    from tracejit.frontend.staging.tracing import current_trace, is_tracing

    with _copies_lock:
        copy = _copies.get(id(variable))
        if copy is None:
            copy = Variable(variable._buffer, name=f"{variable.name.split(':')[0]}{COPY_SUFFIX}",
                            trainable=True)
            if is_tracing():  # not a Variable the traced function creates
                current_trace().created_variables.remove(copy)
            _copies[id(variable)] = copy
            _copy_ids.add(id(copy))
            weakref.finalize(variable, _forget_copy, id(variable), id(copy))
        return copy


def _forget_copy(original: int, copy: int) -> None:
    _copies.pop(original, None)
    _copy_ids.discard(copy)


def jacobian(tape: Any, target: Any, sources: Any, unconnected: str) -> Any:
    """One gradient per element of `target`, with a one-hot `output_gradients` (np.stack
    and np.reshape stage ops on Tensors while tracing)."""
    persistent, tape._persistent = tape._persistent, True
    try:
        shape = tuple(np.shape(target))
        dtype = target.dtype
        rows = []
        for flat in range(int(np.prod(shape))):
            seed = np.zeros(shape, dtype)
            seed[np.unravel_index(flat, shape)] = 1
            rows.append(tape.gradient(target, sources, seed, unconnected))
    finally:
        tape._persistent = persistent
    leaves, tree = flatten(sources)
    columns: list[Any] = []
    for k, leaf in enumerate(leaves):
        parts = [flatten(row)[0][k] for row in rows]
        if any(p is None for p in parts):
            columns.append(None)
            continue
        stacked = np.stack(parts) if parts else np.zeros((0, *np.shape(leaf)), dtype)
        columns.append(np.reshape(stacked, shape + tuple(np.shape(leaf))))
    return unflatten(tree, columns)
