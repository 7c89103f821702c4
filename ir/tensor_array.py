"""TensorArray storage ops: a TensorArray is a tensor of rows plus a row count.

`tj.TensorArray` (frontend/staging/tensor_array.py) keeps its elements as the rows of one
tensor `storage[capacity, *element_shape]`. These ops give that tensor value semantics:
each returns a new tensor, and `bufferize` updates the buffer in place when the old
value is dead (passes/bufferize/tensor_array.py).

    %a2 = tj.set_row %a[%i], %v : tensor<5x3xf32>, tensor<i64>, tensor<3xf32>
    %v  = tj.get_row %a[%i] : tensor<?x3xf32>, tensor<i64> -> tensor<3xf32>
    %g  = tj.grow %a, %n : tensor<0x3xf32>, tensor<i64> -> tensor<?x3xf32>
    %s  = tj.take_rows %g, %n : tensor<?x3xf32>, tensor<i64> -> tensor<?x3xf32>
    %d  = tj.export %s : tensor<?x3xf32> -> tensor<3xi64>

Indices are not checked here: the frontend stages a `tj.assert` before each use, so an
out-of-range index never reaches these ops at run time. `grow` doubles: a tensor with
fewer than `n` rows gets `max(2 * rows, n)` rows, the new ones zero, so a loop writing
one row per iteration reallocates O(log n) times. `export` hands a tensor whose size is
only known at run time to the caller: its result is the descriptor `[address, dims...]`
of a heap buffer the caller then owns (see frontend/api/kernel_outputs.py).
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from xdsl.dialects.builtin import DYNAMIC_INDEX, TensorType, i64
from xdsl.interfaces import HasFolderInterface
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    VarConstraint,
    base,
    irdl_op_definition,
    operand_def,
    result_def,
    traits_def,
)
from xdsl.traits import MemoryAllocEffect, MemoryWriteEffect, Pure
from xdsl.utils.exceptions import VerifyException

from tracejit.ir.dtypes import is_integer
from tracejit.ir.folding import fold_with_numpy


def _check_index(op: IRDLOperation, value: SSAValue, what: str) -> None:
    ttype = value.type
    assert isinstance(ttype, TensorType)
    if ttype.get_shape() or not is_integer(ttype.get_element_type()):
        raise VerifyException(f"{op.name} {what} must be a 0-d integer tensor, got {ttype}")


def _check_rows(op: IRDLOperation, array: Attribute) -> TensorType:
    assert isinstance(array, TensorType)
    if array.get_num_dims() == 0:
        raise VerifyException(f"{op.name} needs a tensor of rows (rank >= 1), got {array}")
    if any(d == DYNAMIC_INDEX for d in array.get_shape()[1:]):
        raise VerifyException(f"{op.name}: only the row dim may be dynamic, got {array}")
    return array


def _check_row_type(op: IRDLOperation, array: TensorType, row: Attribute) -> None:
    expected = TensorType(array.get_element_type(), array.get_shape()[1:])
    if row != expected:
        raise VerifyException(f"{op.name}: a row of {array} is {expected}, got {row}")


def _check_same_rows(op: IRDLOperation, source: TensorType, result: Attribute) -> None:
    """`result` holds rows like `source`'s, any number of them (a dynamic count)."""
    assert isinstance(result, TensorType)
    if result.get_element_type() != source.get_element_type() or tuple(
        result.get_shape()[1:]
    ) != tuple(source.get_shape()[1:]):
        raise VerifyException(f"{op.name}: {result} does not hold the rows of {source}")
    if result.get_shape()[0] != DYNAMIC_INDEX:
        raise VerifyException(f"{op.name} result must have a dynamic row count, got {result}")


def grown_rows(rows: int, needed: int) -> int:
    """The row count `tj.grow` produces: unchanged if big enough, else doubled (at least
    `needed`)."""
    return rows if needed <= rows else max(2 * rows, needed)


@irdl_op_definition
class SetRowOp(IRDLOperation, HasFolderInterface):
    """`array` with row `index` replaced by `row` (`a = a.copy(); a[index] = row`)."""

    name = "tj.set_row"
    T: ClassVar = VarConstraint("T", base(TensorType))
    array = operand_def(T)
    index = operand_def(TensorType)
    row = operand_def(TensorType)
    result = result_def(T)
    traits = traits_def(Pure())
    assembly_format = (
        "$array `[` $index `]` `,` $row attr-dict `:` type($array) `,` type($index) `,` type($row)"
    )

    def __init__(self, array: SSAValue, index: SSAValue, row: SSAValue):
        super().__init__(operands=[array, index, row], result_types=[array.type])

    def verify_(self) -> None:
        array = _check_rows(self, self.array.type)
        _check_index(self, self.index, "index")
        _check_row_type(self, array, self.row.type)

    def evaluate(self, array: np.ndarray, index: np.ndarray, row: np.ndarray) -> np.ndarray:
        if not 0 <= int(index) < array.shape[0]:
            raise IndexError(f"row {int(index)} of {array.shape[0]}")
        updated = array.copy()
        updated[int(index)] = row
        return updated

    def fold(self):
        try:
            return fold_with_numpy(self, self.evaluate)
        except IndexError:  # the frontend's tj.assert reports it at run time
            return None


