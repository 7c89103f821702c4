"""`tj.GradientTape`: record the ops staged while it is open, differentiate them on demand.

Inside a `tj.function` the tape notes where in the traced function it was opened; the ops
staged after that point are the tape's record. `tape.gradient(target, sources)` runs the
reverse sweep (backprop.py) over them and stages the adjoint ops right there, so the
gradient is part of the same kernel as the forward pass (and fuses with it). A
`tj.Function` called while a tape records is inlined rather than called, so its ops are
on the record too.

Outside a `tj.function` (eagerly) the tape records calls of `tj.Function`s: each call's
gradient is another compiled `tj.Function` (the call's vector-Jacobian product), run
backwards over the recorded calls.
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np
from xdsl.ir import Block, Operation, SSAValue

from tracejit.frontend.autodiff import eager
from tracejit.frontend.autodiff.adjoints import zeros_like
from tracejit.frontend.autodiff.backprop import NotDifferentiableError, backpropagate, is_float
from tracejit.frontend.autodiff.variable_reads import hoist_invariant_reads
from tracejit.frontend.staging import primitives
from tracejit.frontend.staging.source_location import at_user_line
from tracejit.frontend.staging.tensor import Tensor
from tracejit.frontend.staging.tracing import TraceContext, current_trace, is_tracing
from tracejit.frontend.staging.variable import Variable
from tracejit.ir.elementwise_binary import AddOp as _ADD
from tracejit.ir.state import VarReadOp, VarWriteOp
from tracejit.runtime.structure import flatten, unflatten

_local = threading.local()
UNCONNECTED = ("none", "zero")


def _open_tapes() -> list[GradientTape]:
    if not hasattr(_local, "tapes"):
        _local.tapes = []
    return _local.tapes


def recording_in(context: TraceContext) -> bool:
    """Whether a tape records ops staged into `context` now (nested calls are inlined)."""
    return any(t._trace is context and t._recording for t in _open_tapes())


class GradientTape:
    """Records operations for automatic differentiation (mirrors `tf.GradientTape`).

    Inside a `tj.function`, the tape records the NumPy operations traced while it is open;
    `gradient` then stages the reverse sweep into the same trace, so one kernel computes
    the values and their gradients. Outside, it records calls of `tj.Function`s (plain
    NumPy code between them is not recorded), and `gradient` runs each call's compiled
    vector-Jacobian product backwards. Trainable Variables read while it records are
    watched; arrays and tensors must be given to `watch`.

    Parameters
    ----------
    persistent : bool, default False
        Allow more than one `gradient` (or `jacobian`) call; else the second raises.
    watch_accessed_variables : bool, default True
        Watch every trainable `tj.Variable` read while recording.

    Examples
    --------
    Inside a compiled function, the gradient is part of its kernel:

    >>> w = tj.Variable([1.0, 2.0], name="w")
    >>> @tj.function
    ... def loss_and_gradient(x):
    ...     with tj.GradientTape() as tape:
    ...         loss = np.sum((w * x) ** 2)
    ...     return loss, tape.gradient(loss, w)
    >>> loss_and_gradient(np.array([1.0, 1.0]))
    (np.float64(5.0), array([2., 4.]))

    Eagerly, around calls of compiled functions:

    >>> @tj.function
    ... def cube(x):
    ...     return x ** 3
    >>> x = np.array([3.0])
    >>> with tj.GradientTape() as tape:
    ...     tape.watch(x)
    ...     y = cube(x)
    >>> tape.gradient(y, x)
    array([27.])
    """

    def __init__(self, persistent: bool = False, watch_accessed_variables: bool = True):
        self._persistent = persistent
        self._watch_accessed = watch_accessed_variables
        self._recording = False
        self._used = False
        self._trace: TraceContext | None = None
        self._block: Block | None = None
        self._first: Operation | None = None  # the op before the record (None: the start)
        self._last: Operation | None = None  # the last op recorded, once closed
        self._paused: list[tuple[Operation | None, Operation | None]] = []
        self._watched_values: set[SSAValue] = set()
        self._watched_tensors: dict[int, tuple[Tensor, SSAValue]] = {}
        self._watched_variables: dict[int, Variable] = {}
        self._eager = eager.EagerRecord(
            watch_accessed=watch_accessed_variables, watched_variables=self._watched_variables
        )

    # --- recording -------------------------------------------------------------------
    def __enter__(self) -> GradientTape:
        if is_tracing():
            self._trace = current_trace()
            self._block = self._trace.builder.insertion_point.block
            self._first = self._block.last_op
        self._recording = True
        _open_tapes().append(self)
        if self._trace is None:
            eager.open_tapes().append(self._eager)
            eager.opened()
        return self

    def __exit__(self, *exc: object) -> None:
        self._recording = False
        _open_tapes().remove(self)
        if self._trace is None:
            eager.open_tapes().remove(self._eager)
            eager.closed()
        elif self._block is not None:
            self._last = self._block.last_op

    @contextmanager
    def stop_recording(self) -> Iterator[None]:
        """A context in which ops staged (or Functions called) are not recorded.

        Raises
        ------
        RuntimeError
            The tape is not recording (outside its `with` block).

        Examples
        --------
        >>> @tj.function
        ... def f(x):
        ...     with tj.GradientTape() as tape:
        ...         tape.watch(x)
        ...         y = x * x
        ...         with tape.stop_recording():
        ...             z = y * 10.0  # not differentiated
        ...         total = y + z
        ...     return tape.gradient(total, x)
        >>> f(np.array(3.0))
        np.float64(6.0)
        """
        if not self._recording:
            raise RuntimeError("GradientTape.stop_recording() needs the tape to be recording")
        before = self._block.last_op if self._block is not None else None
        self._recording = False
        self._eager.paused = True
        try:
            yield
        finally:
            self._recording = True
            self._eager.paused = False
            if self._block is not None:
                self._paused.append((before, self._block.last_op))

    def watch(self, tensor: object) -> None:
        """Watch `tensor` (a Tensor, Variable or array, or a nested structure of them), so that
        `gradient` can differentiate with respect to it.

        Eagerly, watch the very array object that is then passed to the recorded calls.

        >>> @tj.function
        ... def f(x):
        ...     with tj.GradientTape() as tape:
        ...         tape.watch(x)
        ...         y = np.sin(x)
        ...     return tape.gradient(y, x)
        >>> f(np.array(0.0))
        np.float64(1.0)
        """
        for leaf in flatten(tensor)[0]:
            if isinstance(leaf, Variable):
                self._watched_variables[id(leaf)] = leaf
            elif isinstance(leaf, Tensor):  # its value now: a later write makes a new one
                self._watched_values.add(leaf.value)
                self._watched_tensors[id(leaf)] = (leaf, leaf.value)
            elif self._trace is None and isinstance(leaf, np.ndarray):
                self._eager.watch(leaf)

    def watched_variables(self) -> tuple[Variable, ...]:
        """The Variables given to `watch` so far (eagerly, also the trainable ones that the
        recorded calls used), each once.

        >>> v = tj.Variable(1.0, name="v")
        >>> with tj.GradientTape() as tape:
        ...     tape.watch(v)
        >>> tape.watched_variables()
        (<tj.Variable 'v:0' shape=() dtype=float64, numpy=1.0>,)
        """
        return tuple(self._watched_variables.values())

    def reset(self) -> None:
        """Forget what was recorded (the tape keeps recording if it is open).

        >>> @tj.function
        ... def f(x):
        ...     with tj.GradientTape() as tape:
        ...         tape.watch(x)
        ...         y = x * x
        ...         tape.reset()
        ...         y = y + x  # only this is recorded
        ...     return tape.gradient(y, x)
        >>> f(np.array(3.0))
        np.float64(1.0)
        """
        if self._block is not None:
            self._first = self._block.last_op
        self._paused.clear()
        self._eager.clear()

    # --- differentiating -------------------------------------------------------------
    def gradient(
        self,
        target: object,
        sources: object,
        output_gradients: object = None,
        unconnected_gradients: str = "none",
    ) -> Any:
        """d(sum of target) / d(each source), structured like `sources`.

        Parameters
        ----------
        target : tensor or array, or a nested structure of them
            What to differentiate (its elements are summed).
        sources : Variable, tensor or array, or a nested structure of them
            What to differentiate with respect to (watched ones).
        output_gradients : optional
            The upstream gradient of each target (a vector-Jacobian product); by default ones.
        unconnected_gradients : {"none", "zero"}, default "none"
            What a source the target does not depend on gets: None, or zeros like it.

        Returns
        -------
        The gradients, structured like `sources`: tensors while tracing, NumPy arrays
        eagerly. An integer or bool source gets None (with a warning, as in TensorFlow).

        Raises
        ------
        RuntimeError
            A second call on a tape that is not `persistent`; or, in a compiled function,
            the call is made outside the function that opened the tape.
        ValueError
            `unconnected_gradients` is neither "none" nor "zero"; or, eagerly, the target
            was not computed by a `tj.Function` called while the tape recorded.

        Examples
        --------
        >>> @tj.function
        ... def grads(x, y):
        ...     with tj.GradientTape() as tape:
        ...         tape.watch([x, y])
        ...         z = np.sum(x * y)
        ...     return tape.gradient(z, [x, y])
        >>> grads(np.array([1.0, 2.0]), np.array([3.0, 4.0]))
        [array([3., 4.]), array([1., 2.])]
        """
        if unconnected_gradients not in UNCONNECTED:
            raise ValueError(f"unconnected_gradients must be one of {UNCONNECTED}")
        if self._used and not self._persistent:
            raise RuntimeError(
                "A non-persistent GradientTape can only be used to compute one set of "
                "gradients (or jacobians); use tj.GradientTape(persistent=True)"
            )
        self._used = True
        _warn_non_float_sources(sources)
        if self._trace is None:
            return self._eager.gradient(target, sources, output_gradients, unconnected_gradients)
        if not is_tracing() or current_trace() is not self._trace:
            raise RuntimeError(
                at_user_line("call tape.gradient in the tj.function that opened the tape")
            )
        return self._traced_gradient(target, sources, output_gradients, unconnected_gradients)

    def _recorded_ops(self) -> list[Operation]:
        assert self._block is not None
        ops: list[Operation] = []
        op = self._block.first_op if self._first is None else self._first.next_op
        end = self._last if not self._recording else self._block.last_op
        paused = {id(o) for first, last in self._paused for o in _between(self._block, first, last)}
        while op is not None:
            if id(op) not in paused:
                ops.append(op)
            if op is end:
                break
            op = op.next_op
        return ops

    def _traced_gradient(self, target, sources, output_gradients, unconnected):
        ops = self._recorded_ops()
        targets, _ = flatten(target)
        source_leaves, source_tree = flatten(sources)
        seeds = _seeds(targets, output_gradients)
        owners = self._variable_owners()
        ops, nested = hoist_invariant_reads(ops, owners)
        variable_reads, aliases = self._variable_reads(ops, owners)
        starts: set[SSAValue] = set(self._watched_values)
        for leaf in source_leaves:  # a Tensor is a source if watched or computed from one
            if isinstance(leaf, Variable) and self._is_watched(leaf, variable_reads):
                if id(leaf) in nested:
                    raise NotDifferentiableError(at_user_line(nested[id(leaf)]))
                starts.update(variable_reads.get(id(leaf), ()))
        was_recording, self._recording = self._recording, False  # not on our own record
        try:
            cotangents = backpropagate(ops, seeds, starts, aliases)
            results = [
                self._gradient_of(leaf, cotangents, variable_reads, unconnected)
                for leaf in source_leaves
            ]
        finally:
            self._recording = was_recording
        return unflatten(source_tree, results)

    def _value_watched(self, tensor: Tensor) -> SSAValue:
        """The value a source stands for: the one it had when watched (an array the
        function wrote since holds a new value), else its value now."""
        watched = self._watched_tensors.get(id(tensor))
        return watched[1] if watched is not None and watched[0] is tensor else tensor.value

    def _is_watched(self, variable: Variable, reads: dict[int, list[SSAValue]]) -> bool:
        accessed = self._watch_accessed and variable.trainable and id(variable) in reads
        return accessed or id(variable) in self._watched_variables

    def _variable_owners(self) -> dict[SSAValue, Variable]:
        """The trace's Variable handles, and their Variables."""
        assert self._trace is not None
        return {
            handle: variable
            for variable in self._trace.variables
            if (handle := self._trace._handles.get(id(variable))) is not None
        }

    def _variable_reads(self, ops: Sequence[Operation], owners: dict[SSAValue, Variable]):
        """Per Variable, the recorded reads of its initial value; and, for reads after a
        recorded write, the value written (`aliases`)."""
        reads: dict[int, list[SSAValue]] = {}
        written: dict[SSAValue, SSAValue] = {}
        aliases: dict[SSAValue, SSAValue] = {}
        for op in ops:
            if isinstance(op, VarWriteOp):
                written[op.var] = op.value
            elif isinstance(op, VarReadOp) and op.var in owners:
                if op.var in written:
                    aliases[op.result] = written[op.var]
                else:
                    reads.setdefault(id(owners[op.var]), []).append(op.result)
                    if self._watch_accessed and owners[op.var].trainable:
                        self._watched_variables.setdefault(id(owners[op.var]), owners[op.var])
        return reads, aliases

    def _gradient_of(self, leaf, cotangents, variable_reads, unconnected) -> object:
        if isinstance(leaf, Variable):
            grads = [cotangents[v] for v in variable_reads.get(id(leaf), ()) if v in cotangents]
            like = None if not is_float_dtype(leaf.dtype) else leaf.value()
        elif isinstance(leaf, Tensor):
            value = self._value_watched(leaf)
            grads = [cotangents[value]] if value in cotangents else []
            like = Tensor(value) if is_float(value) else None
        else:
            raise TypeError(
                at_user_line(
                    f"tape.gradient sources must be Tensors or tj.Variables, got "
                    f"{type(leaf).__name__} (a value the trace holds as a constant has no "
                    "gradient; pass it to the tj.function as an argument)"
                )
            )
        if grads:
            total = grads[0]
            for g in grads[1:]:
                total = primitives.binary(_ADD, total, g)
            return total
        if unconnected == "zero" and like is not None:
            return zeros_like(like)
        return None

    # --- Jacobians ---------------------------------------------------------------------
    def jacobian(self, target: object, sources: object, unconnected_gradients: str = "none") -> Any:
        """d target[i] / d source[j] for every element: shape `target.shape + source.shape`
        (one reverse sweep per target element, so for small targets).

        >>> @tj.function
        ... def square(x):
        ...     return x * x
        >>> x = np.array([1.0, 2.0])
        >>> with tj.GradientTape() as tape:
        ...     tape.watch(x)
        ...     y = square(x)
        >>> tape.jacobian(y, x)
        array([[2., 0.],
               [0., 4.]])
        """
        return eager.jacobian(self, target, sources, unconnected_gradients)


