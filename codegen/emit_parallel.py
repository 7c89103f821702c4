"""Fork/join for loops `parallelize` outlined: a `func.call` flagged `tj.parallel_work`.

The call `%st = func.call @f__par0(captures..., %lo, %hi) {tj.parallel_work = W}` runs
iterations [lo, hi) of an outlined loop (passes/parallelize.py). It becomes

    if (hi - lo >= max(2, ceil(MIN_PARALLEL_WORK / W)))   // big enough for threads
        st = f__par0__task__fork(&captures, lo, hi)
    else
        st = f__par0(captures..., lo, hi)                 // the plain call: no thread work
    if (st != 0) return st;                               // a bounds check failed inside

so a small call never touches the thread count nor makes a thread. `@f__par0__task(ctx, lo,
hi)` unpacks the captures (pointers, scalars, dynamic dims, stored in a stack struct by the
caller) and calls the outlined function. Its `__fork` (with its thread start routine
`__worker`; both call the task directly: no function pointers but the one pthread needs) reads
the thread count T through the global `tracejit_num_threads_ptr` (filled in after loading
with the address of `ir.parallel_contract.THREAD_COUNT`; null means 1), cuts [lo, hi) into
min(T, hi - lo, MAX_THREADS) contiguous chunks, starts `pthread_create` threads on chunks
1.., runs chunk 0 itself, joins them, and returns the first non-zero status in chunk order.
A thread that cannot be created has its chunk run by the caller instead.

Why threads made per call rather than a persistent pool: creating and joining one costs
~20-50 us, negligible next to the MIN_PARALLEL_WORK a call must have; there is no pool to
start, size, park or shut down, nothing survives a call, and concurrent callers (several
Python threads in big kernels, the GIL released) never share state. `pthread_create` and
`pthread_join` are in glibc's libc (2.34+), which MCJIT and the linked shared libraries
(codegen/shared_library.py) both resolve. The outlined code never calls into Python.
"""

from __future__ import annotations

from llvmlite import ir
from xdsl.dialects import func
from xdsl.dialects.builtin import IntegerAttr, MemRefType

from tracejit.codegen.context import FunctionEmitter, ModuleState
from tracejit.codegen.llvm_types import I32, I64, PTR, opaque
from tracejit.ir.parallel_contract import (
    MAX_THREADS,
    MIN_PARALLEL_WORK,
    PARALLEL_WORK_ATTR,
    THREADS_GLOBAL,
)

TASK_SUFFIX = "__task"
FORK_SUFFIX = "__fork"
WORKER_SUFFIX = "__worker"

# A thread's record: piece counter, ctx, lo, n, pieces (shared, read only but the counter);
# its first failure: status and piece; whether it was created (0/1); its pthread_t.
_SLOT = ir.LiteralStructType([PTR, PTR, I64, I64, I64, I32, I32, I64, I64])
ONE = ir.Constant(I64, 1)
ZERO32 = ir.Constant(I32, 0)

PIECES_PER_THREAD = 4
"""Iterations are cut into this many pieces per thread, taken from a shared counter: on a
loaded machine a thread that runs late takes fewer (a fixed split would wait for it)."""


def is_parallel_call(op: func.CallOp) -> bool:
    return PARALLEL_WORK_ATTR in op.attributes


