"""Array creation inside traced functions.

* `np.linspace` with an end that is a traced scalar (a NumPy scalar argument, `x.min()`)
  is staged, in NumPy's arithmetic; `num` must be a Python int.
* `np.zeros/ones/full/empty/arange/linspace/eye/identity/tri` with Python arguments are
  not staged at all: NumPy runs them at trace time and the resulting arrays become
  `tj.constant`s where they meet a tensor (or are returned). Constants of equal
  elements are stored as splats, so `np.zeros((1000, 1000))` stays small in the IR.
* `np.zeros_like/ones_like/empty_like/full_like` on a tensor dispatch here through
  `__array_function__` and become constants of the tensor's shape and dtype (or the
  `shape=`/`dtype=` overrides); `empty_like` is zero-filled. A symbolic `fill_value` is
  cast and broadcast instead.
* `np.full(shape, tensor)` and `np.arange(tensor)` never reach `__array_function__`
  (NumPy's `full` converts its fill value with `np.asarray`, `arange` is built in). We
  do not patch NumPy for them (a library must not change NumPy for the whole process):
  they fail with the tensor's "cannot be converted to a NumPy array" TypeError. Write
  `np.full_like(x, value)` or `np.broadcast_to(value, shape)` instead; a length that
  depends on run-time data (`np.arange(n_tensor)`) is not supported.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import DTypeLike

from tracejit.frontend.numpy_api.registry import implements, unsupported
from tracejit.frontend.staging import primitives, runtime_sizes
from tracejit.frontend.staging.source_location import at_user_line
from tracejit.frontend.staging.tensor import Tensor


def _target(a: Tensor, dtype: DTypeLike | None, shape: Any) -> tuple[tuple[int, ...], np.dtype]:
    """The shape and dtype of `np.*_like(a, dtype=dtype, shape=shape)`."""
    if shape is None:
        shape = a.shape
    return _as_shape(shape), np.dtype(a.dtype if dtype is None else dtype)


def _as_shape(shape: int | Sequence[int]) -> tuple[int, ...]:
    return (int(shape),) if isinstance(shape, int | np.integer) else tuple(int(d) for d in shape)


def _check_device(fn: Callable, device: object) -> None:
    if device not in (None, "cpu"):
        raise unsupported(fn, f"(..., device={device!r})")


def filled(shape: Sequence[int], fill_value: Tensor, dtype: DTypeLike | None = None) -> Tensor:
    """A tensor of `shape` holding the symbolic `fill_value` (cast unsafely, broadcast)."""
    shape = _as_shape(shape)
    fill = primitives.cast(fill_value, np.dtype(fill_value.dtype if dtype is None else dtype))
    try:
        fits = np.broadcast_shapes(fill.shape, shape) == shape  # type: ignore[arg-type]  # None dims fail as NumPy's error
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(
            at_user_line(
                f"could not broadcast input array from shape {fill.shape} into shape {shape}"
            )
        )
    return primitives.broadcast_to(fill, shape)


def _constant_like(numpy_fn: Callable, fill: int) -> Callable[..., Tensor]:
    """`np.zeros_like`-style: a constant; `order`/`subok` do not change the values."""

    def like(a, dtype=None, order="K", subok=True, shape=None, *, device=None) -> Tensor:
        _check_device(numpy_fn, device)
        if shape is None and _has_unknown_dims(a):
            value = primitives.constant(np.full((), fill, a.dtype if dtype is None else dtype))
            return _array(_broadcast_like(value, a))
        measured = runtime_sizes.sizes_to_dims(shape)
        if measured is not None:  # shape=(x.shape[0], 2): sizes only the kernel knows
            value = primitives.constant(np.full((), fill, a.dtype if dtype is None else dtype))
            return _array(primitives.broadcast_to(value, *measured))
        shape, dtype = _target(a, dtype, shape)
        return _array(primitives.constant(np.full(shape, fill, dtype)))

    return like


def _has_unknown_dims(a: object) -> bool:
    return isinstance(a, Tensor) and None in a.shape


def _broadcast_like(value: Tensor, a: Tensor) -> Tensor:
    """`value` (0-d) broadcast to the shape of `a`, whose dims unknown at trace time are
    read from `a` when the kernel runs."""
    witnesses = {axis: (a.value, axis) for axis, d in enumerate(a.dims) if not isinstance(d, int)}
    return primitives.broadcast_to(value, a.dims, witnesses)


def _array(x: Tensor) -> Tensor:
    """`x`, a new array: even 0-d, an array (not a NumPy scalar), which writes change in
    place (`z[...] = v`, `z += v`), as `np.zeros_like` gives in NumPy."""
    x._is_array = True
    return x


implements(np.zeros_like)(_constant_like(np.zeros_like, 0))
implements(np.ones_like)(_constant_like(np.ones_like, 1))
# The contents of `empty_like` are unspecified; zeros are as good as any.
implements(np.empty_like)(_constant_like(np.empty_like, 0))


@implements(np.full_like)
def full_like(
    a, fill_value, dtype=None, order="K", subok=True, shape=None, *, device=None
) -> Tensor:
    _check_device(np.full_like, device)
    if shape is None and _has_unknown_dims(a):
        target = np.dtype(a.dtype if dtype is None else dtype)
        if isinstance(fill_value, Tensor):
            value = (
                primitives.cast(primitives.reshape(fill_value, ()), target)
                if fill_value.size == 1
                else None
            )
        else:
            value = primitives.constant(np.full((), fill_value, target))
        if value is not None:
            return _array(_broadcast_like(value, a))
    shape, dtype = _target(a, dtype, shape)
    if isinstance(fill_value, Tensor):
        return _array(filled(shape, fill_value, dtype))
    return _array(primitives.constant(np.full(shape, fill_value, dtype)))


# --- numpy.full and numpy.arange: wrapped, see the module docstring ---------------------
# (`__wrapped__` is the original when this module is imported a second time.)


@implements(np.linspace)
def linspace(
    start: Any, stop: Any, num: Any = 50, endpoint: bool = True, retstep: bool = False,
    dtype: Any = None, axis: int = 0, *, device: object = None,
) -> Any:  # fmt: skip
    """`np.linspace` with an end that is a traced scalar (a NumPy scalar argument, a value
    computed in the function): NumPy's steps on the 0-d tensors, `i * step + start` (or
    `i / div * delta` when the step rounds to 0), `stop` last. `num` must be known."""
    from tracejit.frontend.numpy_api.construction import asarray
    from tracejit.frontend.numpy_api.promotion import weak_result_type
    from tracejit.frontend.staging.tensor import dispatched

    if isinstance(num, Tensor) or not isinstance(num, (int, np.integer)):
        raise TypeError(at_user_line("np.linspace: `num` must be a Python int when traced"))
    if num < 0:
        raise ValueError(at_user_line(f"Number of samples, {num}, must be non-negative."))
    if any(np.ndim(end) for end in (start, stop)):
        raise NotImplementedError(
            at_user_line("np.linspace with array ends (one line per element) is not supported")
        )
    inexact = weak_result_type(start, stop, float(num))
    first, last = (primitives.cast(asarray(end), inexact) for end in (start, stop))
    div = num - 1 if endpoint else num
    i = primitives.constant(np.arange(num).astype(inexact))
    delta = dispatched(last - first)
    step: Any
    if div > 0:
        step = dispatched(delta / div)
        y = dispatched(np.where(step == 0, i / div * delta, i * step) + first)
    else:
        step = float("nan")  # NumPy's undefined step, a Python float (0 or 1 sample)
        y = dispatched(i * delta + first)
    if endpoint and num > 1:
        y = dispatched(np.where(i == num - 1, last, y))
    result_type = inexact if dtype is None else np.dtype(dtype)
    if result_type.kind in "iu":
        y = dispatched(np.floor(y))
    y = primitives.cast(y, result_type)
    return (y, step) if retstep else y
