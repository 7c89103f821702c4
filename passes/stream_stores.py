"""stream-stores: write outputs bigger than the cache with non-temporal stores, a line at a time.

Expects loop-level IR (after `lower-to-loops`, `expand-math` and `simplify-loops`), before
`parallelize`. Produces the same IR in which each innermost loop that writes a big buffer
element by element computes `LANES` elements into a stack tile, then writes the tile with
one `vector.store nontemporal = true`:

    scf.for %i = %lb to %ub step 1 {tj.parallel} {        %n = (%ub - %lb) / LANES
      %v = <body>                                          scf.for %t = 0 to %n {tj.parallel} {
      memref.store %v, %out[%j, %i]          =>              %tile = memref.alloca {alignment = 64}
    }                                                        %base = %lb + %t * LANES
                                                             scf.for %l = 0 to LANES {
                                                               %v = <body at %base + %l>
                                                               memref.store %v, %tile[%l]
                                                             }
                                                             %line = vector.load %tile[0]
                                                             vector.store %line, %out[%j, %base]
                                                               nontemporal = true
                                                           }
                                                           scf.for %i = %lb + %n * LANES to %ub
                                                             { the original loop: the tail }

Why: an ordinary store first reads its cache line from memory (to merge the other bytes
of the line), so writing an output costs twice its size in memory traffic, and it evicts
data the next kernel may want. A non-temporal store of a whole line goes to memory without
that read. It pays only when the output does not fit in the cache anyway (`min-bytes`:
the compiler driver gives the host's last-level cache size, see `StreamStoresPass`): a
smaller output is better left in the cache for whoever reads it next.
x**2 + 3*y - tanh(x)*0.5 on 10M float32 on one Zen 5 core: 2.75 -> 2.27 ms.

LLVM's loop vectoriser cannot do this itself: it refuses a `!nontemporal` store it cannot
prove aligned, and a scalar store's alignment is its element's. The tile loop is still
LLVM's to vectorise (LANES iterations: one vector iteration, or straight-line code that
the SLP vectoriser packs), and the tile itself lives in registers once LLVM has forwarded
the stores into the load.

The code generator (codegen/emit_vector.py) writes a line non-temporally only at a 64-byte
aligned address (a check per line), else with an ordinary vector store, and fences the
non-temporal stores of a function before it returns, so that a thread that joins it sees
them. Which stores qualify: directly in the loop body, one per buffer, at the loop's
induction variable in the last dim (the other indices defined outside the loop), into a
buffer of static shape and identity layout with at least `min-bytes` bytes of integers or
floats of 8 to 64 bits that nothing else in the loop reads or writes (through any view).
A loop with results (a reduction), a step other than 1 or fewer than 64 iterations (by its
constant bounds) is left alone.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import (
    AnyFloat,
    BoolAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    NoneAttr,
    VectorType,
)
from xdsl.ir import Attribute, Block, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint

from tracejit.ir import upstream_memref, upstream_vector
from tracejit.ir.memory_contract import CACHE_LINE_BYTES
from tracejit.ir.parallel_contract import PARALLEL_LOOP_ATTR
from tracejit.passes.parallelize import defined_inside, trip_count
from tracejit.passes.support.build import add, mul
from tracejit.passes.support.indices import index_constant, static_index

LINE_BYTES = CACHE_LINE_BYTES
"""The smallest element type fills one cache line per tile."""

_VIEWS = (memref.CastOp, memref.SubviewOp, memref.ReinterpretCastOp, memref.CollapseShapeOp,
          memref.ExpandShapeOp)  # fmt: skip


def _element_bytes(element: Attribute) -> int | None:
    """The size of an int or float element that a vector can hold, else None."""
    if isinstance(element, IntegerType | AnyFloat):
        width = element.bitwidth
        if width in (8, 16, 32, 64):
            return width // 8
    return None


def _root(buffer: SSAValue) -> SSAValue:
    """The buffer `buffer` is a view of (itself when it is not a view)."""
    while isinstance(buffer.owner, _VIEWS):
        buffer = buffer.owner.operands[0]
    return buffer


def _stored_bytes(store: memref.StoreOp) -> int:
    """The element size of a store `_big_enough` accepted."""
    return _element_bytes(store.value.type) or 1


def _big_enough(store: memref.StoreOp, min_bytes: int) -> bool:
    mtype = store.memref.type
    if not isinstance(mtype, MemRefType) or not isinstance(mtype.layout, NoneAttr):
        return False
    size = _element_bytes(mtype.element_type)
    shape = mtype.get_shape()
    return size is not None and all(d >= 0 for d in shape) and math.prod(shape) * size >= min_bytes


def streamable_stores(loop: scf.ForOp, min_bytes: int) -> list[memref.StoreOp]:
    """The stores of innermost `loop` that can become line stores (module docstring)."""
    if loop.results or static_index(loop.step) != 1:
        return []
    trips = trip_count(loop)
    if trips is not None and trips < LINE_BYTES:  # short rows: not one line worth a clone
        return []
    if any(isinstance(op, scf.ForOp) for op in loop.body.walk()):
        return []
    iv = loop.body.block.args[0]
    chosen = []
    for store in loop.body.block.ops:
        if not isinstance(store, memref.StoreOp) or not _big_enough(store, min_bytes):
            continue
        *others, last = store.indices
        if last is not iv or any(defined_inside(i, loop) for i in others):
            continue
        root = _root(store.memref)
        users = [op for op in loop.body.walk() if op is not store
                 and any(_root(v) is root for v in op.operands if isinstance(v.type, MemRefType))]
        if not users:
            chosen.append(store)
    return chosen


def stream(loop: scf.ForOp, stores: Sequence[memref.StoreOp]) -> None:
    """Rewrite `loop` as the line loop and tail of the module docstring."""
    lanes = LINE_BYTES // min(_stored_bytes(store) for store in stores)
    b = Builder(InsertPoint.before(loop))
    lines, tail_start = _split(b, loop.lb, loop.ub, lanes)
    zero, one = index_constant(b, 0), index_constant(b, 1)
    line_loop = b.insert(scf.ForOp(zero, lines, one, [], _line_body(loop, stores, lanes)))
    line_loop.attributes.update(loop.attributes)
    loop.operands = (tail_start, loop.ub, loop.step)  # the loop runs the tail: < `lanes` times
    loop.attributes.pop(PARALLEL_LOOP_ATTR, None)


def _split(b: Builder, lb: SSAValue, ub: SSAValue, lanes: int) -> tuple[SSAValue, SSAValue]:
    """The number of whole lines in [lb, ub) and where the rest starts (constants when the
    bounds are: `parallelize` reads static trip counts)."""
    low, high = static_index(lb), static_index(ub)
    if low is not None and high is not None:
        whole = max(0, high - low) // lanes
        return index_constant(b, whole), index_constant(b, low + whole * lanes)
    width, zero = index_constant(b, lanes), index_constant(b, 0)
    length: SSAValue = b.insert(arith.SubiOp(ub, lb)).result
    length = b.insert(arith.MaxSIOp(length, zero)).result  # ub < lb: no iteration, no line
    count = b.insert(arith.DivUIOp(length, width)).result
    return count, add(b, lb, mul(b, count, width))


def _line_body(loop: scf.ForOp, stores: Sequence[memref.StoreOp], lanes: int) -> Region:
    """The body of the line loop: the tiles, the tile loop, and one line store per tile."""
    block = Block(arg_types=[loop.lb.type])
    block.args[0].name_hint = "line"
    b = Builder(InsertPoint.at_end(block))
    tiles: dict[memref.StoreOp, SSAValue] = {
        store: b.insert(upstream_memref.AllocaOp.get(store.value.type, LINE_BYTES, [lanes])).memref
        for store in stores
    }
    for tile in tiles.values():
        tile.name_hint = "tile"
    width = index_constant(b, lanes)
    base = mul(b, block.args[0], width)
    if static_index(loop.lb) != 0:
        base = add(b, loop.lb, base)
    base.name_hint = "base"
    zero, one = index_constant(b, 0), index_constant(b, 1)
    b.insert(scf.ForOp(zero, width, one, [], _tile_body(loop, tiles, base)))
    for store, tile in tiles.items():
        line_type = VectorType(store.value.type, [lanes])
        line = b.insert(upstream_vector.LoadOp(tile, [zero], line_type)).result
        *others, _ = store.indices
        streamed = BoolAttr.from_bool(True)
        b.insert(upstream_vector.StoreOp(line, store.memref, [*others, base], streamed))
    b.insert(scf.YieldOp())
    return Region(block)


def _tile_body(loop: scf.ForOp, tiles: dict[memref.StoreOp, SSAValue], base: SSAValue) -> Region:
    """A clone of `loop`'s body at element `base + l`, its line stores going to the tiles."""
    block = Block(arg_types=[loop.lb.type])
    b = Builder(InsertPoint.at_end(block))
    lane = block.args[0]
    lane.name_hint = "lane"
    element = add(b, base, lane)
    mapping: dict[SSAValue, SSAValue] = {loop.body.block.args[0]: element}
    for op in loop.body.block.ops:
        if op in tiles:
            assert isinstance(op, memref.StoreOp)
            value = mapping.get(op.value, op.value)
            b.insert(memref.StoreOp.get(value, tiles[op], [lane]))
        else:
            b.insert(op.clone(value_mapper=mapping))
    return Region(block)


def stream_stores(module: ModuleOp, min_bytes: int) -> None:
    loops = [op for op in module.walk() if isinstance(op, scf.ForOp)]
    for loop in loops:
        stores = streamable_stores(loop, min_bytes)
        if stores:
            stream(loop, stores)


DEFAULT_MIN_BYTES = 32 << 20
"""`min-bytes` when the pipeline names none: a server CPU's last-level cache (32 MiB)."""


@dataclass(frozen=True)
class StreamStoresPass(ModulePass):
    """Write outputs bigger than the cache a line at a time, with non-temporal stores."""

    name = "stream-stores"

    min_bytes: int = DEFAULT_MIN_BYTES
    """Buffers of fewer bytes keep ordinary stores (0: stream every store that qualifies).
    The pass never looks at the CPU: the compiler driver gives the host's last-level cache
    size (`passes/pipeline.py` `default_pipeline`), and a pipeline that names none gets
    DEFAULT_MIN_BYTES, the same IR on every machine."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.min_bytes < 0:
            raise ValueError(f"stream-stores: min-bytes must be >= 0, got {self.min_bytes}")
        stream_stores(op, self.min_bytes)
