"""Long lines of `tj.sort` (used by passes/bufferize/sort.py): a stable least-significant-digit
radix sort, in the scratch buffer the merge sort uses (two halves of n elements, plus the
positions for "indices").

Each element has a key, an unsigned integer whose unsigned order is NumPy's order: unsigned
integers and bools as they are, signed integers with the sign bit flipped, floats with
-0.0 made +0.0 (NumPy holds them equal: a stable sort keeps their order) and then, for a
negative number, every bit flipped, otherwise the sign bit; every NaN (any sign, any
payload) takes the largest key, so NaNs go last, in their order. The scratch buffer holds
the elements themselves, never the keys: a key is computed again when it is needed, so
-0.0 and NaN payloads come out bit for bit and "values" carries no payload.

    counts[d][c] = number of elements whose digit d is c     (one read, all digits at once)
    from = 0
    for d in range(digits):                   the least significant digit first
        if counts[d][digit d of scratch[from]] == n:  continue   (one value: nothing moves)
        counts[d] = exclusive prefix sums of counts[d]        (where each bucket starts)
        for k in range(n):                    in order: equal digits keep their order
            c = digit d of scratch[from + k]
            scratch[(n - from) + counts[d][c]] = scratch[from + k]   (and its position)
            counts[d][c] += 1
        from = n - from
    the sorted line is scratch[from : from + n]

A digit has `DIGIT_BITS` bits (the last one of a key may have fewer): `digits` passes of
O(n), against the merge sort's ceil(log2 n). The counts (one row of `BUCKETS` per digit)
are zeroed for each line, which is why short lines keep the merge sort:
`sort.py` picks this sort at run time for lines of `MIN_LENGTH` elements or more.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import (
    AnyFloat,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Region, SSAValue
from xdsl.rewriter import InsertPoint

from tracejit.ir import upstream_memref
from tracejit.ir.dtypes import is_bool, is_float, is_unsigned
from tracejit.passes.support.indices import index_constant
from tracejit.passes.support.loops import for_loop

DIGIT_BITS = 8
BUCKETS = 1 << DIGIT_BITS
MIN_LENGTH = 256
"""Lines this long or longer are radix sorted (below, zeroing and summing the counts costs
more than the merge passes it saves)."""


# load(b, k): copy element k of the line into the scratch buffers (first half), return it
Load = Callable[[Builder, SSAValue], SSAValue]


class RadixSort:
    """The radix sort of one `tj.sort`'s lines of length `n`: the element type and what it
    decides (the key's bit width, the number of digits), and the counts, allocated once for
    all lines (none when `n` is known to be short)."""

    def __init__(self, b: Builder, n: SSAValue, element: Attribute):
        self.n, self.element = n, element
        self.bits = 1 if is_bool(element) else element.bitwidth  # type: ignore[attr-defined]
        self.word = i32 if self.bits <= 32 else i64  # the key, widened for the digit masks
        self.digits = -(-self.bits // DIGIT_BITS)
        known = _constant(n)
        # with the length known at trace time, only one of the two sorts is built
        self.choice = None if known is None else known >= MIN_LENGTH
        self._counts: SSAValue | None = None
        if self.choice is not False:
            counts = MemRefType(IndexType(), [self.digits * BUCKETS])
            self._counts = b.insert(upstream_memref.AllocOp([], [], counts)).memref

    @property
    def counts(self) -> SSAValue:
        assert self._counts is not None, "a line known to be short has no counts"
        return self._counts

    def free(self, b: Builder) -> None:
        if self._counts is not None:
            b.insert(memref.DeallocOp.get(self._counts))

    def sort(
        self,
        b: Builder,
        scratch: Sequence[SSAValue],
        load: Load,
        merge_sort: Callable[[Builder], SSAValue],
    ) -> SSAValue:
        """Copy the line into the scratch buffers with `load` and sort it; returns where the
        sorted line starts in them (0 or n). Radix sorted when n >= MIN_LENGTH, else by
        `merge_sort` (which loads the line itself). `scratch` is the elements' buffer, then
        the positions' for "indices"."""
        if self.choice is not None:
            return self._radix_sort(b, scratch, load) if self.choice else merge_sort(b)
        long = b.insert(arith.CmpiOp(self.n, index_constant(b, MIN_LENGTH), "uge")).result
        radix = _block(lambda b: self._radix_sort(b, scratch, load))
        merge = _block(merge_sort)
        return b.insert(scf.IfOp(long, [IndexType()], Region(radix), Region(merge))).results[0]

    def _radix_sort(self, b: Builder, scratch: Sequence[SSAValue], load: Load) -> SSAValue:
        n, counts = self.n, self.counts
        self._count(b, load)
        zero, one = index_constant(b, 0), index_constant(b, 1)

        def one_pass(b: Builder, d: SSAValue, carried: Sequence[SSAValue]) -> Sequence[SSAValue]:
            source = carried[0]
            base = b.insert(arith.MuliOp(d, index_constant(b, BUCKETS))).result
            shift = _shift(b, d, self.word)
            first = self._digit(b, _load(b, scratch[0], [source]), shift)
            alone = _load(b, counts, [_add(b, base, first)])
            same = b.insert(arith.CmpiOp(alone, n, "eq")).result

            def scatter(b: Builder) -> SSAValue:
                target = b.insert(arith.SubiOp(n, source)).result
                self._prefix_sums(b, base)
                self._scatter(b, n, scratch, source, target, base, shift)
                return target

            moved = _block(scatter)
            kept = Block([scf.YieldOp(source)])
            return b.insert(scf.IfOp(same, [IndexType()], Region(kept), Region(moved))).results

        digits = index_constant(b, self.digits)
        return for_loop(b, zero, digits, one, [zero], one_pass)[0]

    def _count(self, b: Builder, load: Load) -> None:
        """Load the line; counts[d * BUCKETS + c] = how many of its elements have c as
        digit d."""
        counts = self.counts
        zero, one = index_constant(b, 0), index_constant(b, 1)

        def clear(b: Builder, j: SSAValue, _: Sequence[SSAValue]) -> Sequence[SSAValue]:
            _store(b, zero, counts, [j])
            return []

        for_loop(b, zero, index_constant(b, self.digits * BUCKETS), one, [], clear)

        def element(b: Builder, k: SSAValue, _: Sequence[SSAValue]) -> Sequence[SSAValue]:
            key = self._key(b, load(b, k))

            def digit(b: Builder, d: SSAValue, _: Sequence[SSAValue]) -> Sequence[SSAValue]:
                base = b.insert(arith.MuliOp(d, index_constant(b, BUCKETS))).result
                slot = _add(b, base, _digit_of(b, key, _shift(b, d, self.word)))
                _store(b, _add(b, _load(b, counts, [slot]), one), counts, [slot])
                return []

            for_loop(b, zero, index_constant(b, self.digits), one, [], digit)
            return []

        for_loop(b, zero, self.n, one, [], element)

    def _prefix_sums(self, b: Builder, base: SSAValue) -> None:
        """counts[base + c] = the sum of counts[base : base + c] (where bucket c starts)."""
        counts = self.counts
        zero, one = index_constant(b, 0), index_constant(b, 1)

        def bucket(b: Builder, c: SSAValue, carried: Sequence[SSAValue]) -> Sequence[SSAValue]:
            slot = _add(b, base, c)
            count = _load(b, counts, [slot])
            _store(b, carried[0], counts, [slot])
            return [_add(b, carried[0], count)]

        for_loop(b, zero, index_constant(b, BUCKETS), one, [zero], bucket)

    def _scatter(
        self,
        b: Builder,
        n: SSAValue,
        scratch: Sequence[SSAValue],
        source: SSAValue,
        target: SSAValue,
        base: SSAValue,
        shift: SSAValue,
    ) -> None:
        """Move each element of the `source` half (and its position) to the `target` half,
        at the next free place of its bucket, in order."""
        counts = self.counts
        zero, one = index_constant(b, 0), index_constant(b, 1)

        def element(b: Builder, k: SSAValue, _: Sequence[SSAValue]) -> Sequence[SSAValue]:
            at = _add(b, source, k)
            value = _load(b, scratch[0], [at])
            slot = _add(b, base, self._digit(b, value, shift))
            place = _load(b, counts, [slot])
            _store(b, _add(b, place, one), counts, [slot])
            to = [_add(b, target, place)]
            _store(b, value, scratch[0], to)
            for payload in scratch[1:]:
                _store(b, _load(b, payload, [at]), payload, to)
            return []

        for_loop(b, zero, n, one, [], element)

    def _digit(self, b: Builder, value: SSAValue, shift: SSAValue) -> SSAValue:
        return _digit_of(b, self._key(b, value), shift)

    def _key(self, b: Builder, value: SSAValue) -> SSAValue:
        """The element's key (module docstring), zero-extended to `self.word`."""
        if is_float(self.element):
            key = _float_key(b, value, self.element)
        elif is_bool(self.element) or is_unsigned(self.element):
            key = value
        else:
            key = b.insert(arith.XOrIOp(value, _int(b, 1 << (self.bits - 1), value.type))).result
        if key.type == self.word:
            return key
        return b.insert(arith.ExtUIOp(key, self.word)).result


def _float_key(b: Builder, value: SSAValue, element: AnyFloat) -> SSAValue:
    """-0.0 as +0.0, then negative numbers with all bits flipped, others with the sign bit;
    NaN the largest key."""
    bits = element.bitwidth
    unsigned = IntegerType(bits)
    zero = b.insert(arith.ConstantOp(FloatAttr(0.0, element))).result
    is_zero = b.insert(arith.CmpfOp(value, zero, "oeq")).result
    number = b.insert(arith.SelectOp(is_zero, zero, value)).result
    pattern = b.insert(arith.BitcastOp(number, unsigned)).result
    negative = b.insert(arith.ShRSIOp(pattern, _int(b, bits - 1, unsigned))).result
    flips = b.insert(arith.OrIOp(negative, _int(b, 1 << (bits - 1), unsigned))).result
    key = b.insert(arith.XOrIOp(pattern, flips)).result
    nan = b.insert(arith.CmpfOp(value, value, "uno")).result
    return b.insert(arith.SelectOp(nan, _int(b, -1, unsigned), key)).result


def _digit_of(b: Builder, key: SSAValue, shift: SSAValue) -> SSAValue:
    """(key >> shift) % BUCKETS as an index."""
    shifted = b.insert(arith.ShRUIOp(key, shift)).result
    digit = b.insert(arith.AndIOp(shifted, _int(b, BUCKETS - 1, key.type))).result
    return b.insert(arith.IndexCastOp(digit, IndexType())).result


def _shift(b: Builder, d: SSAValue, word: Attribute) -> SSAValue:
    """The shift of digit `d` (an index) as a `word`."""
    bits = b.insert(arith.MuliOp(d, index_constant(b, DIGIT_BITS))).result
    return b.insert(arith.IndexCastOp(bits, word)).result


def _constant(n: SSAValue) -> int | None:
    """The value of an index known at trace time (an `arith.constant`), else None."""
    if isinstance(n.owner, arith.ConstantOp) and isinstance(n.owner.value, IntegerAttr):
        return n.owner.value.value.data
    return None


def _int(b: Builder, value: int, type: Attribute) -> SSAValue:
    width = type.width.data  # type: ignore[attr-defined]
    signed = value - (1 << width) if value >= 1 << (width - 1) else value
    return b.insert(arith.ConstantOp(IntegerAttr(signed, type))).result


def _block(body: Callable[[Builder], SSAValue]) -> Block:
    """A region's block that runs `body` and yields what it returns."""
    block = Block()
    inner = Builder(InsertPoint.at_end(block))
    inner.insert(scf.YieldOp(body(inner)))
    return block


def _add(b: Builder, x: SSAValue, y: SSAValue) -> SSAValue:
    return b.insert(arith.AddiOp(x, y)).result


def _load(b: Builder, buffer: SSAValue, indices: Sequence[SSAValue]) -> SSAValue:
    return b.insert(memref.LoadOp.get(buffer, indices)).res


def _store(b: Builder, value: SSAValue, buffer: SSAValue, indices: Sequence[SSAValue]) -> None:
    b.insert(memref.StoreOp.get(value, buffer, indices))
