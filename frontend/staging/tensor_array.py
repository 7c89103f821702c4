"""`tj.TensorArray`: a list of same-shaped tensors that staged loops can append to.

The elements are the rows of one tensor, `storage[rows, *element_shape]`, plus a row
count. Outside a trace (eagerly) both are NumPy values; while tracing they are Tensors
and every method stages ops of ir/tensor_array.py:

* fixed size: `storage` has exactly `size` rows from the start (zeros); `write` stages
  a bounds check (`tj.assert`, InvalidArgumentError) and `tj.set_row`;
* `dynamic_size=True`: while every index is a Python int the row count is known at
  trace time and `storage` has exactly that many rows. A write at a run-time index (or
  entering a staged loop) switches to run-time form: `storage` gets a dynamic row count
  (`tj.grow`, amortised doubling) and the count becomes a 0-d tensor; `stack()` is then
  `tj.take_rows`, whose size only the kernel knows (returned through `tj.export`).

A TensorArray flattens (runtime/structure.py) into its storage and, in run-time form,
its count, so staged loops carry it like any other value: `ta = ta.write(i, x)` in a
`for i in tj.range(n)` loop. As in TensorFlow, `write` returns the array to use from
then on; eagerly the old object shares the written storage (do not keep using it).
Reading an index that was never written gives zeros, as TensorFlow does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import DTypeLike
from xdsl.ir import Block

from tracejit.frontend.staging import primitives
from tracejit.frontend.staging.source_location import at_user_line
from tracejit.frontend.staging.tensor import Tensor, weak_type
from tracejit.frontend.staging.tracing import current_trace, emit, is_tracing
from tracejit.ir.dtypes import tensor_type
from tracejit.ir.tensor_array import GetRowOp, GrowOp, SetRowOp, TakeRowsOp, grown_rows
from tracejit.runtime.errors import InvalidArgumentError
from tracejit.runtime.structure import flatten, unflatten

INDEX = np.dtype(np.int64)


class TensorArray:
    """A list of same-shaped arrays that staged loops can carry and grow (mirrors
    `tf.TensorArray`): `write` returns the updated array, `stack` joins the elements.

    The way to collect one value per iteration of a staged loop (`for i in tj.range(n)`),
    where appending to a Python list would happen once, while tracing. As in TensorFlow,
    use the array `write` returns from then on. Reading an index never written gives zeros.

    Parameters
    ----------
    dtype : dtype
        The elements' dtype; a write of another dtype raises a TypeError.
    size : int, default 0
        The number of elements (a Python int), all zeros at first.
    dynamic_size : bool, default False
        Whether writes past the end grow the array (else they raise
        `tj.errors.InvalidArgumentError`). For a size known only at run time, use
        `size=0, dynamic_size=True`.
    element_shape : sequence of int, optional
        The elements' shape; by default the first write's.

    Raises
    ------
    NotImplementedError
        `size` is a tensor, or `element_shape` has unknown (None) dims.
    ValueError
        `size` is negative.

    Examples
    --------
    >>> @tj.function
    ... def squares(n):
    ...     values = tj.TensorArray(np.int64, size=0, dynamic_size=True)
    ...     for i in tj.range(n):
    ...         values = values.write(i, i * i)
    ...     return values.stack()
    >>> squares(np.int64(5))
    array([ 0,  1,  4,  9, 16])
    """

    def __init__(
        self,
        dtype: DTypeLike,
        size: Any = 0,
        dynamic_size: bool = False,
        element_shape: Any = None,
    ):
        self.dtype = np.dtype(dtype)
        if isinstance(size, Tensor):
            raise NotImplementedError(
                at_user_line(
                    "tj.TensorArray(size=...) must be a Python int; for a size known "
                    "only at run time use size=0, dynamic_size=True"
                )
            )
        size = int(size)
        if size < 0:
            raise ValueError(at_user_line(f"tj.TensorArray size must be >= 0, got {size}"))
        self.dynamic_size = bool(dynamic_size)
        # `x.shape` of a dim unknown at trace time holds its run-time size (a Tensor)
        if element_shape is not None and any(
            d is None or isinstance(d, Tensor) for d in tuple(element_shape)
        ):
            raise NotImplementedError(
                at_user_line(
                    f"tj.TensorArray element_shape {tuple(element_shape)} has dims unknown at "
                    "trace time; give every dim, or element_shape=None to take the first write's"
                )
            )
        self.element_shape = None if element_shape is None else tuple(int(d) for d in element_shape)
        self._count: int | Tensor = size
        self._storage: Any = None
        if self.element_shape is not None:
            self._storage = self._zeros(size)

    # --- construction helpers ---------------------------------------------------------
    def _zeros(self, rows: int) -> Any:
        assert self.element_shape is not None
        zeros = np.zeros((rows, *self.element_shape), self.dtype)
        return primitives.constant(zeros) if is_tracing() else zeros

    def _with(self, storage: Any, count: int | Tensor) -> TensorArray:
        new = object.__new__(TensorArray)
        new.dtype, new.dynamic_size, new.element_shape = (
            self.dtype,
            self.dynamic_size,
            self.element_shape,
        )
        new._storage, new._count = storage, count
        return new

    @property
    def _runtime_form(self) -> bool:
        return isinstance(self._count, Tensor)

    def __repr__(self) -> str:
        kind = "dynamic" if self.dynamic_size else "fixed"
        return (
            f"<tj.TensorArray dtype={self.dtype} {kind} size={self._count!r} "
            f"element_shape={self.element_shape}>"
        )

    # --- public API ---------------------------------------------------------------------
    def size(self) -> Any:
        """The number of elements, as an int32 (a 0-d tensor while tracing).

        >>> tj.TensorArray(np.float64, size=3).size()
        np.int32(3)
        """
        if isinstance(self._count, Tensor):
            return primitives.cast(self._count, np.dtype(np.int32))
        if is_tracing():
            return primitives.constant(np.int32(self._count))
        return np.int32(self._count)

    def write(self, index: object, value: Any) -> TensorArray:
        """The array with element `index` set to `value` (use the returned array).

        Raises
        ------
        TypeError
            `value`'s dtype is not the array's.
        tj.errors.InvalidArgumentError
            `index` is negative, or past the end of a fixed-size array (in compiled code,
            when the write runs).

        Examples
        --------
        >>> values = tj.TensorArray(np.float64, size=2)
        >>> values = values.write(0, np.ones(3)).write(1, np.zeros(3))
        >>> values.stack()
        array([[1., 1., 1.],
               [0., 0., 0.]])
        """
        value = self._element(value)
        if isinstance(index, Tensor):
            return self._write_staged(_index_tensor(index), value)
        index = _python_index(index)
        error = _negative_index(index)
        if error is None and index >= self._static_count() and not self.dynamic_size:
            error = InvalidArgumentError(
                at_user_line(
                    f"Tried to write to index {index} but array is not resizeable "
                    f"and size is: {self._static_count()}"
                )
            )
        if error is not None:  # raised if the written array is used (non-strict execution)
            storage = self._storage
            dims = storage.dims if isinstance(storage, Tensor) else storage.shape
            return self._with(primitives.poison(error, dims, self.dtype), self._count)
        if self._runtime_form:
            return self._write_staged(primitives.constant(np.int64(index)), value)
        storage, count = self._grown_static(index + 1), max(self._static_count(), index + 1)
        if isinstance(storage, np.ndarray):
            storage[index] = value
            return self._with(storage, count)
        index_t = primitives.constant(np.int64(index))
        return self._with(
            Tensor(emit(SetRowOp(storage.value, index_t.value, value.value)).result), count
        )

    def read(self, index: Any) -> Any:
        """Element `index` (zeros if it was never written).

        >>> values = tj.TensorArray(np.float64, size=3, element_shape=[2])
        >>> values.write(0, np.array([1.0, 2.0])).read(0)
        array([1., 2.])
        """
        storage = self._require_storage("read")
        if isinstance(index, Tensor) or self._runtime_form:
            index_t = index if isinstance(index, Tensor) else primitives.constant(np.int64(index))
            index_t = _index_tensor(index_t)
            self._check_in_range(index_t, "read from")
            return Tensor(emit(GetRowOp(storage.value, index_t.value)).result)
        index = _python_index(index)
        error = _negative_index(index)
        if error is None and index >= self._static_count():
            error = InvalidArgumentError(
                at_user_line(
                    f"Tried to read from index {index} but array size is: {self._static_count()}"
                )
            )
        if error is not None:  # raised if the element is used (non-strict execution)
            return primitives.poison(error, self.element_shape, self.dtype)  # type: ignore[arg-type]  # element_shape is known here
        if isinstance(storage, np.ndarray):
            return storage[index].copy()
        index_t = primitives.constant(np.int64(index))
        return Tensor(emit(GetRowOp(storage.value, index_t.value)).result)

    def stack(self) -> Any:
        """All elements stacked into one array of shape `(size, *element_shape)`.

        >>> tj.TensorArray(np.int64, size=2).write(1, np.int64(7)).stack()
        array([0, 7])
        """
        storage = self._require_storage("stack")
        if self._runtime_form:
            return Tensor(emit(TakeRowsOp(storage.value, self._count.value)).result)  # type: ignore[union-attr]  # _count is a Tensor here
        if isinstance(storage, np.ndarray):
            return storage[: self._count].copy()
        return storage

    def unstack(self, value: Any) -> TensorArray:
        """An array whose elements are the rows of `value`.

        >>> tj.TensorArray(np.int64, size=3).unstack(np.array([5, 6, 7])).read(2)
        np.int64(7)
        """
        if not isinstance(value, Tensor):
            value = np.array(value)  # a copy: eager writes must not change the caller's array
        _check_dtype(value.dtype, self.dtype, "unstack")
        if value.ndim == 0 or None in value.shape:
            raise ValueError(
                at_user_line(
                    "tj.TensorArray.unstack needs a tensor of static shape and rank >= 1, "
                    f"got shape {value.shape}"
                )
            )
        rows = value.shape[0]
        size = 0 if self.dynamic_size else self._static_count()
        if not self.dynamic_size and rows > size:
            raise InvalidArgumentError(
                at_user_line(f"Tried to unstack {rows} elements into a TensorArray of size {size}")
            )
        self._set_element_shape(tuple(value.shape[1:]))
        if is_tracing() and not isinstance(value, Tensor):
            value = primitives.constant(value)
        if rows < size:  # a fixed-size array keeps its size; the other elements are zeros
            value = np.concatenate([value, self._zeros(size - rows)])
        return self._with(value, max(rows, size))

    # --- internals ----------------------------------------------------------------------
    def _static_count(self) -> int:
        assert isinstance(self._count, int)
        return self._count

    def _element(self, value: Any) -> Any:
        """`value` as an element: the array's dtype and element shape (fixed on first use)."""
        if isinstance(value, Tensor) and value.weak:  # stands for a Python number (a loop
            value = primitives.cast(value, self.dtype)  # variable from a literal): as below
        if isinstance(value, Tensor):
            _check_dtype(value.dtype, self.dtype, "write")
            if None in value.shape:
                raise ValueError(
                    at_user_line(f"tj.TensorArray elements need a static shape, got {value.shape}")
                )
        elif isinstance(value, np.ndarray | np.generic):
            _check_dtype(value.dtype, self.dtype, "write")
            value = np.asarray(value)
        else:
            value = np.asarray(value, self.dtype)  # a Python number or list takes our dtype
        self._set_element_shape(tuple(value.shape))
        if is_tracing() and not isinstance(value, Tensor):
            value = primitives.constant(value)
        return value

    def _set_element_shape(self, shape: tuple) -> None:
        if self.element_shape is None:
            self.element_shape = shape
            if self._storage is None and not self._runtime_form:
                self._storage = self._zeros(self._static_count())
        elif shape != self.element_shape:
            raise ValueError(
                at_user_line(
                    f"tj.TensorArray has element shape {self.element_shape}, "
                    f"cannot hold an element of shape {shape}"
                )
            )

    def _require_storage(self, what: str) -> Any:
        if self._storage is None:
            raise ValueError(
                at_user_line(
                    f"cannot {what} a tj.TensorArray whose element shape is unknown: "
                    "write an element first or pass element_shape="
                )
            )
        return self._storage

    def _grown_static(self, needed: int) -> Any:
        """Storage with at least `needed` rows while the count is known at trace time."""
        storage = self._storage
        rows = storage.shape[0]
        if needed <= rows:
            return storage
        if isinstance(storage, np.ndarray):
            grown = np.zeros((grown_rows(rows, needed), *storage.shape[1:]), storage.dtype)
            grown[:rows] = storage
            return grown
        return np.concatenate([storage, self._zeros(needed - rows)])  # exact while tracing

    def _write_staged(self, index: Tensor, value: object) -> TensorArray:
        array = self.to_runtime_form() if self.dynamic_size else self
        storage = array._require_storage("write to")
        if self.dynamic_size:
            primitives.assert_true(
                index >= 0, at_user_line("InvalidArgumentError: TensorArray index must be >= 0")
            )
            needed = index + np.int64(1)
            storage = Tensor(emit(GrowOp(storage.value, needed.value)).result)
            count: Any = np.maximum(array._count, needed)
        else:
            array._check_in_range(index, "write to")
            count = array._count
        value = value if isinstance(value, Tensor) else primitives.constant(value)
        new = Tensor(emit(SetRowOp(storage.value, index.value, value.value)).result)
        return array._with(new, count)

    def _check_in_range(self, index: Tensor, what: str) -> None:
        size = self._count
        shown = size if isinstance(size, int) else "its current size"
        ok = (index >= 0) & (index < size)
        primitives.assert_true(
            ok,
            at_user_line(
                f"InvalidArgumentError: Tried to {what} a TensorArray index out of range "
                f"[0, {shown})"
            ),
        )

    def to_runtime_form(self) -> TensorArray:
        """This array with a dynamic row count and a run-time count (staged loops carry
        dynamic arrays in this form, so the loop may grow them)."""
        if self._runtime_form or not self.dynamic_size:
            return self
        storage = self._require_storage("carry")
        count = primitives.constant(np.int64(self._static_count()))
        grown = Tensor(emit(GrowOp(storage.value, count.value)).result)
        return self._with(grown, count)

    # --- flattening (runtime/structure.py) ------------------------------------------------
    def __tj_flatten__(self) -> tuple[tuple, list[object]]:
        key = (
            self.dtype,
            self.dynamic_size,
            self.element_shape,
            self._runtime_form,
            None if self._runtime_form else self._count,
            self._storage is None,
        )
        leaves = [] if self._storage is None else [self._storage]
        if self._runtime_form:
            leaves.append(self._count)
        return key, leaves

    @classmethod
    def __tj_unflatten__(cls, key: tuple, leaves: list[Any]) -> TensorArray:
        dtype, dynamic, element_shape, runtime, count, empty = key
        new = object.__new__(cls)
        new.dtype, new.dynamic_size, new.element_shape = dtype, dynamic, element_shape
        values = list(leaves)
        new._storage = None if empty else values.pop(0)
        new._count = values.pop(0) if runtime else count
        return new


