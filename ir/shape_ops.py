"""Shape-changing `tj` ops.

%b = tj.broadcast_in_dim %x, dims = [1] : tensor<3xf32> to tensor<4x3xf32>
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import DenseArrayBase, TensorType, i64
from xdsl.interfaces import HasFolderInterface
from xdsl.ir import SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from tracejit.ir.folding import fold_with_numpy


@irdl_op_definition
class BroadcastInDimOp(IRDLOperation, HasFolderInterface):
    """Broadcast `operand` to the result shape (StableHLO's `broadcast_in_dim`).

    Operand dim `i` becomes result dim `dims[i]` (`dims` strictly increasing); an
    operand dim is either equal to its result dim or 1 (then it is repeated). Result
    dims not named in `dims` are new leading or inner dims. NumPy's broadcasting of
    `a + b` is one `broadcast_in_dim` per operand whose shape differs from the result.
    """

    name = "tj.broadcast_in_dim"
    operand = operand_def(TensorType)
    dims = prop_def(DenseArrayBase.constr(i64))
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = (
        "$operand `,` `dims` `=` $dims attr-dict `:` type($operand) `to` type($result)"
    )

    def __init__(self, operand: SSAValue, dims: Sequence[int], result_type: TensorType):
        super().__init__(
            operands=[operand],
            result_types=[result_type],
            properties={"dims": DenseArrayBase.from_list(i64, list(dims))},
        )

    def get_dims(self) -> tuple[int, ...]:
        return tuple(self.dims.get_values())

    def verify_(self) -> None:
        source, target = self.operand.type, self.result.type
        assert isinstance(source, TensorType) and isinstance(target, TensorType)
        dims = self.get_dims()
        if source.get_element_type() != target.get_element_type():
            raise VerifyException("tj.broadcast_in_dim must keep the element type")
        if len(dims) != source.get_num_dims():
            raise VerifyException("tj.broadcast_in_dim needs one entry in dims per operand dim")
        if list(dims) != sorted(set(dims)) or any(not 0 <= d < target.get_num_dims() for d in dims):
            raise VerifyException(f"tj.broadcast_in_dim dims {list(dims)} must increase in range")
        for size, d in zip(source.get_shape(), dims, strict=True):
            if size not in (1, target.get_shape()[d]):
                raise VerifyException(
                    f"tj.broadcast_in_dim cannot broadcast dim of size {size} "
                    f"to {target.get_shape()[d]}"
                )

    def evaluate(self, x: np.ndarray) -> np.ndarray:
        assert isinstance(self.result.type, TensorType)
        shape = self.result.type.get_shape()
        expanded = [1] * len(shape)
        for size, d in zip(x.shape, self.get_dims(), strict=True):
            expanded[d] = size
        return np.broadcast_to(x.reshape(expanded), shape)

    def fold(self):
        if self.operand.type == self.result.type:  # broadcast to the same shape is a no-op
            return (self.operand,)
        return fold_with_numpy(self, self.evaluate)
