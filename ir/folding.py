"""Constant folding of `tj` ops by evaluating them with NumPy.

Every pure `tj` op says what it computes as a NumPy function (`evaluate`); that is
also the reference the differential tests compare against. When all operands of a
pure op come from `tj.constant`, `fold_with_numpy` evaluates it and hands the result
back to xDSL's folder, which materialises a new `tj.constant` through the dialect's
`ConstantMaterializationInterface`.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, TensorType
from xdsl.ir import Attribute, Operation, SSAValue

from tracejit.ir.dense import array_from_dense, dense_from_array
from tracejit.ir.dtypes import numpy_dtype

# Folded results larger than this stay in the IR as ops instead of becoming constants.
MAX_FOLDED_BYTES = 1 << 20


def constant_value(value: SSAValue) -> np.ndarray | None:
    """The array an SSA value holds if it is produced by a constant op, else None."""
    owner = value.owner
    attr = getattr(owner, "value", None)
    if isinstance(owner, Operation) and isinstance(attr, DenseIntOrFPElementsAttr):
        return array_from_dense(attr)
    return None


def fold_with_numpy(
    op: Operation,
    evaluate: Callable[..., np.ndarray | tuple[np.ndarray, ...]],
    max_bytes: int = MAX_FOLDED_BYTES,
) -> list[Attribute] | None:
    """Fold `op` if every operand is constant and no operand or result is larger than
    `max_bytes` (sizes are checked before any array is built, so a huge splat constant
    is never expanded in memory, let alone stored in the IR)."""
    if not all(isinstance(v.owner, Operation) and _is_constant(v.owner) for v in op.operands):
        return None
    if any(_tensor_bytes(v.type) > max_bytes for v in (*op.operands, *op.results)):
        return None
    inputs = [constant_value(v) for v in op.operands]
    if any(a is None for a in inputs):
        return None
    with np.errstate(all="ignore"):
        outputs = evaluate(*inputs)
    if not isinstance(outputs, tuple):
        outputs = (outputs,)
    folded: list[Attribute] = []
    for result, out in zip(op.results, outputs, strict=True):
        assert isinstance(result.type, TensorType)
        dtype = numpy_dtype(result.type.get_element_type())
        folded.append(dense_from_array(np.asarray(out, dtype=dtype)))
    return folded


def _is_constant(owner: Operation) -> bool:
    return isinstance(getattr(owner, "value", None), DenseIntOrFPElementsAttr)


def _tensor_bytes(ttype: Attribute) -> int:
    """Bytes of a static tensor type; unknown sizes count as too large to fold."""
    if not isinstance(ttype, TensorType) or not ttype.has_static_shape():
        return 1 << 62
    dtype = numpy_dtype(ttype.get_element_type())
    return int(np.prod(ttype.get_shape(), dtype=np.int64)) * dtype.itemsize
