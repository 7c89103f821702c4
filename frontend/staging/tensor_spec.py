"""`tj.TensorSpec`: the shape and dtype of a tensor argument, without its values."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import DTypeLike


class TensorSpec:
    """Describes a tensor: `shape=None` means unknown rank, `None` dims are unknown."""

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
        return TensorSpec(array.shape, array.dtype, name)

    def is_compatible_with(self, array: np.ndarray) -> bool:
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
