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


def fold_with_numpy(op: Operation, evaluate: Callable[..., np.ndarray]) -> list[Attribute] | None:
    """Fold `op` if every operand is constant and the results are small enough."""
    inputs = [constant_value(v) for v in op.operands]
    if any(a is None for a in inputs):
        return None
    if any(_result_bytes(r.type) > MAX_FOLDED_BYTES for r in op.results):
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


def _result_bytes(ttype: Attribute) -> int:
    if not isinstance(ttype, TensorType) or not ttype.has_static_shape():
        return MAX_FOLDED_BYTES + 1
    dtype = numpy_dtype(ttype.get_element_type())
    return int(np.prod(ttype.get_shape(), dtype=np.int64)) * dtype.itemsize