def _warn_non_float_sources(sources: object) -> None:
    """TensorFlow's warning for a source that cannot have a gradient (an integer or bool
    Variable or array): its gradient is None (zeros with unconnected_gradients="zero")."""
    for leaf in flatten(sources)[0]:
        dtype = getattr(leaf, "dtype", None)
        if dtype is not None and not is_float_dtype(dtype):
            warnings.warn(
                "The dtype of the source tensor must be floating (e.g. float32) when calling "
                f"GradientTape.gradient, got {np.dtype(dtype)}: its gradient is None",
                stacklevel=3,
            )


def is_float_dtype(dtype: np.dtype) -> bool:
    return np.dtype(dtype).kind == "f"


def _seeds(targets: list[object], output_gradients: object) -> dict[SSAValue, Tensor]:
    given = [None] * len(targets) if output_gradients is None else flatten(output_gradients)[0]
    if len(given) != len(targets):
        raise ValueError(
            at_user_line("output_gradients must have one cotangent per target (same structure)")
        )
    seeds: dict[SSAValue, Tensor] = {}
    for target, seed in zip(targets, given, strict=True):
        if isinstance(target, Variable):
            target = target.value()
        if not isinstance(target, Tensor) or not is_float(target.value):
            continue  # constants and integer targets contribute nothing
        if seed is None:
            seed_tensor = primitives.broadcast_to(
                primitives.constant(np.ones((), target.dtype)), target.dims
            )
        else:
            seed_tensor = seed if isinstance(seed, Tensor) else primitives.constant(
                np.asarray(seed, target.dtype)
            )
            seed_tensor = primitives.broadcast_to(primitives.cast(seed_tensor, target.dtype),
                                                  target.dims)
        known = seeds.get(target.value)
        seeds[target.value] = seed_tensor if known is None else primitives.binary(
            _ADD, known, seed_tensor
        )
    return seeds


def _between(block: Block, first: Operation | None, last: Operation | None) -> list[Operation]:
    """The ops of `block` after `first` (None: from the start) up to `last` included."""
    if last is None or last is first:
        return []
    ops, op = [], block.first_op if first is None else first.next_op
    while op is not None:
        ops.append(op)
        if op is last:
            break
        op = op.next_op
    return ops

