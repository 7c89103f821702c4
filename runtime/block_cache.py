"""Reused memory for kernel temporaries: the heap blocks compiled code allocates and frees.

A kernel's temporary of tens of megabytes (a `cumsum` read twice, a sort's scratch) came
from `aligned_alloc`, which glibc serves with `mmap` and gives back with `munmap`: every
call page-faulted it in again (9,766 faults and ~4 ms per 40 MB here). Kernels now allocate
through this cache, a small LLVM module compiled once per process, like the thread pool
(thread_pool.py), and reached through two globals the loader fills in (ALLOC_GLOBAL and
FREE_GLOBAL; while they are null a kernel calls `aligned_alloc` and `free` itself):

    ptr  @tracejit_block_alloc(i64 size, i64 align)   `size` bytes (a multiple of `align`)
    void @tracejit_block_free(ptr block, i64 size)      `size` at most the alloc's

Blocks of at least CACHED_BYTES_MIN are rounded up to a size bucket (1/8 of a power of two,
as the output pool rounds them, runtime/buffer_pool.py): every such block is allocated at
its bucket's size, so a `free` that files it under a bucket (at most the one its alloc asked
for) keeps a block big enough for that bucket. `free` keeps it in one of SLOTS slots, up to
the bound `tj.config.set_buffer_cache_bytes` sets (ir/memory_contract.py); a steady loop of
calls then meets its blocks again. Smaller blocks go straight to the C heap. A block with an
alignment over 64 is never taken from the slots (they hold no record of alignment), only
allocated at its bucket's size. A block `free` gets that is smaller than its bucket (one a
kernel allocated with `aligned_alloc` before the cache was bound, runtime_binding.py) goes to
the C heap (`malloc_usable_size` tells). A block the cache hands out came from `aligned_alloc`, so a
kernel output the caller adopts and later frees with `free` (frontend/api/kernel_outputs.py) is
fine. A spin lock guards the slots (kernels run in several Python threads at once; the
pool's workers never allocate). `tracejit_block_clear` frees every kept block
(`tj.config.clear_buffer_cache`).

After `os.fork()` the child forgets the kept blocks (leaving them, unreachable, in its copy
of the heap) and unlocks: a parent thread could have held the lock mid-update.
"""

from __future__ import annotations

import ctypes
import functools
import os

from llvmlite import ir

from tracejit.codegen.context import count_loop
from tracejit.codegen.llvm_types import I1, I32, I64, PTR, opaque
from tracejit.ir.memory_contract import (  # noqa: F401 (the globals' names, re-exported)
    ALLOC_GLOBAL,
    CACHED_BYTES_MIN,
    FREE_GLOBAL,
)
from tracejit.runtime.settings import CACHE_BYTES, CLEARS

ALLOC, FREE, CLEAR = "tracejit_block_alloc", "tracejit_block_free", "tracejit_block_clear"
SLOTS = 32
"""Blocks kept at most (each slot holds one block of any bucket)."""
ALIGNMENT = 64


@functools.cache
def _compiled() -> dict[str, int]:
    from tracejit.codegen.jit import compile_llvm_ir

    jit = compile_llvm_ir(str(_CacheModule().module), {})
    _KEEP.append(jit)
    limit = jit.global_address("tracejit_block_limit")
    ctypes.c_void_p.from_address(limit).value = ctypes.addressof(CACHE_BYTES)
    names = {name: jit.function_address(name) for name in (ALLOC, FREE, CLEAR)}
    names.update({f"@{g}": jit.global_address(f"tracejit_block_{g}") for g in ("lock", "cached")})
    names["@sizes"] = jit.global_address("tracejit_block_sizes")
    CLEARS.append(ctypes.CFUNCTYPE(None)(names[CLEAR]))
    return names


_KEEP: list[object] = []


def addresses() -> tuple[int, int]:
    """(alloc, free): the cache's functions, compiled the first time (by runtime_binding's
    one background compile)."""
    names = _compiled()
    return names[ALLOC], names[FREE]


