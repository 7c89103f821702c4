"""The trace cache key of one call: what about the arguments forces a new trace.

DESIGN §2: arrays and NumPy scalars are keyed by (shape, dtype) and become symbolic
tensors; Python primitives by (type, value) and are baked into the trace; containers
are flattened and their structure is part of the key; any other object by identity.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tracejit.frontend.tensor_spec import TensorSpec

_PRIMITIVES = (bool, int, float, complex, str, bytes, type(None))


def is_tensor_leaf(leaf: Any) -> bool:
    """Leaves that become inputs of the compiled kernel."""
    return isinstance(leaf, np.ndarray | np.generic | TensorSpec)


def native(dtype: np.dtype) -> np.dtype:
    """`>f4` keys and computes like `float32`: inputs are converted before the call."""
    return dtype if dtype.isnative else dtype.newbyteorder("=")


def leaf_key(leaf: Any) -> Any:
    if isinstance(leaf, np.ndarray | np.generic):
        return ("tensor", leaf.shape, native(leaf.dtype))
    if isinstance(leaf, TensorSpec):
        return ("tensor", leaf.shape, leaf.dtype)
    if isinstance(leaf, _PRIMITIVES):
        return (type(leaf), leaf)
    return ("object", id(leaf))


def spec_of(leaf: Any) -> TensorSpec:
    if isinstance(leaf, TensorSpec):
        return leaf
    return TensorSpec(np.shape(leaf), native(leaf.dtype))