def emit_parallel_call(fx: FunctionEmitter, op: func.CallOp, callee: ir.Function) -> ir.Value:
    """The call, forked over threads when big enough (see the module docstring)."""
    captures: list[ir.Value] = []
    dims: list[ir.Value] = []
    for value in op.arguments[:-2]:
        if isinstance(value.type, MemRefType):
            flat = fx.flatten(value)
            captures.append(flat[0])
            dims.extend(flat[1:])
        else:
            captures.append(fx.get(value))
    lo, hi = fx.get(op.arguments[-2]), fx.get(op.arguments[-1])
    work = op.attributes[PARALLEL_WORK_ATTR]
    assert isinstance(work, IntegerAttr)
    min_trips = max(2, -(-MIN_PARALLEL_WORK // max(1, work.value.data)))
    b = fx.b
    big = b.icmp_signed(">=", b.sub(hi, lo), ir.Constant(I64, min_trips))
    forked, plain = fx.fn.append_basic_block("forked"), fx.fn.append_basic_block("plain")
    joined = fx.fn.append_basic_block("joined")
    b.cbranch(big, forked, plain)

    b.position_at_end(plain)
    direct = b.call(callee, [*captures, lo, hi, *dims])
    b.branch(joined)

    b.position_at_end(forked)
    fields = [*captures, *dims]
    context = fx.entry_alloca(ir.LiteralStructType([v.type for v in fields] or [I64]), 8)
    for position, value in enumerate(fields):
        b.store(value, _field(b, context, position, [v.type for v in fields]))
    task = _task(fx.state, callee, len(captures), [v.type for v in fields])
    threaded = b.call(_parallel_for(fx.state, task), [context, lo, hi])
    b.branch(joined)

    b.position_at_end(joined)
    status = b.phi(I32)
    status.add_incoming(direct, plain)
    status.add_incoming(threaded, forked)
    if fx.fn.function_type.return_type == I32:
        with b.if_then(b.icmp_signed("!=", status, ir.Constant(I32, 0)), likely=False):
            b.ret(status)
    return status


def _field(b: ir.IRBuilder, struct: ir.Value, position: int, types: list[ir.Type]) -> ir.Value:
    return b.gep(struct, [ir.Constant(I32, 0), ir.Constant(I32, position)], inbounds=True,
                 source_etype=ir.LiteralStructType(types or [I64]))  # fmt: skip


def _task(state: ModuleState, callee: ir.Function, count: int, types: list[ir.Type]):
    """`i32 @<callee>__task(ptr ctx, i64 lo, i64 hi)`: unpack the captures, call `callee`."""

    def build(fn: ir.Function) -> None:
        context, lo, hi = fn.args
        b = ir.IRBuilder(fn.append_basic_block("entry"))
        values = [b.load(_field(b, context, i, types), typ=t) for i, t in enumerate(types)]
        b.ret(b.call(callee, [*values[:count], lo, hi, *values[count:]]))

    return state.helper(callee.name + TASK_SUFFIX, build, I32, [PTR, I64, I64])


def _threads_global(state: ModuleState) -> ir.GlobalVariable:
    """`ptr @tracejit_num_threads_ptr`, exported so the loader can fill it in (jit.py)."""
    existing = state.module.globals.get(THREADS_GLOBAL)
    if existing is not None:
        return existing
    variable = ir.GlobalVariable(state.module, PTR, THREADS_GLOBAL)
    variable.initializer = ir.Constant(PTR, None)
    return variable


def _worker(state: ModuleState, task: ir.Function) -> ir.Function:
    """`ptr @<task>__worker(ptr slot)`: a thread's start routine (the forking thread runs it
    too): takes the next piece from the shared counter and runs it, until none is left; keeps
    its first failure (status and piece: its pieces come in increasing order)."""

    def build(fn: ir.Function) -> None:
        slot = fn.args[0]
        b = ir.IRBuilder(fn.append_basic_block("entry"))
        counter, context = (b.load(_slot(b, slot, i), typ=PTR) for i in (0, 1))
        lo, n, pieces = (b.load(_slot(b, slot, i), typ=I64) for i in (2, 3, 4))
        b.store(ir.Constant(I32, 0), _slot(b, slot, 5))
        head, body, done = (fn.append_basic_block(name) for name in ("next", "run", "done"))
        b.branch(head)
        b.position_at_end(head)
        piece = b.atomic_rmw("add", counter, ir.Constant(I64, 1), "monotonic")
        b.cbranch(b.icmp_signed("<", piece, pieces), body, done)
        b.position_at_end(body)
        start, stop = (_bound(b, lo, n, p, pieces) for p in (piece, b.add(piece, ONE)))
        status = b.call(task, [context, start, stop])
        first = b.and_(b.icmp_signed("!=", status, ZERO32),
                       b.icmp_signed("==", b.load(_slot(b, slot, 5), typ=I32), ZERO32))
        with b.if_then(first, likely=False):
            b.store(status, _slot(b, slot, 5))
            b.store(piece, _slot(b, slot, 8))
        b.branch(head)
        b.position_at_end(done)
        b.ret(ir.Constant(PTR, None))

    return state.helper(task.name + WORKER_SUFFIX, build, PTR, [PTR])


def _bound(b: ir.IRBuilder, lo: ir.Value, n: ir.Value, piece: ir.Value,
           pieces: ir.Value) -> ir.Value:  # fmt: skip
    """lo + n * piece / pieces: where a piece starts (the partition depends on n only)."""
    return b.add(lo, b.udiv(b.mul(n, piece), pieces))


def _slot(b: ir.IRBuilder, slot: ir.Value, field: int) -> ir.Value:
    return b.gep(slot, [ir.Constant(I32, 0), ir.Constant(I32, field)], inbounds=True,
                 source_etype=_SLOT)  # fmt: skip


def _parallel_for(state: ModuleState, task: ir.Function) -> ir.Function:
    """`i32 @<task>__fork(ptr ctx, i64 lo, i64 hi)` (see the module docstring)."""
    create = state.declare("pthread_create", I32, [PTR, PTR, PTR, PTR])
    join = state.declare("pthread_join", I32, [I64, PTR])
    threads = _threads_global(state)
    worker = _worker(state, task)

    def build(fn: ir.Function) -> None:
        context, lo, hi = fn.args
        b = ir.IRBuilder(fn.append_basic_block("entry"))
        table = ir.ArrayType(_SLOT, MAX_THREADS)
        slots = opaque(b.alloca(table))
        counter = opaque(b.alloca(I64))
        n = b.sub(hi, lo)
        count = _chunk_count(b, fn, threads, n)
        serial, forking = fn.append_basic_block("serial"), fn.append_basic_block("forking")
        b.cbranch(b.icmp_signed("<=", count, ONE), serial, forking)
        b.position_at_end(serial)
        b.ret(b.call(task, [context, lo, hi]))

        b.position_at_end(forking)
        pieces = b.mul(count, ir.Constant(I64, PIECES_PER_THREAD))
        pieces = b.select(b.icmp_signed("<", n, pieces), n, pieces)
        b.store(ir.Constant(I64, 0), counter)

        def slot(t: ir.Value) -> ir.Value:
            return b.gep(slots, [ir.Constant(I32, 0), t], inbounds=True,
                         source_etype=table)  # fmt: skip

        with _count_loop(b, fn, ir.Constant(I64, 0), count, "fill") as t:
            for field, value in enumerate([counter, context, lo, n, pieces]):
                b.store(value, _slot(b, slot(t), field))
        with _count_loop(b, fn, ONE, count, "start") as t:
            s = slot(t)  # a thread that cannot be made leaves its share to the others
            failed = b.call(create, [_slot(b, s, 7), ir.Constant(PTR, None), worker, s])
            b.store(b.zext(b.icmp_signed("==", failed, ZERO32), I32), _slot(b, s, 6))
        b.call(worker, [slot(ir.Constant(I64, 0))])
        status, first_piece = opaque(b.alloca(I32)), opaque(b.alloca(I64))
        b.store(ZERO32, status)
        b.store(ir.Constant(I64, -1), first_piece)  # as unsigned: after every piece
        with _count_loop(b, fn, ir.Constant(I64, 0), count, "join") as t:
            s = slot(t)
            started = b.icmp_signed("!=", b.load(_slot(b, s, 6), typ=I32), ZERO32)
            with b.if_then(b.and_(b.icmp_signed("!=", t, ir.Constant(I64, 0)), started)):
                b.call(join, [b.load(_slot(b, s, 7), typ=I64), ir.Constant(PTR, None)])
            found = b.load(_slot(b, s, 5), typ=I32)  # the failure in the first piece wins
            piece = b.load(_slot(b, s, 8), typ=I64)
            earlier = b.icmp_unsigned("<", piece, b.load(first_piece, typ=I64))
            with b.if_then(b.and_(b.icmp_signed("!=", found, ZERO32), earlier)):
                b.store(found, status)
                b.store(piece, first_piece)
        b.ret(b.load(status, typ=I32))

    return state.helper(task.name + FORK_SUFFIX, build, I32, [PTR, I64, I64])


def _chunk_count(b: ir.IRBuilder, fn: ir.Function, threads: ir.GlobalVariable,
                 n: ir.Value) -> ir.Value:  # fmt: skip
    """min(thread count (1 while the global is null), n, MAX_THREADS), as i64."""
    pointer = b.load(threads, typ=PTR)
    known = b.icmp_unsigned("!=", pointer, ir.Constant(PTR, None))
    read, after = fn.append_basic_block("read_count"), fn.append_basic_block("count")
    here = b.block
    b.cbranch(known, read, after)
    b.position_at_end(read)
    value = b.sext(b.load(pointer, typ=I32), I64)
    b.branch(after)
    b.position_at_end(after)
    count = b.phi(I64)
    count.add_incoming(ir.Constant(I64, 1), here)
    count.add_incoming(value, read)
    for limit in (n, ir.Constant(I64, MAX_THREADS)):
        count = b.select(b.icmp_signed("<", limit, count), limit, count)
    return count


class _count_loop:  # noqa: N801  (used as a `with` statement, like IRBuilder.if_then)
    """`for (t = start; t < stop; ++t)`: the with-block emits the body at `b`."""

    def __init__(self, b: ir.IRBuilder, fn: ir.Function, start: ir.Value, stop: ir.Value,
                 name: str) -> None:  # fmt: skip
        self.b, self.fn, self.start, self.stop, self.name = b, fn, start, stop, name

    def __enter__(self) -> ir.Value:
        b = self.b
        self.before = b.block
        self.head = self.fn.append_basic_block(self.name + "_head")
        self.body = self.fn.append_basic_block(self.name + "_body")
        self.exit = self.fn.append_basic_block(self.name + "_exit")
        b.branch(self.head)
        b.position_at_end(self.head)
        self.t = b.phi(I64)
        self.t.add_incoming(self.start, self.before)
        b.cbranch(b.icmp_signed("<", self.t, self.stop), self.body, self.exit)
        b.position_at_end(self.body)
        return self.t

    def __exit__(self, *exc: object) -> None:
        b = self.b
        self.t.add_incoming(b.add(self.t, ir.Constant(I64, 1)), b.block)
        b.branch(self.head)
        b.position_at_end(self.exit)
