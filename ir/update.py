"""Value-semantics updates: NumPy's item assignment as ops that return a new tensor.

`a[1:3, j] = v` on a traced array does not write anything while tracing. The frontend
(frontend/staging/views.py) stages an op whose result is `a` with the window replaced, and from
then on the array's name reads that result (as JAX's `.at[].set` and PyTorch's
functionalization do). Every pass keeps reasoning about values; `bufferize` then performs
the update in the old value's buffer when that value is dead (passes/bufferize/updates.py),
so a loop storing one element per iteration costs one store, not one copy of the array.

    %i = tj.to_index %t, size = 5, "IndexError: index out of bounds for axis 0 with size 5"
           : tensor<i64>
    %r = tj.insert_slice %v into %a, start = [?, 1], step = [1, 2] starts(%i)
           : tensor<1x2xf32> into tensor<5x6xf32>
    %s = tj.scatter %v into %a[%idx], "IndexError: index 9 is out of bounds for size 6"
           : tensor<3xf32> into tensor<6xf32>, tensor<3xi64>

`tj.to_index` turns a run-time integer (a loop counter, `x[i]`'s `i`) into an `index`,
wrapped and checked like NumPy's: `-1` is the last element; outside `[-size, size)` the
call fails with its message. `tj.slice` and `tj.insert_slice` take such values as
run-time starts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import numpy as np
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    I64,
    DenseArrayBase,
    IndexType,
    IntegerAttr,
    StringAttr,
    TensorType,
    UnitAttr,
    i64,
)
from xdsl.interfaces import HasFolderInterface
from xdsl.ir import SSAValue
from xdsl.irdl import (
    IRDLOperation,
    VarConstraint,
    base,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from tracejit.ir.dtypes import is_integer
from tracejit.ir.folding import fold_with_numpy
from tracejit.ir.indexing import out_of_range
from tracejit.ir.shaped import shaped_type


def _check_message(op: IRDLOperation, message: StringAttr) -> None:
    error_type, _, text = message.data.partition(": ")
    if not error_type.isidentifier() or not text:
        raise VerifyException(f"{op.name} message must look like 'ErrorType: text'")


@irdl_op_definition
class ToIndexOp(IRDLOperation):
    """A 0-d integer tensor as an `index` into a dim of `size` elements (NumPy's rules:
    negatives count from the end, anything outside `[-size, size)` fails the call with
    `message`). A size unknown at trace time (`size = -1`) is the `dim` operand."""

    name = "tj.to_index"
    input = operand_def(TensorType)
    dim = opt_operand_def(IndexType)
    size = prop_def(IntegerAttr[I64])
    message = prop_def(StringAttr)
    in_bounds = opt_prop_def(UnitAttr)
    result = result_def(IndexType)
    traits = traits_def(Pure())
    assembly_format = (
        "$input `,` `size` `=` $size (`dim` `(` $dim^ `)`)? `,` $message"
        " (`in_bounds` $in_bounds^)? attr-dict `:` type($input)"
    )

    def __init__(self, input: SSAValue, size: int | SSAValue, message: str):
        static = size if isinstance(size, int) else -1
        super().__init__(
            operands=[input, [] if isinstance(size, int) else [size]],
            result_types=[IndexType()],
            properties={"size": IntegerAttr(static, i64), "message": StringAttr(message)},
        )

    def get_size(self) -> int:
        return self.size.value.data

    def verify_(self) -> None:
        ttype = self.input.type
        assert isinstance(ttype, TensorType)
        if ttype.get_shape() or not is_integer(ttype.get_element_type()):
            raise VerifyException(f"tj.to_index needs a 0-d integer tensor, got {ttype}")
        if (self.get_size() < 0) != (self.dim is not None):
            raise VerifyException("tj.to_index takes `dim` exactly when its size is -1")
        _check_message(self, self.message)


def _array(values: Sequence[int]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, [int(v) for v in values])


@irdl_op_definition
class InsertSliceOp(IRDLOperation, HasFolderInterface):
    """`dest` with the strided window `dest[start[0] + i * step[0], ...]` replaced by
    `source` (whose shape is the window's counts). Starts may be run-time `index` values
    (`?` in `start`, the i64 minimum, taken from `starts` in order), which the frontend
    has checked (`tj.to_index`); static windows must lie inside `dest`."""

    name = "tj.insert_slice"
    source = operand_def(TensorType)
    T: ClassVar = VarConstraint("T", base(TensorType))
    dest = operand_def(T)
    starts = var_operand_def(IndexType)
    start = prop_def(DenseArrayBase.constr(i64))
    step = prop_def(DenseArrayBase.constr(i64))
    result = result_def(T)
    traits = traits_def(Pure())
    assembly_format = (
        "$source `into` $dest `,` `start` `=` $start `,` `step` `=` $step "
        "(`starts` `(` $starts^ `)`)? attr-dict `:` type($source) `into` type($dest)"
    )

    def __init__(
        self,
        source: SSAValue,
        dest: SSAValue,
        start: Sequence[int],
        step: Sequence[int],
        starts: Sequence[SSAValue] = (),
    ):
        super().__init__(
            operands=[source, dest, list(starts)],
            result_types=[dest.type],
            properties={"start": _array(start), "step": _array(step)},
        )

    def get_start(self) -> tuple[int, ...]:
        return tuple(self.start.get_values())

    def get_step(self) -> tuple[int, ...]:
        return tuple(self.step.get_values())

    def verify_(self) -> None:
        source, dest, result = self.source.type, self.dest.type, self.result.type
        assert isinstance(source, TensorType) and isinstance(dest, TensorType)
        if result != dest:
            raise VerifyException("tj.insert_slice result must have the dest's type")
        if source.get_element_type() != dest.get_element_type():
            raise VerifyException("tj.insert_slice must keep the element type")
        rank = dest.get_num_dims()
        start, step = self.get_start(), self.get_step()
        if source.get_num_dims() != rank or len(start) != rank or len(step) != rank:
            raise VerifyException("tj.insert_slice needs one start and step per dest dim")
        if len(self.starts) != start.count(DYNAMIC_INDEX):
            raise VerifyException("tj.insert_slice needs one `starts` value per dynamic start")
        for size, count, first, stride in zip(
            dest.get_shape(), source.get_shape(), start, step, strict=True
        ):
            if stride == 0:
                raise VerifyException("tj.insert_slice step must not be zero")
            if DYNAMIC_INDEX in (size, count, first) or count == 0:
                continue
            last = first + (count - 1) * stride
            if not (0 <= first < size and 0 <= last < size):
                raise VerifyException(
                    f"tj.insert_slice of {count} elements from {first} by {stride} "
                    f"leaves a dim of size {size}"
                )

    def evaluate(self, source: np.ndarray, dest: np.ndarray) -> np.ndarray:
        window = tuple(
            slice(first, first + stride * count if first + stride * count >= 0 else None, stride)
            for first, stride, count in zip(
                self.get_start(), self.get_step(), source.shape, strict=True
            )
        )
        updated = dest.copy()
        updated[window] = source
        return updated

    def fold(self):
        if self.starts:
            return None
        whole = all(s == 0 for s in self.get_start()) and all(s == 1 for s in self.get_step())
        # equal types prove a whole window only where every size is known: two `?` dims
        # may differ at run time (`x[:-1] = v` of an unknown-size x)
        static = all(n >= 0 for n in shaped_type(self.dest).get_shape())
        if whole and static and self.source.type == self.dest.type:
            return (self.source,)  # the window is all of dest
        return fold_with_numpy(self, self.evaluate)


@irdl_op_definition
class ScatterOp(IRDLOperation, HasFolderInterface):
    """`dest` (1-d) with `dest[indices[k]] = updates[k]` for each k in order (a repeated
    index keeps the last update, as NumPy's `a[idx] = v` does). Indices wrap and are
    checked like `tj.gather`'s: outside `[-n, n)` the call fails with `message`."""

    name = "tj.scatter"
    updates = operand_def(TensorType)
    T: ClassVar = VarConstraint("T", base(TensorType))
    dest = operand_def(T)
    indices = operand_def(TensorType)
    message = prop_def(StringAttr)
    result = result_def(T)
    traits = traits_def(Pure())
    assembly_format = (
        "$updates `into` $dest `[` $indices `]` `,` $message attr-dict "
        "`:` type($updates) `into` type($dest) `,` type($indices)"
    )

    def __init__(self, updates: SSAValue, dest: SSAValue, indices: SSAValue, message: str):
        super().__init__(
            operands=[updates, dest, indices],
            result_types=[dest.type],
            properties={"message": StringAttr(message)},
        )

    def verify_(self) -> None:
        updates, dest, indices = self.updates.type, self.dest.type, self.indices.type
        assert isinstance(updates, TensorType) and isinstance(dest, TensorType)
        assert isinstance(indices, TensorType)
        if self.result.type != dest or dest.get_num_dims() != 1:
            raise VerifyException("tj.scatter updates a 1-d dest and returns its type")
        if updates.get_element_type() != dest.get_element_type():
            raise VerifyException("tj.scatter must keep the element type")
        if not is_integer(indices.get_element_type()) or indices.get_num_dims() != 1:
            raise VerifyException("tj.scatter indices must be a 1-d integer tensor")
        if updates.get_shape() != indices.get_shape():
            raise VerifyException("tj.scatter needs one update per index")
        _check_message(self, self.message)

    def evaluate(self, updates: np.ndarray, dest: np.ndarray, indices: np.ndarray) -> np.ndarray:
        if out_of_range(indices, dest.shape[0]):
            raise IndexError(self.message.data.partition(": ")[2])
        updated = dest.copy()
        updated[indices.astype(np.int64)] = updates
        return updated

    def fold(self):
        try:
            return fold_with_numpy(self, self.evaluate)
        except IndexError:  # the kernel's check reports it at run time
            return None


UPDATE_OPS = (ToIndexOp, InsertSliceOp, ScatterOp)
