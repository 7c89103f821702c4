"""Buffer forms of the shape and indexing ops (used by `bufferize`).

Each op becomes one `linalg.generic` over its result. Where an element comes from is
said by an indexing map when that map is a plain permutation or projection (transpose,
unit-dim reshapes); otherwise the body computes the source position from the loop
indices (`linalg.index`) with `index` arithmetic and reads it with `memref.load` of
the source buffer (strided slices, reshapes, concat, pad, gather):

    linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], ...} outs(%out : memref<3xf32>) {
    ^0(%o : f32):
      %i = linalg.index 0 : index
      %s = arith.addi %i, %c2 : index          // x[2:5]
      %v = memref.load %x[%s] : memref<6xf32>
      linalg.yield %v : f32
    }

Positions picked by run-time data (gather) are checked with `cf.assert` before the
load, so a bad index fails the call instead of reading out of bounds. Divisions only
ever divide by constant, non-zero sizes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith, cf, memref, scf
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    IndexType,
    IntegerAttr,
    IntegerType,
    LocationAttr,
    i64,
)
from xdsl.dialects.linalg.ops import IndexOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineExpr
from xdsl.rewriter import InsertPoint
from xdsl.utils.exceptions import DiagnosticException

from tracejit.ir.dtypes import element_of, is_unsigned
from tracejit.ir.indexing import GatherOp
from tracejit.ir.shape_ops import ConcatOp, PadOp, ReshapeOp, SliceOp, TransposeOp
from tracejit.ir.shaped import shaped_type
from tracejit.passes.bufferize.blas_windows import read_in_place_by_blas
from tracejit.passes.bufferize.builder import (
    PARALLEL,
    FunctionBufferizer,
    Handler,
    identity_map,
    projection_map,
)
from tracejit.passes.bufferize.in_place import loop_nest, static_bounds
from tracejit.passes.bufferize.structured import read_in_place_by_matmul
from tracejit.passes.support.indices import index_constant
from tracejit.passes.support.scalar_semantics import constant


# --- index arithmetic inside a body ---------------------------------------------------
def _loop_index(b: Builder, dim: int) -> SSAValue:
    return b.insert(IndexOp(dim)).result


def _add(b: Builder, x: SSAValue, offset: int) -> SSAValue:
    return x if offset == 0 else b.insert(arith.AddiOp(x, index_constant(b, offset))).result


def _value(b: Builder, x: int | SSAValue) -> SSAValue:
    return index_constant(b, x) if isinstance(x, int) else x


def _mul(b: Builder, x: SSAValue, factor: int | SSAValue) -> SSAValue:
    return x if factor == 1 else b.insert(arith.MuliOp(x, _value(b, factor))).result


def _clamp_below(b: Builder, x: SSAValue, size: int) -> SSAValue:
    """min(x, size - 1) as unsigned, so a 'negative' x also lands in [0, size)."""
    return b.insert(arith.MinUIOp(x, index_constant(b, size - 1))).result


def _shape(value: SSAValue) -> tuple[int, ...]:
    shape = tuple(shaped_type(value).get_shape())
    if DYNAMIC_INDEX in shape:
        raise DiagnosticException("bufferize: shape ops on dynamic shapes are not supported yet")
    return shape


def _strides(
    bufferizer: FunctionBufferizer, shape: Sequence[int | SSAValue]
) -> list[int | SSAValue]:
    """Row-major element strides; products of run-time sizes are computed before the op."""
    strides: list[int | SSAValue] = []
    running: int | SSAValue = 1
    for size in reversed(shape):
        strides.append(running)
        if isinstance(size, int) and isinstance(running, int):
            running *= size
        else:
            running = _mul(bufferizer.builder, _value(bufferizer.builder, size), running)
    return strides[::-1]


def _run_time_sizes(
    bufferizer: FunctionBufferizer, result: SSAValue, sizes: Sequence[SSAValue]
) -> dict[int, SSAValue]:
    """{result dim: its run-time size} for the `?` dims of `result`, whose sizes an op
    lists in order (`tj.slice` and `tj.reshape`'s `sizes`)."""
    values = iter(bufferizer.values[v] for v in sizes)
    shape = shaped_type(result).get_shape()
    return {d: next(values) for d, size in enumerate(shape) if size == DYNAMIC_INDEX}


def _result_generic(
    bufferizer: FunctionBufferizer,
    op: Operation,
    inputs: Sequence[tuple[SSAValue, list[AffineExpr]]],
    body,
    size_of: Callable[[int], SSAValue] | None = None,
    bounds: Sequence[int | None] = (),
) -> None:
    """A parallel generic over `op`'s result; each input comes with its map's results.
    `size_of(d)` gives the run-time size of each result dim `d` unknown at trace time,
    `bounds` static upper bounds of them where known (`destination`)."""
    result = op.results[0]
    shape = shaped_type(result).get_shape()
    rank = len(shape)
    dynamic = [d for d, size in enumerate(shape) if size == DYNAMIC_INDEX]
    if dynamic and size_of is None:
        raise DiagnosticException(f"bufferize: {op.name} on dynamic shapes is not supported yet")
    sizes = [size_of(d) for d in dynamic] if size_of is not None else []
    output = bufferizer.destination(result, sizes, bounds=bounds)
    maps = [projection_map(rank, exprs) for _, exprs in inputs] + [identity_map(rank)]
    bufferizer.generic(
        [buffer for buffer, _ in inputs], output, maps, [PARALLEL] * rank, body, op.location
    )
    bufferizer.values[result] = output


# --- reshape ----------------------------------------------------------------------
def _unit_dim_reads(source: Sequence[int], target: Sequence[int]) -> list[AffineExpr] | None:
    """The source map when the reshape only adds/removes size-1 dims, else None."""
    kept_target = [d for d, size in enumerate(target) if size != 1]
    if [s for s in source if s != 1] != [target[d] for d in kept_target]:
        return None
    dims = iter(kept_target)
    return [AffineExpr.constant(0) if s == 1 else AffineExpr.dimension(next(dims)) for s in source]


def lower_reshape(bufferizer: FunctionBufferizer, op: ReshapeOp) -> None:
    """Result element at linear position p reads the source element at linear position p.
    Sizes unknown at trace time are `memref.dim`s (source) and the op's `sizes` (result)."""
    source = shaped_type(op.operand).get_shape()
    target = op.result.type.get_shape()
    buffer = bufferizer.values[op.operand]
    sizes = _run_time_sizes(bufferizer, op.result, op.sizes)
    reads = _unit_dim_reads(source, target)
    if reads is not None and source.count(DYNAMIC_INDEX) <= 1:  # then the ? dims match up
        _result_generic(
            bufferizer,
            op,
            [(buffer, reads)],
            lambda b, ins, outs: [ins[0]],
            sizes.__getitem__,
            bufferizer.bounds_of(op.result),  # a kernel's result as a row of a matrix
        )
        return
    if 0 in target:  # nothing to copy (and no size to divide by)
        bufferizer.values[op.result] = bufferizer.destination(op.result, list(sizes.values()))
        return
    source_sizes = [
        bufferizer.dim(buffer, d) if n == DYNAMIC_INDEX else n for d, n in enumerate(source)
    ]
    target_sizes = [sizes.get(d, n) for d, n in enumerate(target)]
    source_strides = _strides(bufferizer, source_sizes)
    target_strides = _strides(bufferizer, target_sizes)

    def body(b: Builder, ins, outs):
        terms = [
            _mul(b, _loop_index(b, d), stride)
            for d, (size, stride) in enumerate(zip(target_sizes, target_strides, strict=True))
            if size != 1
        ]
        linear = terms[0] if terms else index_constant(b, 0)
        for term in terms[1:]:
            linear = b.insert(arith.AddiOp(linear, term)).result
        indices = [
            _delinearize(b, linear, d, source_sizes[d], source_strides[d])
            for d in range(len(source))
        ]
        return [b.insert(memref.LoadOp.get(buffer, indices)).res]

    _result_generic(bufferizer, op, [], body, sizes.__getitem__)


def _delinearize(
    b: Builder, linear: SSAValue, dim: int, size: int | SSAValue, stride: int | SSAValue
) -> SSAValue:
    """(linear / stride) % size of source dim `dim`. Only evaluated inside the loop, so
    never with a zero size (then the reshape has no elements)."""
    if size == 1:
        return index_constant(b, 0)
    quotient = linear if stride == 1 else b.insert(arith.DivUIOp(linear, _value(b, stride))).result
    if dim == 0:
        return quotient
    return b.insert(arith.RemUIOp(quotient, _value(b, size))).result


# --- transpose, slice ---------------------------------------------------------------
def lower_transpose(bufferizer: FunctionBufferizer, op: TransposeOp) -> None:
    """Operand dim perm[j] is walked by result loop j: a permutation map, no index math.
    A transpose that only vector @ matrix products read is no copy: they read its operand
    (`read_in_place_by_matmul`), whose buffer then holds the transpose for liveness too."""
    if read_in_place_by_matmul(op):
        bufferizer.values[op.result] = bufferizer.values[op.operand]
        return
    perm = op.get_permutation()
    reads = [AffineExpr.dimension(perm.index(i)) for i in range(len(perm))]
    buffer = bufferizer.values[op.operand]
    _result_generic(
        bufferizer,
        op,
        [(buffer, reads)],
        lambda b, ins, outs: [ins[0]],
        lambda d: bufferizer.dim(buffer, perm[d]),
    )


def lower_slice(bufferizer: FunctionBufferizer, op: SliceOp) -> None:
    """result[i...] = operand[start + i * step, ...], positions computed in the body; run-
    time starts and counts (dims unknown at trace time) come from the op's operands. A
    slice only BLAS calls read is no copy: they read a window of the operand's buffer."""
    buffer = bufferizer.values[op.operand]
    if read_in_place_by_blas(op):  # a window of the operand's buffer (blas_windows.py)
        bufferizer.values[op.result] = buffer
        return
    step = op.get_step()
    run_time_starts = iter(bufferizer.values[v] for v in op.starts)
    start = [next(run_time_starts) if a == DYNAMIC_INDEX else a for a in op.get_start()]
    counts = _run_time_sizes(bufferizer, op.result, op.sizes)

    def body(b: Builder, ins, outs):
        return [b.insert(memref.LoadOp.get(buffer, slice_indices(b, start, step))).res]

    # a count is at most its dim (distinct positions in range): in a loop, the copy of a
    # run-time count of a static dim needs no malloc per iteration (builder.py)
    bounds = bufferizer.bounds_of(op.result)
    _result_generic(bufferizer, op, [], body, counts.__getitem__, bounds)


def row_major_position(
    b: Builder, shape: Sequence[int], at: Sequence[SSAValue] | None = None
) -> SSAValue:
    """Inside a generic over `shape`: the row-major position of the loop indices, or of
    the position `at` in an array of `shape` (where a reshape of a 1-D array reads it)."""
    position: int | SSAValue = 0
    for d, stride in enumerate(_strides_of(shape)):
        if shape[d] != 1:
            index = _loop_index(b, d) if at is None else at[d]
            position = _sum(b, position, _mul(b, index, stride))
    return _value(b, position)


def _strides_of(shape: Sequence[int]) -> list[int]:
    strides, running = [], 1
    for size in reversed(shape):
        strides.append(running)
        running *= size
    return strides[::-1]


def slice_indices(
    b: Builder,
    start: Sequence[int | SSAValue],
    step: Sequence[int],
    at: Sequence[SSAValue] | None = None,
) -> list[SSAValue]:
    """Inside a generic: the operand position start + i * step that loop position i of a
    slice reads, or that position `at` of the slice reads (also used by fused kernels
    reading through a slice, bufferize/fused.py)."""
    return [
        _value(b, _sum(b, _mul(b, _loop_index(b, d) if at is None else at[d], stride), first))
        for d, (first, stride) in enumerate(zip(start, step, strict=True))
    ]


# --- concat, pad -----------------------------------------------------------------------
def lower_concat(bufferizer: FunctionBufferizer, op: ConcatOp) -> None:
    """Every input is read at a clamped (in-bounds) position; `select` keeps the one
    whose range along `axis` holds the result position. An input whose size along `axis`
    is known at run time only is read under `scf.if` (it may be empty)."""
    axis = op.axis.value.data
    parts: list[tuple[SSAValue, int | SSAValue, int | SSAValue]] = []
    offset: int | SSAValue = 0
    for value in op.inputs:
        buffer = bufferizer.values[value]
        size: int | SSAValue = shaped_type(value).get_shape()[axis]
        if size == DYNAMIC_INDEX:
            size = bufferizer.dim(buffer, axis)
        if size != 0:
            parts.append((buffer, offset, size))
        offset = _sum(bufferizer.builder, offset, size)
    first_input = bufferizer.values[op.inputs[0]]  # off the axis, all inputs agree

    def size_of(d: int) -> SSAValue:
        return _value(bufferizer.builder, offset) if d == axis else bufferizer.dim(first_input, d)

    if not parts:  # nothing to copy
        shape = op.result.type.get_shape()
        sizes = [size_of(d) for d, size in enumerate(shape) if size == DYNAMIC_INDEX]
        bufferizer.values[op.result] = bufferizer.destination(op.result, sizes)
        return
    if op.result.type.has_static_shape():  # each part copied into its place
        output = bufferizer.destination(op.result)
        for buffer, first, _ in parts:
            assert isinstance(first, int)
            _copy_part(bufferizer.builder, buffer, output, axis, first)
        bufferizer.values[op.result] = output
        return

    def body(b: Builder, ins, outs):
        rank = op.result.type.get_num_dims()
        position = _loop_index(b, axis)
        chosen: SSAValue | None = None
        for buffer, first, size in reversed(parts):
            indices = [_loop_index(b, d) for d in range(rank)]
            local = position if first == 0 else b.insert(arith.SubiOp(position, _value(b, first)))
            loaded = _load_part(b, buffer, indices, axis, SSAValue.get(local), size)
            if chosen is None:
                chosen = loaded
                continue
            end = _value(b, _sum(b, first, size))
            before_next = b.insert(arith.CmpiOp(position, end, "ult"))
            chosen = b.insert(arith.SelectOp(before_next, loaded, chosen)).result
        assert chosen is not None
        return [chosen]

    _result_generic(bufferizer, op, [], body, size_of)


def _copy_part(b: Builder, part: SSAValue, output: SSAValue, axis: int, first: int) -> None:
    """output[..., first + i, ...] = part[..., i, ...]: a plain copy loop nest, which LLVM
    vectorises (the general form below loads every part at a clamped position and selects
    one per element: np.roll's halves, 0.58x NumPy on a Game of Life step)."""
    shape = shaped_type(part).get_shape()

    def body(b: Builder, idx: list[SSAValue]) -> None:
        value = b.insert(memref.LoadOp.get(part, idx)).res
        at = list(idx)
        if first:
            at[axis] = b.insert(arith.AddiOp(idx[axis], index_constant(b, first))).result
        b.insert(memref.StoreOp.get(value, output, at))

    loop_nest(b, static_bounds(b, shape), body)


def _sum(b: Builder, x: int | SSAValue, y: int | SSAValue) -> int | SSAValue:
    if isinstance(x, int) and isinstance(y, int):
        return x + y
    if x == 0 or y == 0:
        return y if x == 0 else x
    return b.insert(arith.AddiOp(_value(b, x), _value(b, y))).result


def _load_part(
    b: Builder, buffer: SSAValue, indices: list, axis: int, local: SSAValue, size: int | SSAValue
) -> SSAValue:
    """`buffer` at `indices` with `local` clamped into [0, size) along `axis`; a run-time
    size may be 0, so that read is guarded (it yields a zero nobody selects)."""
    if isinstance(size, int):
        indices[axis] = _clamp_below(b, local, size)
        return b.insert(memref.LoadOp.get(buffer, indices)).res
    element = shaped_type(buffer).get_element_type()
    nonempty = b.insert(arith.CmpiOp(size, index_constant(b, 0), "ne")).result
    guarded = b.insert(scf.IfOp(nonempty, [element], Region(Block()), Region(Block())))
    inside = Builder(InsertPoint.at_end(guarded.true_region.block))
    last = inside.insert(arith.SubiOp(size, index_constant(inside, 1))).result
    indices[axis] = inside.insert(arith.MinUIOp(local, last)).result
    inside.insert(scf.YieldOp(inside.insert(memref.LoadOp.get(buffer, indices)).res))
    outside = Builder(InsertPoint.at_end(guarded.false_region.block))
    outside.insert(scf.YieldOp(constant(outside, 0, element)))
    return guarded.results[0]


def lower_pad(bufferizer: FunctionBufferizer, op: PadOp) -> None:
    """Inside the window read the (clamped) operand element, outside it the pad value."""
    source = _shape(op.operand)
    buffer = bufferizer.values[op.operand]
    value: tuple[SSAValue, list[AffineExpr]] = (bufferizer.values[op.value], [])
    if 0 in source:
        _result_generic(bufferizer, op, [value], lambda b, ins, outs: [ins[0]])
        return
    low, high = op.get_low(), op.get_high()

    def body(b: Builder, ins, outs):
        indices: list[SSAValue] = []
        inside: SSAValue | None = None
        for d, (size, before, after) in enumerate(zip(source, low, high, strict=True)):
            position = _add(b, _loop_index(b, d), -before)
            if before == after == 0:
                indices.append(position)
                continue
            in_range = b.insert(arith.CmpiOp(position, index_constant(b, size), "ult")).result
            inside = in_range if inside is None else b.insert(arith.AndIOp(inside, in_range)).result
            indices.append(_clamp_below(b, position, size))
        loaded = b.insert(memref.LoadOp.get(buffer, indices)).res
        assert inside is not None  # a tj.pad pads some dim (np.pad of nothing is not traced)
        return [b.insert(arith.SelectOp(inside, loaded, ins[0])).result]

    _result_generic(bufferizer, op, [value], body)


# --- gather ------------------------------------------------------------------------------
def checked_index(
    b: Builder,
    raw: SSAValue,
    unsigned: bool,
    size: int | SSAValue,
    message: str,
    location: LocationAttr,
) -> SSAValue:
    """The NumPy position of index `raw` in a dim of `size` (an int, or an `index` value
    when known at run time only): negatives wrap; anything outside [-size, size) fails the
    call through `cf.assert` before it is used."""
    raw = _as_i64(b, raw, unsigned)
    if isinstance(size, int):
        bound = b.insert(arith.ConstantOp(IntegerAttr(size, i64))).result
    else:
        bound = b.insert(arith.IndexCastOp(size, i64)).result
    if not unsigned:
        negative = b.insert(
            arith.CmpiOp(raw, b.insert(arith.ConstantOp(IntegerAttr(0, i64))), "slt")
        )
        wrapped = b.insert(arith.AddiOp(raw, bound)).result
        raw = b.insert(arith.SelectOp(negative, wrapped, raw)).result
    # one unsigned compare rejects both a too-large index and a still-negative one
    in_bounds = b.insert(arith.CmpiOp(raw, bound, "ult")).result
    check = cf.AssertOp(in_bounds, message)
    check.location = location
    b.insert(check)
    return b.insert(arith.IndexCastOp(raw, IndexType())).result


def _as_i64(b: Builder, raw: SSAValue, unsigned: bool) -> SSAValue:
    """An integer index widened to i64 (zero- or sign-extended as its dtype says)."""
    if raw.type.width.data < 64:  # type: ignore[attr-defined]  # an integer type
        extend = arith.ExtUIOp if unsigned else arith.ExtSIOp
        raw = b.insert(extend(raw, IntegerType(64))).result
    return raw


def _index_of(b: Builder, raw: SSAValue, unsigned: bool) -> SSAValue:
    """An integer known to lie in [0, size) as an `index`."""
    return b.insert(arith.IndexCastOp(_as_i64(b, raw, unsigned), IndexType())).result


def lower_gather(bufferizer: FunctionBufferizer, op: GatherOp) -> None:
    """result[before, j..., after] = input[before, wrap(indices[j...]), after]."""
    source = shaped_type(op.input).get_shape()
    index_rank = len(shaped_type(op.indices).get_shape())
    axis = op.get_axis()
    buffer = bufferizer.values[op.input]
    size = bufferizer.dim(buffer, axis) if source[axis] == DYNAMIC_INDEX else source[axis]
    unsigned = is_unsigned(element_of(op.indices))
    index_reads = [AffineExpr.dimension(axis + k) for k in range(index_rank)]
    message = op.message.data

    indices = bufferizer.values[op.indices]
    in_bounds = op.in_bounds is not None

    def position_of(b: Builder, raw: SSAValue) -> SSAValue:
        if in_bounds:  # known to lie in [0, size): no wrap, no check
            return _index_of(b, raw, unsigned)
        return checked_index(b, raw, unsigned, size, message, op.location)

    hoisted: SSAValue | None = None
    if index_rank == 0:  # one index (`x[-1]`): checked once, even when no element is read
        raw = bufferizer.builder.insert(memref.LoadOp.get(indices, [])).res
        hoisted = position_of(bufferizer.builder, raw)

    def body(b: Builder, ins, outs):
        position = hoisted if hoisted is not None else position_of(b, ins[0])
        before = [_loop_index(b, d) for d in range(axis)]
        after_dims = range(axis + index_rank, axis + index_rank + len(source) - axis - 1)
        after = [_loop_index(b, d) for d in after_dims]
        return [b.insert(memref.LoadOp.get(buffer, [*before, position, *after])).res]

    def size_of(d: int) -> SSAValue:  # a result dim unknown at trace time: an input's dim
        if axis <= d < axis + index_rank:
            return bufferizer.dim(indices, d - axis)
        return bufferizer.dim(buffer, d if d < axis else d - index_rank + 1)

    inputs = [] if hoisted is not None else [(indices, index_reads)]
    # in a loop, a result of a run-time size bounded by static dims (the gather through a
    # CSR row's indices) lives in a scratch buffer of the bound, not a heap block per trip
    _result_generic(bufferizer, op, inputs, body, size_of, bufferizer.bounds_of(op.result))


# --- index arithmetic -------------------------------------------------------------------
def copy_index_arith(bufferizer: FunctionBufferizer, op: Operation) -> None:
    """`arith` on `index` values (a slice's run-time start and count, frontend/
    slice_bounds.py) and `cf.assert`s on them (two slice lengths equal) have no tensors in
    them: they are copied as they are."""
    mapping = {old: bufferizer.values[old] for old in op.operands}
    new = bufferizer.builder.insert(op.clone(value_mapper=mapping))
    for old, value in zip(op.results, new.results, strict=True):
        bufferizer.values[old] = value


INDEX_ARITH = (
    arith.ConstantOp,
    arith.IndexCastOp,
    arith.CmpiOp,
    arith.SelectOp,
    arith.AddiOp,
    arith.SubiOp,
    arith.MuliOp,
    arith.MinSIOp,
    arith.MaxSIOp,
    arith.DivUIOp,
    cf.AssertOp,
)

SHAPE_HANDLERS: dict[type[Operation], Handler] = {
    **dict.fromkeys(INDEX_ARITH, copy_index_arith),
    ReshapeOp: lower_reshape,
    TransposeOp: lower_transpose,
    SliceOp: lower_slice,
    ConcatOp: lower_concat,
    PadOp: lower_pad,
    GatherOp: lower_gather,
}
