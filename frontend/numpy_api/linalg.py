"""Matrix products: `np.matmul` / `@` and `np.dot` on 2-D operands."""

from __future__ import annotations

from typing import Any

import numpy as np

from tracejit.frontend import primitives
from tracejit.frontend.numpy_api.promotion import as_tensor, loop_dtypes
from tracejit.frontend.numpy_api.registry import implements, unsupported
from tracejit.frontend.source_location import at_user_line
from tracejit.frontend.tensor import Tensor


@implements(np.matmul)
def matmul(x: Any, y: Any) -> Tensor:
    lhs_dtype, rhs_dtype, _ = loop_dtypes(np.matmul, [x, y])
    lhs, rhs = as_tensor(x, lhs_dtype), as_tensor(y, rhs_dtype)
    if lhs.ndim != 2 or rhs.ndim != 2:
        raise unsupported(np.matmul, f" on {lhs.ndim}-D and {rhs.ndim}-D operands")
    if lhs.dtype == np.bool_:
        raise unsupported(np.matmul, " on bool tensors")
    if lhs.shape[1] != rhs.shape[0]:
        raise ValueError(
            at_user_line(
                f"matmul: Input operand 1 has a mismatch in its core dimension 0 "
                f"(size {rhs.shape[0]} is different from {lhs.shape[1]})"
            )
        )
    return primitives.matmul(lhs, rhs)


@implements(np.dot)
def dot(x: Any, y: Any, out=None) -> Tensor:
    if out is not None:
        raise unsupported(np.dot, "(..., out=...)")
    return matmul(x, y)