def _check_dtype(got: np.dtype, want: np.dtype, what: str) -> None:
    if got != want:
        raise TypeError(
            at_user_line(f"tj.TensorArray of dtype {want} cannot {what} a value of dtype {got}")
        )


def _python_index(index: object) -> int:
    if isinstance(index, np.ndarray) and index.ndim == 0:
        index = index[()]
    if not isinstance(index, int | np.integer) or isinstance(index, bool):
        raise TypeError(at_user_line(f"tj.TensorArray index must be an integer, got {index!r}"))
    return int(index)


def _negative_index(index: int) -> InvalidArgumentError | None:
    if index >= 0:
        return None
    return InvalidArgumentError(at_user_line(f"tj.TensorArray index must be >= 0, got {index}"))


def _index_tensor(index: Tensor) -> Tensor:
    if index.ndim != 0 or index.dtype.kind not in "iu":
        raise TypeError(
            at_user_line(f"tj.TensorArray index must be a 0-d integer tensor, got {index!r}")
        )
    return primitives.cast(index, INDEX)


# --- staged loops ---------------------------------------------------------------------------
def arrays_in(value: object) -> list[TensorArray]:
    """The TensorArrays in a nesting of lists/tuples/dicts, in flattening order."""
    if isinstance(value, TensorArray):
        return [value]
    if isinstance(value, list | tuple):
        return [a for v in value for a in arrays_in(v)]
    if isinstance(value, dict):
        return [a for k in sorted(value, key=repr) for a in arrays_in(value[k])]
    return []