def kept_bytes() -> int:
    """Bytes of freed blocks the cache keeps now (0 before any kernel ran)."""
    if not _compiled.cache_info().currsize:
        return 0
    return ctypes.c_int64.from_address(_compiled()["@cached"]).value


def _forget_in_child() -> None:
    if not _compiled.cache_info().currsize:
        return
    names = _compiled()
    ctypes.memset(names["@sizes"], 0, 8 * SLOTS)
    ctypes.c_int64.from_address(names["@cached"]).value = 0
    ctypes.c_int32.from_address(names["@lock"]).value = 0


os.register_at_fork(after_in_child=_forget_in_child)


class _CacheModule:
    """Builds the cache's LLVM module (see the module docstring)."""

    def __init__(self) -> None:
        self.module = ir.Module(name="tracejit_block_cache")
        self.sizes_type = ir.ArrayType(I64, SLOTS)
        self.blocks_type = ir.ArrayType(PTR, SLOTS)
        self.lock = self._global("lock", I32)
        self.cached = self._global("cached", I64)
        self.limit = self._global("limit", PTR)
        self.sizes = self._global("sizes", self.sizes_type)
        self.blocks = self._global("blocks", self.blocks_type)
        void = ir.VoidType()
        self.aligned_alloc = ir.Function(self.module, ir.FunctionType(PTR, [I64, I64]),
                                         "aligned_alloc")  # fmt: skip
        self.free = ir.Function(self.module, ir.FunctionType(void, [PTR]), "free")
        self.usable_size = ir.Function(self.module, ir.FunctionType(I64, [PTR]),
                                       "malloc_usable_size")  # fmt: skip
        self.ctlz = ir.Function(self.module, ir.FunctionType(I64, [I64, I1]), "llvm.ctlz.i64")
        self._build_alloc()
        self._build_free()
        self._build_clear()

    def _global(self, name: str, typ: ir.Type) -> ir.GlobalVariable:
        variable = opaque(ir.GlobalVariable(self.module, typ, f"tracejit_block_{name}"))
        variable.initializer = ir.Constant(typ, None)
        return variable

    def _slot(self, b: ir.IRBuilder, table: ir.GlobalVariable, index: ir.Value) -> ir.Value:
        return b.gep(table, [ir.Constant(I32, 0), index], inbounds=True,
                     source_etype=table.value_type)  # fmt: skip

    @staticmethod
    def _each_slot(fn: ir.Function, b: ir.IRBuilder, name: str) -> count_loop:
        """`for (slot = 0; slot < SLOTS; ++slot)` (a with-statement)."""
        return count_loop(b, fn, ir.Constant(I64, 0), ir.Constant(I64, SLOTS), name)

    def _acquire(self, fn: ir.Function, b: ir.IRBuilder) -> None:
        spin, taken = fn.append_basic_block("lock"), fn.append_basic_block("locked")
        b.branch(spin)
        b.position_at_end(spin)
        result = b.cmpxchg(self.lock, ir.Constant(I32, 0), ir.Constant(I32, 1),
                           "acquire", "monotonic")  # fmt: skip
        b.cbranch(b.extract_value(result, 1), taken, spin)
        b.position_at_end(taken)

    def _release(self, b: ir.IRBuilder) -> None:
        b.atomic_rmw("xchg", self.lock, ir.Constant(I32, 0), "release")

    def _bucket(self, b: ir.IRBuilder, size: ir.Value) -> ir.Value:
        """`size` rounded up to a multiple of max(2^(bits(size - 1) - 4), 64)."""
        bits = b.sub(ir.Constant(I64, 64),
                     b.call(self.ctlz, [b.sub(size, ir.Constant(I64, 1)), ir.Constant(I1, 0)]))
        shift = b.sub(bits, ir.Constant(I64, 4))
        shift = b.select(b.icmp_signed("<", shift, ir.Constant(I64, 6)), ir.Constant(I64, 6),
                         shift)  # fmt: skip
        mask = b.sub(b.shl(ir.Constant(I64, 1), shift), ir.Constant(I64, 1))
        return b.and_(b.add(size, mask), b.not_(mask))

    def _small(self, b: ir.IRBuilder, size: ir.Value) -> ir.Value:
        return b.icmp_unsigned("<", size, ir.Constant(I64, CACHED_BYTES_MIN))

    def _build_alloc(self) -> None:
        fn = ir.Function(self.module, ir.FunctionType(PTR, [I64, I64]), ALLOC)
        size, align = fn.args
        b = ir.IRBuilder(fn.append_basic_block("entry"))
        with b.if_then(self._small(b, size)):
            b.ret(b.call(self.aligned_alloc, [align, size]))
        bucket = self._bucket(b, size)
        with b.if_then(b.icmp_unsigned(">", align, ir.Constant(I64, ALIGNMENT))):
            b.ret(b.call(self.aligned_alloc, [align, bucket]))
        self._acquire(fn, b)
        with self._each_slot(fn, b, "find") as slot:
            held = self._slot(b, self.sizes, slot)
            with b.if_then(b.icmp_unsigned("==", b.load(held, typ=I64), bucket)):
                block = b.load(self._slot(b, self.blocks, slot), typ=PTR)
                b.store(ir.Constant(I64, 0), held)
                b.store(b.sub(b.load(self.cached, typ=I64), bucket), self.cached)
                self._release(b)
                b.ret(block)
        self._release(b)
        b.ret(b.call(self.aligned_alloc, [ir.Constant(I64, ALIGNMENT), bucket]))

    def _build_free(self) -> None:
        fn = ir.Function(self.module, ir.FunctionType(ir.VoidType(), [PTR, I64]), FREE)
        block, size = fn.args
        b = ir.IRBuilder(fn.append_basic_block("entry"))
        with b.if_then(b.or_(self._small(b, size),
                             b.icmp_unsigned("==", block, ir.Constant(PTR, None)))):  # fmt: skip
            b.call(self.free, [block])
            b.ret_void()
        bucket = self._bucket(b, size)
        usable = b.call(self.usable_size, [block])
        with b.if_then(b.icmp_unsigned("<", usable, bucket)):  # not one of ours: too small
            b.call(self.free, [block])
            b.ret_void()
        self._acquire(fn, b)
        kept = b.add(b.load(self.cached, typ=I64), bucket)
        bound = b.load(b.load(self.limit, typ=PTR), typ=I64)
        with b.if_then(b.icmp_signed("<=", kept, bound)), self._each_slot(fn, b, "keep") as slot:
            held = self._slot(b, self.sizes, slot)
            with b.if_then(b.icmp_unsigned("==", b.load(held, typ=I64), ir.Constant(I64, 0))):
                b.store(block, self._slot(b, self.blocks, slot))
                b.store(bucket, held)
                b.store(kept, self.cached)
                self._release(b)
                b.ret_void()
        self._release(b)
        b.call(self.free, [block])
        b.ret_void()

    def _build_clear(self) -> None:
        fn = ir.Function(self.module, ir.FunctionType(ir.VoidType(), []), CLEAR)
        b = ir.IRBuilder(fn.append_basic_block("entry"))
        self._acquire(fn, b)
        with self._each_slot(fn, b, "clear") as slot:
            held = self._slot(b, self.sizes, slot)
            with b.if_then(b.icmp_unsigned("!=", b.load(held, typ=I64), ir.Constant(I64, 0))):
                b.call(self.free, [b.load(self._slot(b, self.blocks, slot), typ=PTR)])
                b.store(ir.Constant(I64, 0), held)
        b.store(ir.Constant(I64, 0), self.cached)
        self._release(b)
        b.ret_void()
