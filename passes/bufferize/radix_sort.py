"""Long lines of `tj.sort` (used by passes/bufferize/sort.py): a stable least-significant-digit
radix sort, in the scratch buffers the merge sort uses (two halves of n elements, and the
positions' for "indices"), whose last pass stores into the result.

Each element has a key, an unsigned integer whose unsigned order is NumPy's order: unsigned
integers and bools as they are, signed integers with the sign bit flipped, floats with
-0.0 made +0.0 (NumPy holds them equal: a stable sort keeps their order) and then, for a
negative number, every bit flipped, otherwise the sign bit; every NaN (any sign, any
payload) takes the largest key, so NaNs go last, in their order.

What the passes move: for "values", the elements themselves, never their keys: a key is
computed again where it is needed (a few scalar ops, cheaper than moving it), so -0.0 and
NaN payloads come out bit for bit. For "indices" of keys of 32 bits or fewer, one i64 per
element, key << 32 | position, in the positions' buffer (the last pass stores the
position alone): one scattered store per element instead of two made np.argsort of 10M
float32 1.5x faster. For 64-bit keys, the elements and their positions side by side.

The line is loaded and its digits counted in chunks of CHUNK elements, each chunk with
its own counts, so that threads may share the chunks; the passes themselves are serial
(the chunks depend on n alone, and a stable sort has one result: the same for every
thread count):

    for each chunk (tj.parallel):            copy it in (positions[k] = k or key << 32 | k)
        counts[chunk][d][c] = how many of its elements have c as digit d  (all d at once)
    counts[0] += counts[1] + ... (the line's counts)
    moves(d) = counts[0][d][digit d of line[0]] != n     (not one digit value for the line)
    passes = 1 + the last d that moves
    if there is none: result = line          (one key: sorted as it is; positions 0 .. n-1)
    from = 0
    for d in range(passes):                  the least significant digit first
        if not moves(d): continue            nothing would move
        counts[0][d] = exclusive prefix sums of counts[0][d]   (where each bucket starts)
        for k in range(n):                   in order: equal digits keep their order
            c = digit d of scratch[from + k]
            to = counts[0][d][c]; counts[0][d][c] += 1
            scratch[(n - from) + to] = scratch[from + k]             (and its position)
                                             the last pass: result[to] = element or position
        from = n - from

A digit has DIGIT_BITS bits (the last one of a key may have fewer): at most `digits`
passes of O(n), against the merge sort's ceil(log2 n); small integers skip their high
digits. The counts (BUCKETS per digit) are zeroed and summed for every line, which is why
short lines keep the merge sort: `sort.py` builds both, and this one is taken at run time
for lines of LENGTH_PER_DIGIT * digits elements or more (packed: and at most MAX_PACKED).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AnyFloat,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    UnitAttr,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Region, SSAValue
from xdsl.rewriter import InsertPoint

from tracejit.ir import upstream_memref
from tracejit.ir.dtypes import is_bool, is_float, is_unsigned
from tracejit.ir.parallel_contract import PARALLEL_LOOP_ATTR
from tracejit.passes.support.build import add, load, mul, store
from tracejit.passes.support.indices import index_constant
from tracejit.passes.support.loops import for_loop

DIGIT_BITS = 8
"""8-bit digits: 11-bit ones (3 passes for f32 instead of 4) were slower here, their 2048
buckets scattering to too many places at once (10M float32: 68 ms against 50)."""
BUCKETS = 1 << DIGIT_BITS
CHUNK = 1 << 16
"""Elements of a chunk: enough that its BUCKETS counts cost little, few enough that a long
line has chunks for every thread."""
MAX_PACKED = 1 << 32
"""The longest line whose positions, packed with 32-bit keys, fit in 32 bits (longer lines
of "indices" are merge sorted)."""
LENGTH_PER_DIGIT = 8
"""Lines of at least this many elements per digit of their key are radix sorted: below,
zeroing and summing the counts (BUCKETS per digit) costs more than the merge passes saved
(measured on random lines on x86-64, in two runs: 8-bit keys cross over at ~8-10
elements, 16-bit at ~16-20, f32 at ~28, f64 at ~48-56, i64 at ~60-80)."""

# read(b, k): element k of the line (in the input); write(b, k, x): the result's element k
Read = Callable[[Builder, SSAValue], SSAValue]
Write = Callable[[Builder, SSAValue, SSAValue], None]
# put(b, place, moved): where a pass puts an element (and its position) in the order
Put = Callable[[Builder, SSAValue, Sequence[SSAValue]], None]
ForBody = Callable[[Builder, SSAValue, Sequence[SSAValue]], Sequence[SSAValue]]


class RadixSort:
    """The radix sort of one `tj.sort`'s lines of length `n`: the element type and what it
    decides (the key's bit width, the number of digits), and the counts, allocated once for
    all lines (none when `n` is known to be short)."""

    def __init__(self, b: Builder, n: SSAValue, element: Attribute, indices: bool):
        self.n, self.element = n, element
        self.bits = 1 if is_bool(element) else element.bitwidth  # type: ignore[attr-defined]  # an integer or float type
        self.word = i32 if self.bits <= 32 else i64  # the key, widened for the digit masks
        self.digits = -(-self.bits // DIGIT_BITS)
        self.min_length = LENGTH_PER_DIGIT * self.digits
        # "indices" of keys of 32 bits or fewer: key << 32 | position, one i64 to move
        self.packed = indices and self.bits <= 32
        known = _constant(n)
        # with the length known at trace time, only one of the two sorts is built
        self.choice = None
        if known is not None:
            self.choice = known >= self.min_length and (known <= MAX_PACKED or not self.packed)
        self._counts: SSAValue | None = None
        if self.choice is not False:
            chunk = index_constant(b, CHUNK)
            self.chunks = b.insert(arith.CeilDivUIOp(n, chunk)).result
            rows = mul(b, self.chunks, index_constant(b, self.digits * BUCKETS))
            counts = MemRefType(IndexType(), [DYNAMIC_INDEX])
            self._counts = b.insert(upstream_memref.AllocOp([rows], [], counts)).memref

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
        read: Read,
        write: Write,
        merge_sort: Callable[[Builder], None],
    ) -> None:
        """Sort the line (`read(k)` is its element k) into the result (`write(k, x)` sets
        its element k). Radix sorted when n >= `min_length`, else by `merge_sort`.
        `scratch` is the elements' buffer, then the positions' for "indices"."""
        if self.choice is not None:
            if self.choice:
                self._radix_sort(b, scratch, read, write)
            else:
                merge_sort(b)
            return
        long: SSAValue = _at_least(b, self.n, self.min_length)
        if self.packed:  # and the positions fit in 32 bits
            fits = b.insert(arith.CmpiOp(self.n, index_constant(b, MAX_PACKED), "ule")).result
            long = b.insert(arith.AndIOp(long, fits)).result
        radix, merge = Block(), Block()
        self._radix_sort(Builder(InsertPoint.at_end(radix)), scratch, read, write)
        merge_sort(Builder(InsertPoint.at_end(merge)))
        for block in (radix, merge):
            block.add_op(scf.YieldOp())
        b.insert(scf.IfOp(long, [], Region(radix), Region(merge)))

    def _radix_sort(self, b: Builder, scratch: Sequence[SSAValue], read: Read, write: Write):
        self._count(b, scratch, read)
        zero, one = index_constant(b, 0), index_constant(b, 1)
        first = self._key(b, read(b, zero))  # shares every digit shared

        def moves(b: Builder, d: SSAValue) -> SSAValue:
            """Not every element has the first one's digit d: the pass of d moves some."""
            digit = _digit_of(b, first, _shift(b, d, self.word))
            alone = load(b, self.counts, [add(b, mul(b, d, _buckets(b)), digit)])
            return b.insert(arith.CmpiOp(alone, self.n, "ne")).result

        def last(b: Builder, d: SSAValue, carried: Sequence[SSAValue]) -> Sequence[SSAValue]:
            return [b.insert(arith.SelectOp(moves(b, d), add(b, d, one), carried[0])).result]

        # The passes stop after the last digit that moves anything: on small integers the
        # high digits cost nothing, and LLVM, not knowing the trip count, does not unroll
        # the passes (an i64 sort would compile 8 copies of them, 2x slower)
        digits = index_constant(b, self.digits)
        passes = for_loop(b, zero, digits, one, [zero], last)[0]

        def one_pass(b: Builder, d: SSAValue, carried: Sequence[SSAValue]) -> Sequence[SSAValue]:
            source = carried[0]

            def scatter(b: Builder) -> SSAValue:
                target = b.insert(arith.SubiOp(self.n, source)).result
                self._prefix_sums(b, d)
                self._scatter(b, scratch, source, d, self._into(scratch, target))
                return target

            return [_if(b, moves(b, d), scatter, lambda b: source)]

        def unmoved(b: Builder) -> None:
            """One key for the whole line: it is sorted as it is."""

            def body(b: Builder, k: SSAValue, _: Sequence[SSAValue]) -> Sequence[SSAValue]:
                write(b, k, _position(b, k) if len(scratch) > 1 else read(b, k))
                return []

            for_loop(b, zero, self.n, one, [], body)

        def moved(b: Builder) -> None:
            """The passes but the last into the other half and back, the last into the
            result (packed positions without their keys)."""
            final = b.insert(arith.SubiOp(passes, one)).result
            source = for_loop(b, zero, final, one, [zero], one_pass)[0]
            self._prefix_sums(b, final)
            self._scatter(b, scratch, source, final, self._out(scratch, write))

        none = b.insert(arith.CmpiOp(passes, zero, "eq")).result
        branches = Block(), Block()
        for block, body in zip(branches, (unmoved, moved), strict=True):
            body(Builder(InsertPoint.at_end(block)))
            block.add_op(scf.YieldOp())
        b.insert(scf.IfOp(none, [], Region(branches[0]), Region(branches[1])))

    def _into(self, scratch: Sequence[SSAValue], target: SSAValue) -> Put:
        """Where a pass puts what it moves: at `target` + place in the scratch buffers."""

        def put(b: Builder, place: SSAValue, moved: Sequence[SSAValue]) -> None:
            to = [add(b, target, place)]
            for value, buffer in zip(moved, self._moved(scratch), strict=True):
                store(b, value, buffer, to)

        return put

    def _out(self, scratch: Sequence[SSAValue], write: Write) -> Put:
        """Where the last pass puts what it moves: the result's element (the position for
        "indices", cut off its key when packed)."""

        def put(b: Builder, place: SSAValue, moved: Sequence[SSAValue]) -> None:
            result = moved[-1]
            if self.packed:
                result = b.insert(arith.AndIOp(result, _int(b, 0xFFFFFFFF, i64))).result
            write(b, place, result)

        return put

    def _moved(self, scratch: Sequence[SSAValue]) -> Sequence[SSAValue]:
        """The buffers a pass moves: packed positions, or elements (and positions)."""
        return scratch[1:] if self.packed else scratch

    def _count(self, b: Builder, scratch: Sequence[SSAValue], read: Read) -> None:
        """Copy the line in and count its digits: counts[d * BUCKETS + c] = how many
        elements have c as digit d. Each chunk counts its own elements in its own counts
        (threads may share the chunks), then the other chunks' counts are added to chunk
        0's."""
        zero, one = index_constant(b, 0), index_constant(b, 1)
        size = index_constant(b, self.digits * BUCKETS)  # the counts of one chunk

        def chunk(b: Builder, i: SSAValue, lo: SSAValue, hi: SSAValue) -> None:
            start = mul(b, i, size)
            for_loop(b, zero, size, one, [], _storing(zero, self.counts, start))

            def element(b: Builder, k: SSAValue, _: Sequence[SSAValue]) -> Sequence[SSAValue]:
                value = read(b, k)
                key = self._key(b, value)
                self._copy_in(b, scratch, k, value, key)

                def digit(b: Builder, d: SSAValue, _: Sequence[SSAValue]) -> Sequence[SSAValue]:
                    base = add(b, start, mul(b, d, index_constant(b, BUCKETS)))
                    slot = add(b, base, _digit_of(b, key, _shift(b, d, self.word)))
                    store(b, add(b, load(b, self.counts, [slot]), one), self.counts, [slot])
                    return []

                for_loop(b, zero, index_constant(b, self.digits), one, [], digit)
                return []

            for_loop(b, lo, hi, one, [], element)

        self._chunks(b, chunk)

        def fold(b: Builder, i: SSAValue, _: Sequence[SSAValue]) -> Sequence[SSAValue]:
            start = mul(b, i, size)

            def add_counts(b: Builder, j: SSAValue, _: Sequence[SSAValue]) -> Sequence[SSAValue]:
                more = load(b, self.counts, [add(b, start, j)])
                store(b, add(b, load(b, self.counts, [j]), more), self.counts, [j])
                return []

            for_loop(b, zero, size, one, [], add_counts)
            return []

        for_loop(b, one, self.chunks, one, [], fold)  # no loop at all for one chunk

    def _copy_in(
        self, b: Builder, scratch: Sequence[SSAValue], k: SSAValue, value: SSAValue, key: SSAValue
    ) -> None:
        """Element k (`value`, whose key is `key`) into the first half of the scratch
        buffers: itself (and position k), or key << 32 | k when packed."""
        if self.packed:
            wide = b.insert(arith.ExtUIOp(key, i64)).result
            high = b.insert(arith.ShLIOp(wide, _int(b, 32, i64))).result
            store(b, b.insert(arith.OrIOp(high, _position(b, k))).result, scratch[1], [k])
            return
        store(b, value, scratch[0], [k])
        for positions in scratch[1:]:
            store(b, _position(b, k), positions, [k])

    def _prefix_sums(self, b: Builder, d: SSAValue) -> None:
        """counts[d][c] = the sum of counts[d][:c] (where bucket c starts)."""
        zero, one = index_constant(b, 0), index_constant(b, 1)
        base = mul(b, d, _buckets(b))  # where counts[d] starts

        def bucket(b: Builder, c: SSAValue, carried: Sequence[SSAValue]) -> Sequence[SSAValue]:
            slot = add(b, base, c)
            count = load(b, self.counts, [slot])
            store(b, carried[0], self.counts, [slot])
            return [add(b, carried[0], count)]

        for_loop(b, zero, index_constant(b, BUCKETS), one, [zero], bucket)

    def _scatter(
        self, b: Builder, scratch: Sequence[SSAValue], source: SSAValue, d: SSAValue, put: Put
    ) -> None:
        """Move each element of the `source` half (and its position) to the next free
        place of its bucket of digit d, in order, with `put`. (Filling each bucket from
        both ends at once, the line's first half up and its second half down, to have two
        chains of places, was 2x slower: twice the places written at a time.)"""
        zero, one = index_constant(b, 0), index_constant(b, 1)
        buffers = self._moved(scratch)
        base = mul(b, d, _buckets(b))
        shift = _shift(b, d, i64 if self.packed else self.word, 32 if self.packed else 0)

        def element(b: Builder, k: SSAValue, _: Sequence[SSAValue]) -> Sequence[SSAValue]:
            at = [add(b, source, k)]
            moved = [load(b, buffer, at) for buffer in buffers]
            key = moved[0] if self.packed else self._key(b, moved[0])
            slot = [add(b, base, _digit_of(b, key, shift))]
            place = load(b, self.counts, slot)
            store(b, add(b, place, one), self.counts, slot)
            put(b, place, moved)
            return []

        for_loop(b, zero, self.n, one, [], element)

    def _chunks(self, b: Builder, body: Callable[[Builder, SSAValue, SSAValue, SSAValue], None]):
        """`body(b, i, lo, hi)` for each chunk i = [lo, hi) of the line, in a loop marked for
        threads (each chunk writes its own elements and counts)."""
        zero, one = index_constant(b, 0), index_constant(b, 1)
        size = index_constant(b, CHUNK)

        def chunk(b: Builder, i: SSAValue, _: Sequence[SSAValue]) -> Sequence[SSAValue]:
            lo = mul(b, i, size)
            # min(lo + CHUNK, n): the form `parallelize` reads as CHUNK iterations of work
            hi = b.insert(arith.MinUIOp(add(b, lo, size), self.n)).result
            body(b, i, lo, hi)
            return []

        for_loop(b, zero, self.chunks, one, [], chunk)
        loop = b.insertion_point.block.last_op
        assert isinstance(loop, scf.ForOp)
        loop.attributes[PARALLEL_LOOP_ATTR] = UnitAttr()

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


def _shift(b: Builder, d: SSAValue, word: Attribute, offset: int = 0) -> SSAValue:
    """The shift of digit `d` (an index) as a `word`, for a key `offset` bits up."""
    bits = mul(b, d, index_constant(b, DIGIT_BITS))
    if offset:
        bits = add(b, bits, index_constant(b, offset))
    return b.insert(arith.IndexCastOp(bits, word)).result


def _storing(value: SSAValue, buffer: SSAValue, start: SSAValue) -> ForBody:
    """A loop body storing `value` at buffer[start + j]."""

    def body(b: Builder, j: SSAValue, _: Sequence[SSAValue]) -> Sequence[SSAValue]:
        store(b, value, buffer, [add(b, start, j)])
        return []

    return body


def _at_least(b: Builder, n: SSAValue, length: int) -> SSAValue:
    return b.insert(arith.CmpiOp(n, index_constant(b, length), "uge")).result


def _constant(n: SSAValue) -> int | None:
    """The value of an index known at trace time (an `arith.constant`), else None."""
    if isinstance(n.owner, arith.ConstantOp) and isinstance(n.owner.value, IntegerAttr):
        return n.owner.value.value.data
    return None


def _int(b: Builder, value: int, type: Attribute) -> SSAValue:
    """An integer constant of `type` with the bits of `value` (given unsigned or signed)."""
    assert isinstance(type, IntegerType)
    width = type.width.data
    signed = value - (1 << width) if value >= 1 << (width - 1) else value
    return b.insert(arith.ConstantOp(IntegerAttr(signed, type))).result


def _if(
    b: Builder,
    condition: SSAValue,
    then: Callable[[Builder], SSAValue],
    otherwise: Callable[[Builder], SSAValue],
) -> SSAValue:
    """`scf.if` yielding one index: `then`'s or `otherwise`'s."""
    regions = Region(_block(then)), Region(_block(otherwise))
    return b.insert(scf.IfOp(condition, [IndexType()], *regions)).results[0]


def _position(b: Builder, k: SSAValue) -> SSAValue:
    return b.insert(arith.IndexCastOp(k, i64)).result


def _buckets(b: Builder) -> SSAValue:
    return index_constant(b, BUCKETS)


def _block(body: Callable[[Builder], SSAValue]) -> Block:
    """A region's block that runs `body` and yields what it returns."""
    block = Block()
    inner = Builder(InsertPoint.at_end(block))
    inner.insert(scf.YieldOp(body(inner)))
    return block