@irdl_op_definition
class GetRowOp(IRDLOperation, HasFolderInterface):
    """Row `index` of `array` (`array[index]`)."""

    name = "tj.get_row"
    array = operand_def(TensorType)
    index = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = (
        "$array `[` $index `]` attr-dict `:` type($array) `,` type($index) `->` type($result)"
    )

    def __init__(self, array: SSAValue, index: SSAValue):
        ttype = array.type
        assert isinstance(ttype, TensorType)
        row = TensorType(ttype.get_element_type(), ttype.get_shape()[1:])
        super().__init__(operands=[array, index], result_types=[row])

    def verify_(self) -> None:
        array = _check_rows(self, self.array.type)
        _check_index(self, self.index, "index")
        _check_row_type(self, array, self.result.type)

    def evaluate(self, array: np.ndarray, index: np.ndarray) -> np.ndarray:
        if not 0 <= int(index) < array.shape[0]:
            raise IndexError(f"row {int(index)} of {array.shape[0]}")
        return array[int(index)].copy()

    def fold(self):
        try:
            return fold_with_numpy(self, self.evaluate)
        except IndexError:
            return None


def _dynamic_rows(array: TensorType) -> TensorType:
    return TensorType(array.get_element_type(), [DYNAMIC_INDEX, *array.get_shape()[1:]])


@irdl_op_definition
class GrowOp(IRDLOperation):
    """`array` with at least `needed` rows: unchanged if it has them, else zero-padded to
    `max(2 * rows, needed)` rows (amortised doubling). Its result is never a constant
    (a dynamic row count), so it has no folder."""

    name = "tj.grow"
    array = operand_def(TensorType)
    needed = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = (
        "$array `,` $needed attr-dict `:` type($array) `,` type($needed) `->` type($result)"
    )

    def __init__(self, array: SSAValue, needed: SSAValue):
        assert isinstance(array.type, TensorType)
        super().__init__(operands=[array, needed], result_types=[_dynamic_rows(array.type)])

    def verify_(self) -> None:
        array = _check_rows(self, self.array.type)
        _check_index(self, self.needed, "row count")
        _check_same_rows(self, array, self.result.type)

    def evaluate(self, array: np.ndarray, needed: np.ndarray) -> np.ndarray:
        rows = grown_rows(array.shape[0], int(needed))
        grown = np.zeros((rows, *array.shape[1:]), array.dtype)
        grown[: array.shape[0]] = array
        return grown


@irdl_op_definition
class TakeRowsOp(IRDLOperation):
    """The first `count` rows of `array` (`array[:count]`; `count` <= its rows)."""

    name = "tj.take_rows"
    array = operand_def(TensorType)
    count = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = (
        "$array `,` $count attr-dict `:` type($array) `,` type($count) `->` type($result)"
    )

    def __init__(self, array: SSAValue, count: SSAValue):
        assert isinstance(array.type, TensorType)
        super().__init__(operands=[array, count], result_types=[_dynamic_rows(array.type)])

    def verify_(self) -> None:
        array = _check_rows(self, self.array.type)
        _check_index(self, self.count, "row count")
        _check_same_rows(self, array, self.result.type)

    def evaluate(self, array: np.ndarray, count: np.ndarray) -> np.ndarray:
        return array[: int(count)].copy()


@irdl_op_definition
class ExportOp(IRDLOperation):
    """Hand `tensor` to the caller as a heap buffer it owns; the result is `[address of
    the first element, dim 0, dim 1, ...]`. An allocation: never merged with another
    export (two callers' arrays must not share memory), and never removed."""

    name = "tj.export"
    tensor = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(MemoryAllocEffect(), MemoryWriteEffect())
    assembly_format = "$tensor attr-dict `:` type($tensor) `->` type($result)"

    def __init__(self, tensor: SSAValue):
        assert isinstance(tensor.type, TensorType)
        descriptor = TensorType(i64, [tensor.type.get_num_dims() + 1])
        super().__init__(operands=[tensor], result_types=[descriptor])

    def verify_(self) -> None:
        source = self.tensor.type
        assert isinstance(source, TensorType)
        expected = TensorType(i64, [source.get_num_dims() + 1])
        if self.result.type != expected:
            raise VerifyException(f"tj.export of {source} gives {expected}, not {self.result.type}")


TENSOR_ARRAY_OPS = (SetRowOp, GetRowOp, GrowOp, TakeRowsOp, ExportOp)
