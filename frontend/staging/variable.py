"""`tj.Variable`: mutable state that compiled functions read and write in place.

A Variable owns a C-contiguous NumPy buffer of fixed shape and dtype. Eagerly, its
methods work on that buffer. While tracing, reading it stages `tj.var_read` and
assigning stages `tj.var_write` on a `!tj.var` handle: the kernel receives the
buffer's address and updates it in place, so new values are visible from Python after
the call. NumPy functions and operators on a Variable use its current value.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
from numpy.typing import DTypeLike

from tracejit.frontend.staging import array_subclasses
from tracejit.frontend.staging.array_operators import ArrayOperators
from tracejit.frontend.staging.source_location import at_user_line
from tracejit.frontend.staging.tensor import Tensor
from tracejit.frontend.staging.tracing import current_trace, emit, is_tracing
from tracejit.ir.dtypes import tensor_type
from tracejit.ir.state import VarReadOp, VarWriteOp

_names = itertools.count()
_unnamed = itertools.count()  # unnamed Variables made so far, for their names
_uses = threading.local()
# How many `noting_uses` scopes are open in any thread: a Variable's eager reads and
# writes (and a kernel's) check this one int before they look for one.
noting = 0


@contextmanager
def noting_uses() -> Iterator[dict[int, tuple[object, np.ndarray]]]:
    """Collect the Variables used in the block (read or written, by a kernel or eagerly),
    and the argument arrays a kernel writes, each with a copy of its value from before the
    block's first use of it: the values an eager GradientTape differentiates a recorded
    tj.Function call at (autodiff/eager.py)."""
    global noting
    if not hasattr(_uses, "stack"):
        _uses.stack = []
    used: dict[int, tuple[object, np.ndarray]] = {}
    _uses.stack.append(used)
    noting += 1
    try:
        yield used
    finally:
        noting -= 1
        _uses.stack.pop()


def note_use(variable: Variable | None) -> None:
    """Inside `noting_uses`: keep the value `variable` has before this first use."""
    if variable is None or not getattr(_uses, "stack", None):
        return
    used = _uses.stack[-1]
    if id(variable) not in used:
        used[id(variable)] = (variable, variable._buffer.copy())


def note_array(array: object) -> None:
    """Inside `noting_uses`: keep the value of an argument array the call will write."""
    if not isinstance(array, np.ndarray) or not getattr(_uses, "stack", None):
        return
    used = _uses.stack[-1]
    if id(array) not in used:
        used[id(array)] = (array, array.copy())


class Variable(ArrayOperators):
    """A NumPy array that `tj.function`s can update in place (mirrors `tf.Variable`).

    A Variable owns a C-contiguous buffer of fixed shape and dtype. A compiled function that
    uses it reads and writes that buffer directly (it is not an argument: the trace captures
    it), so what a call assigns is visible from Python once the call returns. Eagerly the
    methods work on the buffer; NumPy functions and operators use the current value.

    Create each Variable once, outside the function (or on its first call only): creating
    one while a function traces a second time raises a ValueError, as in TensorFlow.

    Parameters
    ----------
    initial_value : array_like or callable
        The value (copied), or a function of no arguments that returns it. Not a value
        computed while tracing.
    dtype : dtype, optional
        The dtype; by default that of `np.array(initial_value)`.
    name : str, optional
        Shown in reprs and errors, with `:0` added (`"w"` -> `"w:0"`); by default
        `Variable:0`, `Variable_1:0`, ... in the order they are made.
    trainable : bool, default True
        Whether `tj.Module.trainable_variables` lists it and a `tj.GradientTape` watches it
        when it is read.

    Raises
    ------
    TypeError
        `initial_value` is a tensor being traced, or an array subclass tracejit refuses.

    Examples
    --------
    >>> counter = tj.Variable(np.int64(0), name="counter")
    >>> @tj.function
    ... def count(x):
    ...     counter.assign_add(len(x))
    ...     return counter.value()
    >>> count(np.ones(3)), count(np.ones(3))
    (np.int64(3), np.int64(6))
    >>> counter
    <tj.Variable 'counter:0' shape=() dtype=int64, numpy=6>
    """

    __array_priority__ = 2000  # above Tensor: NumPy asks the Variable first

    def __init__(
        self,
        initial_value: object,
        dtype: DTypeLike | None = None,
        name: str | None = None,
        trainable: bool = True,
    ):
        if callable(initial_value):
            initial_value = initial_value()
        if isinstance(initial_value, Tensor | Variable):
            initial_value = _concrete(initial_value)
        array_subclasses.check_argument(initial_value, "initial_value")
        self._buffer = np.array(initial_value, dtype=dtype, order="C", copy=True)
        if not self._buffer.dtype.isnative:
            self._buffer = self._buffer.astype(self._buffer.dtype.newbyteorder("="))
        if name is None:  # distinct, as TensorFlow's graph names: Variable:0, Variable_1:0, ...
            unnamed = next(_unnamed)
            name = "Variable" if unnamed == 0 else f"Variable_{unnamed}"
        self._name = name if ":" in name else f"{name}:0"
        self.trainable = trainable
        self._id = next(_names)
        if is_tracing():
            current_trace().created_variables.append(self)

    # --- metadata ------------------------------------------------------------------
    @property
    def name(self) -> str:
        """The name, with its `:0` suffix.

        >>> tj.Variable(1.0, name="scale").name
        'scale:0'
        """
        return self._name

    @property
    def shape(self) -> tuple[int, ...]:
        """The shape (fixed: an assignment must have it).

        >>> tj.Variable(np.zeros((2, 3)), name="w").shape
        (2, 3)
        """
        return self._buffer.shape

    @property
    def dtype(self) -> np.dtype:
        """The dtype (fixed: assigned values are cast to it, as `np.copyto` casts).

        >>> tj.Variable([1, 2], dtype=np.float32, name="v").dtype
        dtype('float32')
        """
        return self._buffer.dtype

    @property
    def ndim(self) -> int:
        """The number of dimensions.

        >>> tj.Variable(np.zeros((2, 3)), name="w").ndim
        2
        """
        return self._buffer.ndim

    def numpy(self) -> np.ndarray:
        """A copy of the current value (a NumPy scalar for 0-d Variables).

        >>> tj.Variable([1.0, 2.0], name="v").numpy()
        array([1., 2.])
        """
        if is_tracing():  # the value now would be a constant of the compiled code
            raise TypeError(
                at_user_line(
                    f"{self._name}.numpy() while tracing would freeze the Variable's value of "
                    "now into the compiled code (later assignments would be missed, as "
                    "tf.function's .numpy() refuses too): use the Variable itself (`v * 2`, "
                    "`v.value()`)"
                )
            )
        return self._current()

    def _current(self) -> Any:
        """A copy of the buffer (a NumPy scalar for 0-d), noted for an eager tape."""
        if noting:
            note_use(self)
        value = self._buffer.copy()
        return value[()] if value.ndim == 0 else value

    def __repr__(self) -> str:
        value = str(self._buffer[()])
        if self.ndim:
            value = np.array2string(self._buffer, separator=", ")
        return f"<tj.Variable '{self._name}' shape={self.shape} dtype={self.dtype}, numpy={value}>"

    # --- reading and writing --------------------------------------------------------------
    def _handle(self):
        return current_trace().capture_variable(self, tensor_type(self.shape, self.dtype))

    def value(self) -> Any:
        """The current value: a staged read while tracing, else a copy of the buffer.

        `read_value` is the same method.

        >>> v = tj.Variable([1.0, 2.0], name="v")
        >>> @tj.function
        ... def scaled():
        ...     return v.value() * 10
        >>> scaled()
        array([10., 20.])
        """
        if is_tracing():
            return Tensor(emit(VarReadOp(self._handle())).result)
        return self.numpy()

    read_value = value

    def assign(
        self,
        value: object,
        use_locking: bool = False,
        name: str | None = None,
        read_value: bool = True,
    ) -> Any:
        """Overwrite the value (same shape; cast like `np.copyto(..., casting='same_kind')`).

        Parameters
        ----------
        value : array_like
            The new value, of the Variable's shape.
        use_locking, name
            Accepted for TensorFlow compatibility; ignored.
        read_value : bool, default True
            While tracing: return the new value (else None).

        Returns
        -------
        The Variable itself eagerly; while tracing the new value as a tensor (or None).

        Raises
        ------
        ValueError
            The value's shape differs from the Variable's.
        TypeError
            (while tracing) the value's dtype cannot be cast to the Variable's ("same_kind").

        Examples
        --------
        >>> v = tj.Variable([1.0, 2.0], name="v")
        >>> v.assign([3.0, 4.0])
        <tj.Variable 'v:0' shape=(2,) dtype=float64, numpy=[3., 4.]>
        >>> v.assign([1.0, 2.0, 3.0])  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ValueError: cannot assign a value of shape (3,) to the Variable v:0 of shape (2,) ...
        """
        if is_tracing():
            new = self._as_tensor(value)
            emit(VarWriteOp(new.value, self._handle()))
            return self.value() if read_value else None
        array = np.asarray(value)
        self._check_shape(array.shape)
        if noting:
            note_use(self)
        np.copyto(self._buffer, array, casting="same_kind")
        return self

    def assign_add(
        self,
        delta: Any,
        use_locking: bool = False,
        name: str | None = None,
        read_value: bool = True,
    ) -> Any:
        """Add `delta` to the value in place (`assign(value + delta)`).

        >>> v = tj.Variable([1.0, 2.0], name="v")
        >>> v.assign_add([10.0, 10.0]).numpy()
        array([11., 12.])
        """
        return self.assign(np.add(self.value(), delta), read_value=read_value)

    def assign_sub(
        self,
        delta: Any,
        use_locking: bool = False,
        name: str | None = None,
        read_value: bool = True,
    ) -> Any:
        """Subtract `delta` from the value in place (`assign(value - delta)`).

        >>> v = tj.Variable([1.0, 2.0], name="v")
        >>> v.assign_sub(1.0).numpy()
        array([0., 1.])
        """
        return self.assign(np.subtract(self.value(), delta), read_value=read_value)

    def _as_tensor(self, value: object) -> Tensor:
        from tracejit.frontend.staging import primitives

        if isinstance(value, Variable):
            value = value.value()
        if not isinstance(value, Tensor):
            value = primitives.constant(np.asarray(value).astype(self.dtype, casting="same_kind"))
        value = self._with_static_shape(value)
        self._check_shape(value.shape)
        if not np.can_cast(value.dtype, self.dtype, "same_kind"):
            raise TypeError(
                at_user_line(f"cannot assign a {value.dtype} value to {self._name} ({self.dtype})")
            )
        return primitives.cast(value, self.dtype)

    def _with_static_shape(self, value: Tensor) -> Tensor:
        """A value whose dims unknown at trace time stand where the Variable's are known
        (`v.assign_add(x)` for `TensorSpec([None])`): the caller checks the sizes agree
        before the call (InvalidArgumentError), and the value takes the static shape."""
        from tracejit.frontend.staging import primitives
        from tracejit.frontend.staging.dims import Unknown, require_equal
        from tracejit.frontend.staging.tracing import current_trace

        if None not in value.shape or value.ndim != len(self.shape):
            return value
        pairs = list(zip(value.dims, self.shape, strict=True))
        if any(isinstance(d, int | Unknown) and d != s for d, s in pairs):
            return value  # a static mismatch, or a size only the kernel knows: refused below
        for pair in pairs:
            require_equal(pair, current_trace().dim_constraints)
        return primitives.reshape(value, self.shape)

    def _check_shape(self, shape: tuple) -> None:
        if tuple(shape) != self.shape:
            raise ValueError(
                at_user_line(
                    f"cannot assign a value of shape {tuple(shape)} to the Variable {self._name} "
                    f"of shape {self.shape}"
                )
            )

    # --- NumPy protocols: use the current value ------------------------------------------
    def __array__(self, dtype: DTypeLike | None = None, copy: bool | None = None) -> np.ndarray:
        if is_tracing():
            raise TypeError(
                at_user_line(f"{self._name} cannot become a concrete array while tracing")
            )
        if noting:
            note_use(self)
        return self._buffer.astype(dtype) if dtype is not None else self._buffer.copy()

    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: object, **kwargs: object):
        return getattr(ufunc, method)(*_values(inputs), **kwargs)

    def __array_function__(
        self, func: Callable[..., object], types: object, args: tuple, kwargs: dict
    ):
        return func(*_values(args), **{k: _values(v) for k, v in kwargs.items()})

    def __getitem__(self, index: object) -> Any:
        return self.value()[index]

    def __len__(self) -> int:
        return len(self._buffer)

    def __bool__(self) -> bool:
        return bool(self.value())

    def __float__(self) -> float:
        return float(self.value())  # while tracing: refused, as a traced value's float() is

    def __int__(self) -> int:
        return int(self.value())

    __hash__ = object.__hash__


def _values(value: object) -> Any:
    """Replace Variables (also inside lists/tuples) by their current values."""
    if isinstance(value, Variable):
        return value.value()
    if isinstance(value, list | tuple):
        return type(value)(_values(v) for v in value)
    return value


def _concrete(value: object) -> np.ndarray:
    if isinstance(value, Variable):
        return value._current()  # a Variable is created once: its initial value is this
    known = _trace_constant(value)
    if known is not None:  # `tj.Variable(np.ones_like(x))`, as the API page writes it
        return known
    raise TypeError(
        at_user_line(
            "a tj.Variable needs a concrete initial value (an array or number), not a "
            "symbolic tensor whose value is known only at run time (it depends on the "
            "function's inputs, a Variable or a dim of unknown size); create the Variable "
            "outside the function, or from values known while tracing (np.ones(x.shape) "
            "* 2 when x's shape is known)"
        )
    )


def _trace_constant(value: object) -> np.ndarray | None:
    """The array a tensor of the trace holds when it is computed from constants alone
    (`np.ones_like(x)` under AutoGraph, `np.ones_like(x) * 2`, `np.eye(3) + 1`), or None."""
    from tracejit.ir.folding import constant_value
    from tracejit.runtime.graph_interpreter import evaluate_constant

    if not isinstance(value, Tensor):
        return None
    shape = tuple(d for d in value.shape if d is not None)
    if len(shape) != value.ndim:
        return None
    known = constant_value(value.value)
    if known is None:
        known = evaluate_constant(value.value)
    if known is None:
        return None
    return np.array(np.broadcast_to(known, shape))
