"""`tile-matmul`: a matmul-shaped `linalg.generic` -> a cache-tiled, register-blocked loop nest.

Expects: buffer-form `linalg.generic`s (after `bufferize`). It rewrites those computing

    C[b..., i, j] += A[b..., i, k] * B[b..., k, j]        (A may be a vector: no i)

that is: two inputs and one output on memrefs; iterators (parallel..., reduction) with the
reduction k last and j the last parallel dim; C's map the parallel dims in order; A's map
(batch..., i, k) or (batch..., k), B's map (batch..., k, j) or (batch..., j, k) (the rows of
`m` for `a @ m.T`, which `bufferize` reads in place), where each batch read is a batch dim of
C or the index 0 (a broadcast batch dim); and the body `acc + x * y` as `bufferize`
writes it for `tj.matmul`: `mulf`+`addf fastmath<reassoc>`, `muli`+`addi` or `andi`+`ori`.
The sum must be reassociable because tiling adds up k in blocks (integer and boolean sums are
exact in any order; a float sum without `reassoc` is left alone). A float `x * y + acc`
becomes `math.fma`: tracejit reads a matmul's `reassoc` as licence to contract too, as BLAS
does; the result differs from NumPy's by rounding only. Left for `lower-to-loops`: matrix @
vector and dot products (their k loop is already the contiguous one, a vectorised
reduction) and static products of fewer than `min-volume` multiply-adds (the plain nest is
as fast there and far cheaper to compile). A matrix @ vector product whose matrix is read
along its rows gets its dot products blocked by rows instead (`support/tile_matvec.py`).

Produces, inside loops over the batch dims, the loop order of BLIS (Goto's algorithm) within
chunks of C's columns:

    %acc = alloca MRxNR                                the register tile
    %bp  = alloca [CW/NR][KC][NR]                      packed panel of B (<= 64 KiB)
    scf.for %jt = 0 to ceil(N/CW) {tj.parallel}        a chunk of CW columns of C and B
      scf.for %pc = 0 to K step KC                     a depth block
        pack B[pc:pc+kc, jc:jc+cw] into %bp            columns past N repeat column N-1
        scf.for %ic = 0 to M step MC {tj.parallel}     a row block: A[ic:+MC, pc:+KC] in L2
          scf.for %jb = 0 to ceil(cw/NR) {tj.parallel} a micro-panel of %bp (KC x NR) in L1
            scf.for %ir = 0 to mc step MR              the micro-tile at (i0, j0):
              %acc[r, j] = 0
              scf.for %k = 0 to kc                       the micro-kernel:
                scf.for %r = 0 to MR                       x = A[min(i0+r, M-1), pc+k]
                  scf.for %j = 0 to NR                       acc[r, j] += x * bp[jb, k, j]
              C[i0:+MR, j0:+NR] += %acc                  only rows < M and columns < N

Why it is fast: LLVM fully unrolls the constant-trip r and j loops, so `%acc` has only
constant indices and SROA keeps it in vector registers across the k loop; per k the kernel
does NR/W vector loads of packed B, MR broadcasts of A and MR*NR/W vector FMAs, with no
store. MR = 6 and NR = two vector registers give 12 accumulators + 2 B vectors + 1
broadcast, which fit AVX2's 16 registers; the option `target` says which registers (AVX2's
32 bytes or AVX-512's 64: see REGISTER_BYTES), `avx2` by default. The packed micro-panel
is contiguous (no stride-N walk over B), KC keeps it in L1 and the B panel in L2. Rows and
columns of a tile that lie past the edge of C are computed from clamped (in-bounds) reads
and never stored, so the micro-kernel has no remainder case; only a tile on the edge (the
`scf.if`, emitted when M or N may not be a multiple of MR or NR) stores through a bounded
loop, from a copy of `%acc` so that `%acc` itself is never indexed by a loop LLVM cannot
unroll.

Why chunks of columns: they are what threads share (`parallelize` outlines the outermost
marked loop with enough iterations). Each chunk packs its own part of B into its own panel
(the stack buffers used only inside the chunk loop are private to each thread's piece), so a
call forks once, and the packing is shared out too instead of running on one thread between
forks. A chunk re-reads A from L3 once per row block, ~2/CW bytes per flop, which is cheap;
CW is chosen so that N splits into about TARGET_CHUNKS chunks of at most 4 micro-panels.
Every element of C sums its depth blocks in the same order whatever the chunking and the
thread count, so results are bit-identical for any number of threads. When N has too few
chunks to share, the row blocks are split instead (and the packing stays serial).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from math import copysign, prod

from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects import arith, math, memref, scf
from xdsl.dialects.arith import FastMathFlag
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    UnitAttr,
)
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.dialects.linalg.ops import GenericOp, YieldOp
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from tracejit.ir import upstream_memref
from tracejit.ir.parallel_contract import PARALLEL_LOOP_ATTR
from tracejit.ir.shaped import shaped_type
from tracejit.passes.support import scalar_semantics as scalar
from tracejit.passes.support.indices import index_constant
from tracejit.passes.support.tile_matvec import is_small_matvec, match_matvec, tile_matvec

# The sum that may be tiled, keyed by the product it adds up.
SUM_OF_PRODUCT: dict[type[Operation], type[Operation]] = {
    arith.MulfOp: arith.AddfOp,
    arith.MuliOp: arith.AddiOp,
    arith.AndIOp: arith.OrIOp,  # bool: any(x and y)
}

REGISTER_BYTES = {"avx2": 32, "avx512": 64}
"""The vector register size of each `target` (the pass option): NR holds two of them. With 16
AVX2 registers MR x NR = 6 x 2 vectors fill 12 of them; AVX-512 has 32, so the same 12
accumulators are twice as wide (6 of them left the FMA units a quarter idle: a 512x512
f32 product ran at 183 GFLOP/s on one Zen 5 core, 237 with 64-byte vectors)."""
DEFAULT_TARGET = "avx2"
"""The target when the pipeline names none: correct on every x86-64 CPU with AVX2."""
REGISTER_ROWS = 6  # MR
DEPTH_BLOCK = 256  # KC
ROW_BLOCK = 72  # MC, a multiple of MR
PANEL_BYTES = 64 * 1024  # the largest packed panel, KC x CW: on the stack of each thread
TARGET_CHUNKS = 16  # column chunks a wide product is cut into, for threads to share


@dataclass(frozen=True)
class MatmulGeneric:
    """A generic `match_matmul` accepted, and the dims it found."""

    op: GenericOp
    batch: int
    """The number of leading batch dims (loop dims 0 .. batch-1)."""
    has_rows: bool
    """Whether A has a row dim i (loop dim `batch`); False for vector @ matrix."""
    product: Operation
    combiner: Operation

    @property
    def k(self) -> int:
        return self.op.get_num_loops() - 1

    @property
    def j(self) -> int:
        return self.op.get_num_loops() - 2

    @property
    def i(self) -> int | None:
        return self.batch if self.has_rows else None

    @property
    def fused(self) -> bool:
        return isinstance(self.combiner, arith.AddfOp)


def match_matmul(op: Operation) -> MatmulGeneric | None:
    """The matmul structure of `op` (see the module docstring), or None."""
    if not isinstance(op, GenericOp) or op.res or len(op.inputs) != 2 or len(op.outputs) != 1:
        return None
    if not all(isinstance(v.type, MemRefType) for v in op.operands):
        return None
    loops = op.get_num_loops()
    kinds = [it.data for it in op.get_iterator_types()]
    if loops < 2 or kinds != [IteratorType.PARALLEL] * (loops - 1) + [IteratorType.REDUCTION]:
        return None
    lhs, rhs, out = (attr.data.results for attr in op.get_indexing_maps())
    dim = AffineExpr.dimension
    k, j = dim(loops - 1), dim(loops - 2)
    if out != tuple(dim(d) for d in range(loops - 1)) or lhs[-1:] != (k,):
        return None
    if rhs[-2:] not in ((k, j), (j, k)):  # B, or the rows of B.T read in place
        return None
    has_rows = loops >= 3 and len(lhs) >= 2 and lhs[-2] == dim(loops - 3)
    batch = loops - 2 - has_rows
    batch_reads = (*lhs[: len(lhs) - 1 - has_rows], *rhs[:-2])
    if not all(_is_batch_read(expr, batch) for expr in batch_reads):
        return None
    body = _match_body(op)
    if body is None:
        return None
    return MatmulGeneric(op, batch, has_rows, *body)


def _is_batch_read(expr: AffineExpr, batch: int) -> bool:
    if isinstance(expr, AffineDimExpr):
        return expr.position < batch
    return expr == AffineConstantExpr(0)


def _match_body(op: GenericOp) -> tuple[Operation, Operation] | None:
    """(product, combiner) of a body `yield combiner(acc, product(x, y))`, either order."""
    x, y, acc = op.body.block.args
    ops = list(op.body.block.ops)
    if len(ops) != 3 or not isinstance(ops[2], YieldOp):
        return None
    product, combiner, end = ops
    if SUM_OF_PRODUCT.get(type(product)) is not type(combiner):
        return None
    if list(product.operands) not in ([x, y], [y, x]) or len({x.type, y.type, acc.type}) != 1:
        return None
    if list(combiner.operands) not in ([acc, product.results[0]], [product.results[0], acc]):
        return None
    if list(end.operands) != [combiner.results[0]]:
        return None
    if isinstance(combiner, arith.AddfOp) and FastMathFlag.REASSOC not in combiner.fastmath.data:
        return None
    return product, combiner


def ceil_div(a: int, b: int) -> int:
    return -(-a // b)


@dataclass(frozen=True)
class TileSizes:
    mr: int
    nr: int
    kc: int
    mc: int
    cw: int
    """The chunk width CW: columns of C per chunk, a multiple of NR."""


def tile_sizes(element: Attribute, rows: int, columns: int, vector_bytes: int) -> TileSizes:
    """Sizes for `element` (i1 is stored as a byte); MR shrinks to a static M below 6, and
    CW cuts a static N into about TARGET_CHUNKS chunks (the widest chunk when N is dynamic)."""
    nbytes = max(1, element.bitwidth // 8)  # type: ignore[attr-defined]  # an integer or float type
    nr = 2 * vector_bytes // nbytes
    mr = REGISTER_ROWS if rows == DYNAMIC_INDEX else max(1, min(REGISTER_ROWS, rows))
    widest = max(1, PANEL_BYTES // (DEPTH_BLOCK * nbytes * nr))  # micro-panels per chunk
    if columns == DYNAMIC_INDEX:
        per_chunk = widest
    else:
        per_chunk = min(widest, max(1, ceil_div(ceil_div(columns, nr), TARGET_CHUNKS)))
    return TileSizes(mr, nr, DEPTH_BLOCK, ROW_BLOCK // REGISTER_ROWS * mr, per_chunk * nr)


class TiledMatmul:
    """Emits the nest for one matched generic, right before it (see the module docstring)."""

    def __init__(self, match: MatmulGeneric, vector_bytes: int):
        self.match = match
        op = match.op
        self.fill = zero_fill_before(match)  # found before the prologue goes between them
        self.a, self.b_in, self.c = op.operands
        self.maps = [attr.data for attr in op.get_indexing_maps()]
        k_then_j = (AffineExpr.dimension(match.k), AffineExpr.dimension(match.j))
        self.b_transposed = self.maps[1].results[-2:] != k_then_j
        self.element = op.body.block.args[2].type
        # Index constants, sizes and scratch buffers go before the nest (they dominate it).
        self.prologue = Builder(InsertPoint.before(op))
        self.builder = self.prologue
        self.constants: dict[int, SSAValue] = {}
        self.static: dict[SSAValue, int] = {}
        self.tiles = tile_sizes(
            self.element, static_extent(op, match.i), static_extent(op, match.j), vector_bytes
        )
        self.m, self.n, self.k = (self._extent(d) for d in (match.i, match.j, match.k))
        if self.static.get(self.k, 0) == 0:  # K may be 0: no depth block would store into C
            self.fill = None

    # --- index arithmetic (folded when both sides are constants) ---------------------------
    def const(self, value: int) -> SSAValue:
        if value not in self.constants:
            constant = index_constant(self.prologue, value)
            constant.name_hint = f"c{value}"
            self.constants[value] = constant
            self.static[constant] = value
        return self.constants[value]

    def _fold(
        self,
        op_type: Callable[[SSAValue, SSAValue], Operation],
        py,
        lhs: SSAValue,
        rhs: SSAValue,
    ) -> SSAValue:
        if lhs in self.static and rhs in self.static:
            return self.const(py(self.static[lhs], self.static[rhs]))
        return self.builder.insert(op_type(lhs, rhs)).results[0]

    def add(self, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
        if self.static.get(rhs) == 0:
            return lhs
        if self.static.get(lhs) == 0:
            return rhs
        return self._fold(arith.AddiOp, lambda a, b: a + b, lhs, rhs)

    def sub(self, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
        return self._fold(arith.SubiOp, lambda a, b: a - b, lhs, rhs)

    def mul(self, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
        return self._fold(arith.MuliOp, lambda a, b: a * b, lhs, rhs)

    def min(self, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
        return self._fold(arith.MinUIOp, min, lhs, rhs)

    def ceil_div(self, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
        return self._fold(arith.CeilDivUIOp, ceil_div, lhs, rhs)

    def block_extent(self, size: SSAValue, start: SSAValue, block: int) -> SSAValue:
        """min(size - start, block): the extent of the block at `start`."""
        if self.static.get(size, block + 1) <= block:  # one block covers the whole dim
            return size
        return self.min(self.sub(size, start), self.const(block))

    # --- sizes --------------------------------------------------------------------------
    def _extent(self, dim: int | None) -> SSAValue:
        """Loop `dim`'s trip count as an index value (from C's shape, or A's/B's for k)."""
        static = static_extent(self.match.op, dim)
        if static != DYNAMIC_INDEX:
            return self.const(static)
        assert dim is not None
        for operand, map_ in zip(self.match.op.operands, self.maps, strict=True):
            for position, expr in enumerate(map_.results):
                if expr == AffineExpr.dimension(dim):
                    dim_op = memref.DimOp(operand, self.const(position))
                    return self.prologue.insert(dim_op).result
        raise AssertionError(f"no operand walks loop d{dim}")

    def named(self, value: SSAValue, name: str) -> SSAValue:
        """`value`, printed as `%name` when it is an op result of this nest (for reading)."""
        if value not in self.static and not isinstance(value.owner, Block):
            value.name_hint = name
        return value

    # --- loops and memory ---------------------------------------------------------------
    @contextmanager
    def loop(
        self, upper: SSAValue, name: str, step: SSAValue | None = None, parallel: bool = False
    ) -> Iterator[SSAValue]:
        """`scf.for %name = 0 to upper step step`; the with-block builds its body. A loop
        known to run exactly once is not emitted: its body sees index 0. `parallel` marks
        it `tj.parallel` (its iterations write disjoint tiles of C; `parallelize`)."""
        step = step or self.const(1)
        if 0 < self.static.get(upper, 0) <= self.static.get(step, 0):
            yield self.const(0)
            return
        block = Block(arg_types=[IndexType()])
        block.args[0].name_hint = name
        outer, self.builder = self.builder, Builder(InsertPoint.at_end(block))
        yield block.args[0]
        self.builder.insert(scf.YieldOp())
        self.builder = outer
        loop = scf.ForOp(self.const(0), upper, step, [], block)
        if parallel:
            loop.attributes[PARALLEL_LOOP_ATTR] = UnitAttr()
        self.builder.insert(loop)

    @contextmanager
    def branch(self, block: Block) -> Iterator[None]:
        outer, self.builder = self.builder, Builder(InsertPoint.at_end(block))
        yield
        self.builder.insert(scf.YieldOp())
        self.builder = outer

    def load(self, buffer: SSAValue, indices: Sequence[SSAValue]) -> SSAValue:
        return self.builder.insert(memref.LoadOp.get(buffer, indices)).res

    def store(self, value: SSAValue, buffer: SSAValue, indices: Sequence[SSAValue]) -> None:
        self.builder.insert(memref.StoreOp.get(value, buffer, indices))

    def operand_indices(self, operand: int, ivs: dict[int, SSAValue]) -> list[SSAValue]:
        """Operand `operand`'s map applied to `ivs` (loop dim -> value); `0` -> index 0."""
        return [
            ivs[expr.position] if isinstance(expr, AffineDimExpr) else self.const(0)
            for expr in self.maps[operand].results
        ]

    def scratch(self, shape: Sequence[int]) -> SSAValue:
        """A static scratch buffer of `element`s on the stack. Used only inside the nest, it
        is private to each thread's piece of an outlined loop (`parallelize`)."""
        alloca = upstream_memref.AllocaOp.get(self.element, 64, shape)
        return self.prologue.insert(alloca).memref

    # --- the nest -----------------------------------------------------------------------
    def emit(self) -> None:
        t = self.tiles
        for value in sorted({0, 1, t.mr, t.nr, t.kc, t.mc, t.cw}):  # in one place, in order
            self.const(value)
        self.acc = self.named(self.scratch([t.mr, t.nr]), "acc")
        self.edge = self.named(self.scratch([t.mr, t.nr]), "edge") if self._has_edges() else None
        self.packed = self.named(self.scratch(self._panel_shape()), "packed")
        self.m_last, self.n_last = self.sub(self.m, self.const(1)), self.sub(self.n, self.const(1))
        self.zero = self.named(scalar.constant(self.prologue, 0, self.element), "zero")
        self.batch_loops({}, 0)
        Rewriter.erase_op(self.match.op)
        if self.fill is not None:  # the first depth block's stores set every element of C
            Rewriter.erase_op(self.fill)

    def _panel_shape(self) -> list[int]:
        """[CW/NR, min(K, KC), NR] (KC when K is dynamic): at most PANEL_BYTES."""
        t = self.tiles
        depth = self.static.get(self.k, t.kc)
        return [t.cw // t.nr, min(depth, t.kc), t.nr]

    def _has_edges(self) -> bool:
        """Whether some micro-tile may stick out of C (M or N not known multiples)."""
        m, n = self.static.get(self.m), self.static.get(self.n)
        return m is None or n is None or m % self.tiles.mr != 0 or n % self.tiles.nr != 0

    def batch_loops(self, ivs: dict[int, SSAValue], dim: int) -> None:
        if dim == self.match.batch:
            self.column_chunks(ivs)
            return
        # Each batch writes its own slice of C (C's map is the parallel dims in order).
        with self.loop(self._extent(dim), f"b{dim}", parallel=True) as iv:
            self.batch_loops({**ivs, dim: iv}, dim + 1)

    def column_chunks(self, ivs: dict[int, SSAValue]) -> None:
        t = self.tiles
        chunks = self.ceil_div(self.n, self.const(t.cw))
        # Chunks, row blocks and micro-panels all write disjoint tiles of C; the packed
        # panel is written per chunk and only read below it; %acc and %edge are per-tile
        # scratch. `parallelize` splits whichever of these loops shares out best.
        with self.loop(chunks, "jt", parallel=True) as jt:
            jc = self.named(self.mul(jt, self.const(t.cw)), "jc")
            if t.cw == t.nr or self.static.get(self.n, 1) % t.cw == 0:  # no partial panels
                panels = self.const(t.cw // t.nr)
            else:
                panels = self.ceil_div(self.block_extent(self.n, jc, t.cw), self.const(t.nr))
            with self.loop(self.k, "pc", self.const(t.kc)) as pc:
                kc = self.block_extent(self.k, pc, t.kc)
                self.pack_b(ivs, jc, pc, kc, panels)
                with self.loop(self.m, "ic", self.const(t.mc), parallel=True) as ic:
                    mc = self.block_extent(self.m, ic, t.mc)
                    with self.loop(panels, "jb", parallel=True) as jb:
                        j0 = self.named(self.add(jc, self.mul(jb, self.const(t.nr))), "j0")
                        with self.loop(mc, "ir", self.const(t.mr)) as ir:
                            i0 = self.named(self.add(ic, ir), "i0")
                            tile = Tile(ivs, i0, j0, jb, pc, kc)
                            self.micro_kernel(tile)
                            self.store_tile(tile)

    def pack_b(
        self, ivs: dict[int, SSAValue], jc: SSAValue, pc: SSAValue, kc: SSAValue,
        panels: SSAValue,
    ) -> None:  # fmt: skip
        """packed[jb, k, j] = B[pc + k, min(jc + jb*NR + j, N - 1)], walking B along its
        rows: j innermost, or k when B is read transposed (B[j, k], the rows of `m.T`)."""
        nr = self.const(self.tiles.nr)
        with self.loop(panels, "jb") as jb:
            start = self.add(jc, self.mul(jb, nr))
            inner = self.loop(kc, "k"), self.loop(nr, "j")
            with inner[self.b_transposed] as first, inner[not self.b_transposed] as second:
                k, j = (second, first) if self.b_transposed else (first, second)
                depth = self.add(pc, k)
                column = self.named(self.min(self.add(start, j), self.n_last), "col")
                read = {**ivs, self.match.k: depth, self.match.j: column}
                value = self.load(self.b_in, self.operand_indices(1, read))
                self.store(value, self.packed, [jb, k, j])

    def micro_kernel(self, tile: Tile) -> None:
        """acc = 0; acc[r, j] += A[min(i0 + r, M - 1), pc + k] * packed[jb, k, j]."""
        t = self.tiles
        self.fill_acc()
        with self.loop(tile.kc, "k") as k:
            read = {**tile.ivs, self.match.k: self.add(tile.pc, k)}
            with self.loop(self.const(t.mr), "r") as r:
                if self.match.i is not None:
                    row = self.min(self.add(tile.i0, r), self.m_last)
                    read[self.match.i] = self.named(row, "row")
                x = self.named(self.load(self.a, self.operand_indices(0, read)), "x")
                with self.loop(self.const(t.nr), "j") as j:
                    y = self.load(self.packed, [tile.jb, k, j])
                    acc = self.load(self.acc, [r, j])
                    self.store(self.multiply_add(x, y, acc), self.acc, [r, j])

    def fill_acc(self) -> None:
        t = self.tiles
        with self.loop(self.const(t.mr), "r") as r, self.loop(self.const(t.nr), "j") as j:
            self.store(self.zero, self.acc, [r, j])

    def multiply_add(self, x: SSAValue, y: SSAValue, acc: SSAValue) -> SSAValue:
        """The body's `acc + x * y`: one `math.fma` for floats, else the body's two ops."""
        if self.match.fused:
            return self.builder.insert(math.FmaOp(x, y, acc)).result
        block_x, block_y, block_acc = self.match.op.body.block.args
        mapper: dict[SSAValue, SSAValue] = {block_x: x, block_y: y, block_acc: acc}
        self.builder.insert(self.match.product.clone(value_mapper=mapper))
        return self.builder.insert(self.match.combiner.clone(value_mapper=mapper)).results[0]

    def combine(self, old: SSAValue, partial: SSAValue) -> SSAValue:
        """`old + partial` with the body's own sum (`addf reassoc`, `addi` or `ori`)."""
        combiner = self.match.combiner.clone()
        combiner.operands = (old, partial)
        return self.builder.insert(combiner).results[0]

    def store_tile(self, tile: Tile) -> None:
        """C[i0 + r, j0 + j] += acc[r, j] for the rows and columns inside C; `=` in the first
        depth block when the zero fill of C was left out (`zero_fill_before`)."""
        t = self.tiles
        first: SSAValue | bool = False  # add to C
        if self.fill is not None and self.static.get(tile.pc) == 0:  # one depth block
            first = True  # store into C
        elif self.fill is not None:
            first = self.builder.insert(arith.CmpiOp(tile.pc, self.const(0), "eq")).result
            first = self.named(first, "first")
        if self.edge is None:
            self.into_c(tile, self.acc, self.const(t.mr), self.const(t.nr), first)
            return
        rows = self.named(self.block_extent(self.m, tile.i0, t.mr), "rows")
        columns = self.named(self.block_extent(self.n, tile.j0, t.nr), "cols")
        full_rows = self.builder.insert(arith.CmpiOp(rows, self.const(t.mr), "eq")).result
        full_columns = self.builder.insert(arith.CmpiOp(columns, self.const(t.nr), "eq")).result
        full = self.named(self.builder.insert(arith.AndIOp(full_rows, full_columns)).result, "full")
        inside, edge = Block(), Block()
        with self.branch(inside):
            self.into_c(tile, self.acc, self.const(t.mr), self.const(t.nr), first)
        with self.branch(edge):
            with self.loop(self.const(t.mr), "r") as r, self.loop(self.const(t.nr), "j") as j:
                self.store(self.load(self.acc, [r, j]), self.edge, [r, j])
            self.into_c(tile, self.edge, rows, columns, first)
        self.builder.insert(scf.IfOp(full, [], Region(inside), Region(edge)))

    def into_c(
        self, tile: Tile, source: SSAValue, rows: SSAValue, columns: SSAValue,
        first: SSAValue | bool,
    ) -> None:  # fmt: skip
        """C[i0 + r, j0 + j] += source[r, j] over `rows` x `columns`; `=` when `first` is
        True, or when it holds at run time (the first depth block of a C whose zero fill was
        left out): a select, not a branch around two copies of this, which had LLVM make a
        second copy of the whole micro-kernel with the tile spilled to the stack (4x slower
        in f64). The first block then reads C's old contents too, and drops them."""
        with self.loop(rows, "r") as r, self.loop(columns, "j") as j:
            at = {**tile.ivs, self.match.j: self.add(tile.j0, j)}
            if self.match.i is not None:
                at[self.match.i] = self.add(tile.i0, r)
            indices = self.operand_indices(2, at)
            total = partial = self.load(source, [r, j])
            if first is not True:
                total = self.combine(self.load(self.c, indices), partial)
            if isinstance(first, SSAValue):
                total = self.builder.insert(arith.SelectOp(first, partial, total)).result
            self.store(total, self.c, indices)


@dataclass(frozen=True)
class Tile:
    """One micro-tile: C[i0:+MR, j0:+NR] from micro-panel `jb` over k in [pc, pc + kc)."""

    ivs: dict[int, SSAValue]
    i0: SSAValue
    j0: SSAValue
    jb: SSAValue
    pc: SSAValue
    kc: SSAValue


def zero_fill_before(match: MatmulGeneric) -> GenericOp | None:
    """The generic right before the product that sets all of C to zero (`bufferize` writes
    one before every product), or None. Its stores are left out when K is static and not 0:
    the first depth block then stores its partial sums instead of adding them to zeros. That
    is exact: the register tile starts at +0, so 0 + partial is partial, bit for bit."""
    fill, c = match.op.prev_op, match.op.outputs[0]
    if not isinstance(fill, GenericOp) or fill.inputs or list(fill.outputs) != [c]:
        return None
    rank = len(shaped_type(c).get_shape())
    if fill.get_indexing_maps().data[0].data != AffineMap.identity(rank):
        return None
    if any(it.data != IteratorType.PARALLEL for it in fill.get_iterator_types()):
        return None
    body = list(fill.body.block.ops)
    value = body[-1].operands[0] if isinstance(body[-1], YieldOp) else None
    constant = value.owner if value is not None else None
    if not isinstance(constant, arith.ConstantOp) or any(
        op not in (constant, body[-1]) for op in body
    ):
        return None
    zero = constant.value
    if isinstance(zero, FloatAttr):
        return fill if zero.value.data == 0 and copysign(1, zero.value.data) > 0 else None
    return fill if isinstance(zero, IntegerAttr) and zero.value.data == 0 else None


def static_extent(op: GenericOp, dim: int | None) -> int:
    """The static trip count of loop `dim` (1 for an absent i), or DYNAMIC_INDEX."""
    if dim is None:
        return 1
    sizes = [
        shaped_type(operand).get_shape()[position]
        for operand, attr in zip(op.operands, op.get_indexing_maps(), strict=True)
        for position, expr in enumerate(attr.data.results)
        if expr == AffineExpr.dimension(dim)
    ]
    static = [s for s in sizes if s != DYNAMIC_INDEX]
    return static[0] if static else DYNAMIC_INDEX


def static_volume(match: MatmulGeneric) -> int | None:
    """M*N*K of one matrix product when all three are static, else None."""
    sizes = [static_extent(match.op, d) for d in (match.i, match.j, match.k)]
    return None if DYNAMIC_INDEX in sizes else prod(sizes)


def tile_matmuls(
    module: ModuleOp, min_volume: int, vector_bytes: int, wide_int_min_volume: int = 0
) -> None:
    """Rewrite every matmul-shaped generic in `module` (see the module docstring)."""
    generics = [op for op in module.walk() if isinstance(op, GenericOp)]
    for op in generics:  # matrix @ vector: dot products of a few rows at a time
        found = match_matvec(op, _match_body)
        if found is not None and not is_small_matvec(found, min_volume):
            tile_matvec(found)
    matches = [m for op in module.walk() if (m := match_matmul(op)) is not None]
    for match in matches:
        volume = static_volume(match)
        least = wide_int_min_volume if _wide_integers(match) else min_volume
        if volume is not None and volume < max(min_volume, least):
            continue
        TiledMatmul(match, vector_bytes).emit()


def _wide_integers(match: MatmulGeneric) -> bool:
    """Integers of 32 bits or more: LLVM vectorizes their register tile along its rows, with
    gathers and scatters of the accumulator (40x30 @ 30x20 int64: 42 us tiled, 1.9 us as the
    plain nest, which it vectorizes along j); the tile's cache blocking pays from ~2**25
    multiply-adds (512**3: 139 ms tiled, 377 ms plain)."""
    element = match.op.body.block.args[2].type
    return isinstance(element, IntegerType) and element.width.data >= 32


@dataclass(frozen=True)
class TileMatmulPass(ModulePass):
    """Tile matmul-shaped linalg.generics into register-blocked, packed scf loop nests."""

    name = "tile-matmul"

    min_volume: int = 4096
    """Static products with fewer multiply-adds (M*N*K) keep the plain generic."""

    wide_int_min_volume: int = 1 << 25
    """The same for products of integers of 32 bits or more (see `_wide_integers`)."""

    target: str = DEFAULT_TARGET
    """Whose vector registers size the register tile: `avx2` (the default: any x86-64 CPU
    with AVX2) or `avx512`. The pass never looks at the CPU: the compiler driver names the
    host's target (`passes/pipeline.py` `default_pipeline`), and a pipeline that names none
    gets the same IR on every machine."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.target not in REGISTER_BYTES:
            raise ValueError(f"tile-matmul: unknown target {self.target!r}; use avx2 or avx512")
        tile_matmuls(
            op, self.min_volume, REGISTER_BYTES[self.target], self.wide_int_min_volume
        )
