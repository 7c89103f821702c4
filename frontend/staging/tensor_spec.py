"""`tj.TensorSpec`: the shape and dtype of a tensor argument, without its values."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import DTypeLike


class TensorSpec:
    """The dtype and shape of an array argument, without its values (mirrors `tf.TensorSpec`).

    Used in `tj.function(input_signature=[...])` and `Function.get_concrete_function` to
    trace for every array that matches, and shown by a ConcreteFunction for its inputs and
    outputs.

    Parameters
    ----------
    shape : sequence of int or None, optional
        The sizes; a `None` dim is a size known only when the function runs (any size
        fits). `shape=None` (the default) means the rank is unknown too.
    dtype : dtype, default np.float32
        The dtype (anything `np.dtype` takes).
    name : str, optional
        A name, kept for TensorFlow compatibility (traces are not keyed by it).

    Examples
    --------
    >>> spec = tj.TensorSpec([None, 3], tj.float32)
    >>> spec
    TensorSpec(shape=(None, 3), dtype=float32, name=None)
    >>> spec.is_compatible_with(np.zeros((5, 3), np.float32))
    True
    >>> @tj.function(input_signature=[spec])
    ... def row_sums(m):
    ...     return m.sum(axis=1)
    >>> row_sums(np.ones((2, 3), np.float32))
    array([3., 3.], dtype=float32)
    """

    __slots__ = ("shape", "dtype", "name")

    def __init__(
        self,
        shape: Sequence[int | None] | None = None,
        dtype: DTypeLike = np.float32,
        name: str | None = None,
    ):
        self.shape = None if shape is None else tuple(None if d is None else int(d) for d in shape)
        self.dtype = np.dtype(dtype)
        self.name = name

    @staticmethod
    def from_array(array: np.ndarray, name: str | None = None) -> TensorSpec:
        """The spec of `array`: its shape and dtype.

        >>> tj.TensorSpec.from_array(np.zeros((2, 2), np.int32))
        TensorSpec(shape=(2, 2), dtype=int32, name=None)
        """
        return TensorSpec(array.shape, array.dtype, name)

    def is_compatible_with(self, array: np.ndarray) -> bool:
        """Whether `array` fits: the same dtype, and the same rank and sizes where the spec
        has them.

        >>> spec = tj.TensorSpec([None], tj.float64)
        >>> spec.is_compatible_with(np.ones(4)), spec.is_compatible_with(np.ones(4, np.float32))
        (True, False)
        """
        if np.dtype(array.dtype) != self.dtype:
            return False
        if self.shape is None:
            return True
        return len(array.shape) == len(self.shape) and all(
            s is None or s == d for s, d in zip(self.shape, array.shape, strict=True)
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TensorSpec) and (self.shape, self.dtype, self.name) == (
            other.shape,
            other.dtype,
            other.name,
        )

    def __hash__(self) -> int:
        return hash((self.shape, self.dtype, self.name))

    def __repr__(self) -> str:
        return f"TensorSpec(shape={self.shape}, dtype={self.dtype.name}, name={self.name!r})"
