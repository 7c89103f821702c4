"""Shape-changing `tj` ops: each moves elements around without computing on them.

%b = tj.broadcast_in_dim %x, dims = [1] : tensor<3xf32> to tensor<4x3xf32>
%r = tj.reshape %x : tensor<2x3xf32> to tensor<6xf32>
%t = tj.transpose %x, permutation = [1, 0] : tensor<2x3xf32> to tensor<3x2xf32>
%s = tj.slice %x, start = [1, 2], step = [1, -1] : tensor<2x3xf32> to tensor<1x3xf32>
%c = tj.concat axis = 0, %x, %y : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<3x3xf32>
%p = tj.pad %x, %v, low = [1, 0], high = [0, 2] : (tensor<2x3xf32>, tensor<f32>) -> tensor<3x5xf32>
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    I64,
    DenseArrayBase,
    IndexType,
    IntegerAttr,
    TensorType,
    i64,
)
from xdsl.interfaces import HasFolderInterface
from xdsl.ir import SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
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
    A result dim unknown at trace time (`?`) takes its run-time size from the operand when
    the operand's dim there is unknown too, else from `sizes` (one `index` per such dim,
    in order):

        %b = tj.broadcast_in_dim %y, dims = [1] sizes(%n) : tensor<3xf32> to tensor<?x3xf32>
    """

    name = "tj.broadcast_in_dim"
    operand = operand_def(TensorType)
    sizes = var_operand_def(IndexType)
    dims = prop_def(DenseArrayBase.constr(i64))
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = (
        "$operand `,` `dims` `=` $dims (`sizes` `(` $sizes^ `)`)? attr-dict `:` type($operand) "
        "`to` type($result)"
    )

    def __init__(
        self,
        operand: SSAValue,
        dims: Sequence[int],
        result_type: TensorType,
        sizes: Sequence[SSAValue] = (),
    ):
        super().__init__(
            operands=[operand, list(sizes)],
            result_types=[result_type],
            properties={"dims": DenseArrayBase.from_list(i64, list(dims))},
        )

    def dynamic_size_dims(self) -> list[int]:
        """The result dims whose size comes from `sizes`."""
        assert isinstance(self.result.type, TensorType)
        assert isinstance(self.operand.type, TensorType)
        return self.sized_dims(
            self.operand.type.get_shape(), self.get_dims(), self.result.type.get_shape()
        )

    @staticmethod
    def sized_dims(
        operand_shape: Sequence[int], dims: Sequence[int], result_shape: Sequence[int]
    ) -> list[int]:
        """Result dims that are unknown (`?`) and not an unknown dim of the operand."""
        from_operand = {d for i, d in enumerate(dims) if operand_shape[i] == DYNAMIC_INDEX}
        return [
            d
            for d, size in enumerate(result_shape)
            if size == DYNAMIC_INDEX and d not in from_operand
        ]

    def get_dims(self) -> tuple[int, ...]:
        return tuple(self.dims.get_values())

    def read_dims(self) -> list[int | None]:
        """Per operand dim, the result dim it is read along, or None where it is repeated
        (a size-1 dim against another size: index 0 is read). Any other operand dim has
        its result dim's size; one unknown at trace time is checked equal before the call."""
        source, target = self.operand.type, self.result.type
        assert isinstance(source, TensorType) and isinstance(target, TensorType)
        target_shape = target.get_shape()
        return [
            None if size == 1 and target_shape[d] != 1 else d
            for size, d in zip(source.get_shape(), self.get_dims(), strict=True)
        ]

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
            if DYNAMIC_INDEX in (size, target.get_shape()[d]):
                continue  # sizes known only at run time: the caller checks they agree
            if size not in (1, target.get_shape()[d]):
                raise VerifyException(
                    f"tj.broadcast_in_dim cannot broadcast dim of size {size} "
                    f"to {target.get_shape()[d]}"
                )
        if len(self.sizes) != len(self.dynamic_size_dims()):
            raise VerifyException(
                f"tj.broadcast_in_dim needs {len(self.dynamic_size_dims())} sizes for the "
                "dynamic result dims that are not operand dims"
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
        if self.sizes:
            return None
        return fold_with_numpy(self, self.evaluate)


@irdl_op_definition
class DimOp(IRDLOperation):
    """The run-time size of dim `index` of a tensor, as an `index` value.

    %n = tj.dim %x, 0 : tensor<?x3xf32>
    """

    name = "tj.dim"
    source = operand_def(TensorType)
    index = prop_def(IntegerAttr[I64])
    result = result_def(IndexType)
    traits = traits_def(Pure())
    assembly_format = "$source `,` $index attr-dict `:` type($source)"

    def __init__(self, source: SSAValue, index: int):
        super().__init__(
            operands=[source],
            result_types=[IndexType()],
            properties={"index": IntegerAttr(index, 64)},
        )

    def verify_(self) -> None:
        assert isinstance(self.source.type, TensorType)
        if not 0 <= self.index.value.data < self.source.type.get_num_dims():
            raise VerifyException(f"tj.dim index {self.index.value.data} is out of range")


def _array(values: Sequence[int]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, [int(v) for v in values])


def _types(op: IRDLOperation) -> tuple[TensorType, TensorType]:
    """The (first operand, result) tensor types of a shape op."""
    source, target = op.operands[0].type, op.results[0].type
    assert isinstance(source, TensorType) and isinstance(target, TensorType)
    if source.get_element_type() != target.get_element_type():
        raise VerifyException(f"{op.name} must keep the element type")
    return source, target


def _check_static(op: IRDLOperation, *types: TensorType) -> None:
    if any(not t.has_static_shape() for t in types):
        raise VerifyException(f"{op.name} on dynamic shapes is not supported yet")


@irdl_op_definition
class ReshapeOp(IRDLOperation, HasFolderInterface):
    """The same elements in row-major order, with another shape (`np.reshape`).

    %r = tj.reshape %x : tensor<2x3xf32> to tensor<3x2xf32>

    Each result dim unknown at trace time (`?`) takes its run-time size from `sizes`, in
    order; the frontend makes sure the element counts agree (`x.reshape(-1)`):

    %f = tj.reshape %x sizes(%n3) : tensor<?x3xf32> to tensor<?xf32>
    """

    name = "tj.reshape"
    operand = operand_def(TensorType)
    sizes = var_operand_def(IndexType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = (
        "$operand (`sizes` `(` $sizes^ `)`)? attr-dict `:` type($operand) `to` type($result)"
    )

    def __init__(self, operand: SSAValue, result_type: TensorType, sizes: Sequence[SSAValue] = ()):
        super().__init__(operands=[operand, list(sizes)], result_types=[result_type])

    def verify_(self) -> None:
        source, target = _types(self)
        if len(self.sizes) != target.get_shape().count(DYNAMIC_INDEX):
            raise VerifyException("tj.reshape needs one `sizes` value per dynamic result dim")
        if not (source.has_static_shape() and target.has_static_shape()):
            return  # element counts known at run time only
        if source.element_count() != target.element_count():
            raise VerifyException(
                f"tj.reshape cannot reshape {source.element_count()} elements "
                f"into {target.element_count()}"
            )

    def evaluate(self, x: np.ndarray) -> np.ndarray:
        assert isinstance(self.result.type, TensorType)
        return x.reshape(self.result.type.get_shape())

    def fold(self):
        # reshape(x) to x's own (static) shape = x
        if self.operand.type == self.result.type and not self.sizes:
            return (self.operand,)
        return fold_with_numpy(self, self.evaluate)


@irdl_op_definition
class TransposeOp(IRDLOperation, HasFolderInterface):
    """Permute the dims: result dim `j` is operand dim `permutation[j]` (`np.transpose`).

    %t = tj.transpose %x, permutation = [1, 0] : tensor<2x3xf32> to tensor<3x2xf32>
    """

    name = "tj.transpose"
    operand = operand_def(TensorType)
    permutation = prop_def(DenseArrayBase.constr(i64))
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = (
        "$operand `,` `permutation` `=` $permutation attr-dict "
        "`:` type($operand) `to` type($result)"
    )

    def __init__(self, operand: SSAValue, permutation: Sequence[int], result_type: TensorType):
        super().__init__(
            operands=[operand],
            result_types=[result_type],
            properties={"permutation": _array(permutation)},
        )

    def get_permutation(self) -> tuple[int, ...]:
        return tuple(self.permutation.get_values())

    def verify_(self) -> None:
        source, target = _types(self)
        perm = self.get_permutation()
        if sorted(perm) != list(range(source.get_num_dims())):
            raise VerifyException(f"tj.transpose permutation {list(perm)} is not a permutation")
        expected = [source.get_shape()[p] for p in perm]
        if list(target.get_shape()) != expected:
            raise VerifyException(f"tj.transpose result shape must be {expected}")

    def evaluate(self, x: np.ndarray) -> np.ndarray:
        return np.transpose(x, self.get_permutation())

    def fold(self):
        # transpose(x, identity) = x
        if self.get_permutation() == tuple(range(len(self.get_permutation()))):
            return (self.operand,)
        return fold_with_numpy(self, self.evaluate)


@irdl_op_definition
class SliceOp(IRDLOperation, HasFolderInterface):
    """Strided window: `result[i, ...] = operand[start[0] + i * step[0], ...]`.

    The result shape gives the count along each dim; steps may be negative
    (`x[::-1]` is start = n - 1, step = -1), never zero.

    %s = tj.slice %x, start = [0, 4], step = [2, -1] : tensor<4x5xf32> to tensor<2x5xf32>

    On a dim unknown at trace time the start and the count may be run-time `index`
    values (also on a static dim: `x[i]`, `x[i - 1 : i + 2]` in an index loop): a start
    of `?` (printed as the i64 minimum, MLIR's `kDynamic`) is taken from
    `starts`, and every `?` result dim from `sizes`, in order. The frontend computes them
    from the operand's `tj.dim` with NumPy's slice rules (frontend/staging/slice_bounds.py):

    %s = tj.slice %x, start = [1, 0], step = [1, 1] sizes(%count)
           : tensor<?x3xf32> to tensor<?x3xf32>
    """

    name = "tj.slice"
    operand = operand_def(TensorType)
    starts = var_operand_def(IndexType)
    sizes = var_operand_def(IndexType)
    start = prop_def(DenseArrayBase.constr(i64))
    step = prop_def(DenseArrayBase.constr(i64))
    result = result_def(TensorType)
    traits = traits_def(Pure())
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    assembly_format = (
        "$operand `,` `start` `=` $start `,` `step` `=` $step (`starts` `(` $starts^ `)`)? "
        "(`sizes` `(` $sizes^ `)`)? attr-dict `:` type($operand) `to` type($result)"
    )

    def __init__(
        self,
        operand: SSAValue,
        start: Sequence[int],
        step: Sequence[int],
        result_type: TensorType,
        starts: Sequence[SSAValue] = (),
        sizes: Sequence[SSAValue] = (),
    ):
        super().__init__(
            operands=[operand, list(starts), list(sizes)],
            result_types=[result_type],
            properties={"start": _array(start), "step": _array(step)},
        )

    def get_start(self) -> tuple[int, ...]:
        return tuple(self.start.get_values())

    def get_step(self) -> tuple[int, ...]:
        return tuple(self.step.get_values())

    def is_dynamic(self) -> bool:
        return bool(self.starts or self.sizes)

    def verify_(self) -> None:
        source, target = _types(self)
        rank = source.get_num_dims()
        start, step = self.get_start(), self.get_step()
        if len(start) != rank or len(step) != rank or target.get_num_dims() != rank:
            raise VerifyException("tj.slice needs one start and one step per operand dim")
        if len(self.starts) != start.count(DYNAMIC_INDEX):
            raise VerifyException("tj.slice needs one `starts` value per dynamic start")
        if len(self.sizes) != target.get_shape().count(DYNAMIC_INDEX):
            raise VerifyException("tj.slice needs one `sizes` value per dynamic result dim")
        for size, count, first, stride in zip(
            source.get_shape(), target.get_shape(), start, step, strict=True
        ):
            if stride == 0:
                raise VerifyException("tj.slice step must not be zero")
            if DYNAMIC_INDEX in (size, count, first):
                # run-time starts and counts come from the frontend's checked windows
                # (tj.to_index, frontend/staging/slice_bounds.py), also on static dims
                continue
            last = first + (count - 1) * stride
            if count > 0 and not (0 <= first < size and 0 <= last < size):
                raise VerifyException(
                    f"tj.slice of {count} elements from {first} by {stride} "
                    f"leaves a dim of size {size}"
                )

    def evaluate(self, x: np.ndarray) -> np.ndarray:
        assert isinstance(self.result.type, TensorType) and not self.is_dynamic()
        counts = self.result.type.get_shape()
        ranges = [
            first + stride * np.arange(count, dtype=np.int64)
            for first, stride, count in zip(self.get_start(), self.get_step(), counts, strict=True)
        ]
        return x[np.ix_(*ranges)] if ranges else x

    def fold(self):
        # a slice taking every element in order is the operand itself
        rank = len(self.get_start())
        whole = self.get_start() == (0,) * rank and self.get_step() == (1,) * rank
        if whole and self.operand.type == self.result.type and self._sizes_are_the_operand_dims():
            return (self.operand,)
        if self.is_dynamic():
            return None
        return fold_with_numpy(self, self.evaluate)

    def _sizes_are_the_operand_dims(self) -> bool:
        """Each run-time result size is `tj.dim` of the operand at that dim (`x[:n]` with
        n = len(x), as slices matched to a run-time length are traced)."""
        dynamic = [d for d, n in enumerate(_types(self)[1].get_shape()) if n == DYNAMIC_INDEX]
        for d, size in zip(dynamic, self.sizes, strict=True):
            owner = size.owner
            if not (isinstance(owner, DimOp) and owner.source is self.operand):
                return False
            if owner.index.value.data != d:
                return False
        return True


@irdl_op_definition
class ConcatOp(IRDLOperation, HasFolderInterface):
    """Join tensors of one rank and element type along `axis` (`np.concatenate`).

    %c = tj.concat axis = 0, %a, %b : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<3x3xf32>

    Sizes may be unknown at trace time (`?`), also along `axis`; then so is the result's.
    """

    name = "tj.concat"
    inputs = var_operand_def(TensorType)
    axis = prop_def(IntegerAttr[I64])
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = (
        "`axis` `=` $axis `,` $inputs attr-dict `:` `(` type($inputs) `)` `->` type($result)"
    )

    def __init__(self, inputs: Sequence[SSAValue], axis: int, result_type: TensorType):
        super().__init__(
            operands=[list(inputs)],
            result_types=[result_type],
            properties={"axis": IntegerAttr(axis, i64)},
        )

    def verify_(self) -> None:
        if not self.inputs:
            raise VerifyException("tj.concat needs at least one input")
        source, target = _types(self)
        axis, rank = self.axis.value.data, target.get_num_dims()
        if not 0 <= axis < rank:
            raise VerifyException(f"tj.concat axis {axis} out of range for rank {rank}")
        expected = list(target.get_shape())
        expected[axis] = 0
        for value in self.inputs:
            ttype = value.type
            assert isinstance(ttype, TensorType)
            if ttype.get_element_type() != source.get_element_type():
                raise VerifyException("tj.concat inputs must share an element type")
            shape = list(ttype.get_shape())
            if len(shape) != rank:
                raise VerifyException("tj.concat inputs must have the result's rank")
            unknown = DYNAMIC_INDEX in (expected[axis], shape[axis])
            expected[axis] = DYNAMIC_INDEX if unknown else expected[axis] + shape[axis]
            shape[axis] = expected[axis]
            if shape != expected:
                raise VerifyException(f"tj.concat input shape {ttype.get_shape()} does not fit")
        if expected != list(target.get_shape()):
            raise VerifyException(f"tj.concat result shape must be {expected}")

    def evaluate(self, *xs: np.ndarray) -> np.ndarray:
        return np.concatenate(xs, axis=self.axis.value.data)

    def fold(self):
        # concat of one tensor = that tensor
        if len(self.inputs) == 1:
            return (self.inputs[0],)
        return fold_with_numpy(self, self.evaluate)


@irdl_op_definition
class PadOp(IRDLOperation, HasFolderInterface):
    """Surround `operand` with `low[i]` / `high[i]` copies of the 0-d `value` along dim `i`
    (`np.pad` in constant mode).

    %p = tj.pad %x, %v, low = [1, 0], high = [0, 2]
           : (tensor<2x3xf32>, tensor<f32>) -> tensor<3x5xf32>
    """

    name = "tj.pad"
    operand = operand_def(TensorType)
    value = operand_def(TensorType)
    low = prop_def(DenseArrayBase.constr(i64))
    high = prop_def(DenseArrayBase.constr(i64))
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = (
        "$operand `,` $value `,` `low` `=` $low `,` `high` `=` $high attr-dict "
        "`:` `(` type($operand) `,` type($value) `)` `->` type($result)"
    )

    def __init__(
        self,
        operand: SSAValue,
        value: SSAValue,
        low: Sequence[int],
        high: Sequence[int],
        result_type: TensorType,
    ):
        super().__init__(
            operands=[operand, value],
            result_types=[result_type],
            properties={"low": _array(low), "high": _array(high)},
        )

    def get_low(self) -> tuple[int, ...]:
        return tuple(self.low.get_values())

    def get_high(self) -> tuple[int, ...]:
        return tuple(self.high.get_values())

    def verify_(self) -> None:
        source, target = _types(self)
        _check_static(self, source, target)
        value = self.value.type
        assert isinstance(value, TensorType)
        if value.get_shape() != () or value.get_element_type() != source.get_element_type():
            raise VerifyException("tj.pad value must be a 0-d tensor of the operand's type")
        low, high = self.get_low(), self.get_high()
        if len(low) != source.get_num_dims() or len(high) != source.get_num_dims():
            raise VerifyException("tj.pad needs one low and one high width per dim")
        if any(w < 0 for w in (*low, *high)):
            raise VerifyException("tj.pad widths must be non-negative")
        expected = [lo + n + hi for lo, n, hi in zip(low, source.get_shape(), high, strict=True)]
        if list(target.get_shape()) != expected:
            raise VerifyException(f"tj.pad result shape must be {expected}")

    def evaluate(self, x: np.ndarray, value: np.ndarray) -> np.ndarray:
        widths = list(zip(self.get_low(), self.get_high(), strict=True))
        return np.pad(x, widths, mode="constant", constant_values=value[()])

    def fold(self):
        if self.operand.type == self.result.type:  # no padding at all
            return (self.operand,)
        return fold_with_numpy(self, self.evaluate)


# Every shape op, for the dialect's op list.
SHAPE_OPS: list[type[IRDLOperation]] = [
    BroadcastInDimOp,
    DimOp,
    ReshapeOp,
    TransposeOp,
    SliceOp,
    ConcatOp,
    PadOp,
]