def _replace_arrays(value: Any, replace: Callable[[TensorArray], TensorArray]) -> Any:
    if isinstance(value, TensorArray):
        return replace(value)
    if isinstance(value, tuple) and hasattr(type(value), "_fields"):
        return type(value)(*(_replace_arrays(v, replace) for v in value))
    if isinstance(value, list | tuple):
        return type(value)(_replace_arrays(v, replace) for v in value)
    if isinstance(value, dict):
        return {k: _replace_arrays(v, replace) for k, v in value.items()}
    return value


def prepare_loop_vars(loop_vars: tuple, body_fn: Callable[..., object]) -> tuple:
    """Loop values ready to be carried: TensorArrays whose element shape is still unknown
    get it from one trial trace of the body (thrown away), and dynamic ones switch to
    run-time form so the body may grow them."""
    arrays = arrays_in(loop_vars)
    if any(a._storage is None and not a._runtime_form for a in arrays):
        found = arrays_in(_trial(body_fn, loop_vars))
        for array, result in zip(arrays, found, strict=False):
            if array.element_shape is None and result.element_shape is not None:
                array._set_element_shape(result.element_shape)
    return _replace_arrays(loop_vars, lambda a: a.to_runtime_form())


def _trial(body_fn: Callable[..., object], loop_vars: tuple) -> Any:
    """What `body_fn` returns when traced once into a throwaway block."""
    leaves, treedef = flatten(loop_vars)
    types = [
        leaf.value.type if isinstance(leaf, Tensor) else _constant_type(leaf) for leaf in leaves
    ]
    block = Block(arg_types=types)
    try:
        with current_trace().building_in(block):
            weak = [bool(weak_type(leaf)) for leaf in leaves]  # as tj.while_loop traces them
            args = [Tensor(a, weak=w) for a, w in zip(block.args, weak, strict=True)]
            return body_fn(*unflatten(treedef, args))
    finally:
        for op in reversed(list(block.ops)):
            block.erase_op(op, safe_erase=False)


def _constant_type(leaf: object) -> Any:
    array = np.asarray(leaf)
    return tensor_type(array.shape, array.dtype)
