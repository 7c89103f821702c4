"""Fork/join for loops `parallelize` outlined: a `func.call` flagged `tj.parallel_work`.

The call `%st = func.call @f__par0(captures..., %lo, %hi) {tj.parallel_work = W}` runs
iterations [lo, hi) of an outlined loop (passes/parallelize.py). It becomes

    if (hi - lo >= max(2, ceil(MIN_PARALLEL_WORK / W)))   // big enough for threads
        st = tracejit_parallel_fork(f__par0__task, &captures, lo, hi)
    else
        st = f__par0(captures..., lo, hi)                 // the plain call: no thread work
    if (st != 0) return st;                               // a bounds check failed inside

so a small call never touches the thread count nor makes a thread. `@f__par0__task(ctx, lo,
hi)` unpacks the captures (pointers, scalars, dynamic dims, stored in a stack struct by the
caller) and calls the outlined function. The fork is one function per module,
`@tracejit_parallel_fork(task, ctx, lo, hi)`, shared by every outlined loop (it calls the
task through its pointer, once per piece): a copy per loop made LLVM optimise ~100 lines of
scaffolding per loop, and inline the loop body into each copy, which made a module with
many parallel loops compile 2-6x slower. The outlined function is `noinline` for the same
reason: the plain call and the task then share one optimised loop body. The fork reads the
thread count T through the global `tracejit_num_threads_ptr` (filled in after loading with
the address of `ir.parallel_contract.THREAD_COUNT`; null means 1). With T > 1 it hands the
loop to the process's thread pool (runtime/thread_pool.py, reached through the global
`tracejit_parallel_pool_ptr`, also filled in by the loader): workers started once, parked
on a futex between calls, which cut [lo, hi) into min(PIECES_PER_THREAD * T, hi - lo)
contiguous pieces taken from a shared counter.

When there is no pool (a platform without one) or another caller holds it (two Python
threads in parallel kernels at once), the fork starts T - 1 threads itself
(`pthread_create`), cuts the loop the same way and runs pieces too; every thread takes the
next piece from a shared atomic counter until none is left. The forking thread then joins
the threads and returns the status of the first failing piece, if any. A thread that cannot
be created leaves its share to the others. Joining means no thread outlives the call: a
thread started late would otherwise run this module's code after its caller may have freed
it (the pool's workers only run a module's code inside a call, which waits for every piece).

Which thread runs a piece does not change what the piece computes (every iteration is
independent, and a reduction's partials are stored per block,
passes/support/parallel_reductions.py), so results are bit-identical for any T; pieces taken
from a counter rather than one fixed chunk per thread keep a thread the (shared, loaded)
machine runs late from holding the others up for a whole chunk.

Why a pool: starting a thread costs 30-60 us on this (virtual) machine, so per-call threads
made a 1M-element `x * 2 + 1` slower on two threads than on one (93 us against 81 us) and
cost a 512x512 matmul a tenth of its two-thread time; the pool's wake-up costs a few
microseconds when the workers are still spinning from the last call. The pthread functions
are in glibc's libc (2.34+), which MCJIT and the linked shared libraries
(codegen/shared_library.py) both resolve. The outlined code never calls into Python.
"""

from __future__ import annotations

from collections.abc import Sequence

from llvmlite import ir
from xdsl.dialects import func
from xdsl.dialects.builtin import IntegerAttr, MemRefType
from xdsl.ir import SSAValue

from tracejit.codegen.context import FunctionEmitter, ModuleState, count_loop
from tracejit.codegen.llvm_types import I32, I64, PTR, TASK_TYPE, call_address, opaque
from tracejit.ir.parallel_contract import (
    MAX_THREADS,
    MIN_PARALLEL_WORK,
    OUTLINED_CALL_ATTR,
    PARALLEL_WORK_ATTR,
    PIECES_PER_THREAD,
    POOL_BUSY,
    POOL_GLOBAL,
    THREADS_GLOBAL,
)

TASK_SUFFIX = "__task"

ONE = ir.Constant(I64, 1)
ZERO32 = ir.Constant(I32, 0)


def is_parallel_call(op: func.CallOp) -> bool:
    return PARALLEL_WORK_ATTR in op.attributes


def emit_parallel_call(fx: FunctionEmitter, op: func.CallOp, callee: ir.Function) -> ir.Value:
    """The call, forked over threads when big enough (see the module docstring)."""
    captures, dims = _flat_arguments(fx, op.arguments[:-2])
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
    callee.attributes.add("noinline")  # one copy of the loop: see the module docstring
    direct = b.call(callee, [*captures, lo, hi, *dims])
    b.branch(joined)

    b.position_at_end(forked)
    fields = [*captures, *dims]
    context = fx.entry_alloca(ir.LiteralStructType([v.type for v in fields] or [I64]), 8)
    for position, value in enumerate(fields):
        b.store(value, _field(b, context, position, [v.type for v in fields]))
    task = _task(fx.state, callee, len(captures), [v.type for v in fields])
    threaded = b.call(_parallel_for(fx.state), [task, context, lo, hi])
    b.branch(joined)

    b.position_at_end(joined)
    status = b.phi(I32)
    status.add_incoming(direct, plain)
    status.add_incoming(threaded, forked)
    return_on_failure(fx, status)
    return status


def is_outlined_call(op: func.CallOp) -> bool:
    return OUTLINED_CALL_ATTR in op.attributes


def emit_outlined_call(fx: FunctionEmitter, op: func.CallOp, callee: ir.Function) -> ir.Value:
    """A loop nest outlined because it repeats (passes/dedupe_loop_nests.py): the plain call
    of its one `noinline` copy, returning a failed bounds check's status at once."""
    captures, dims = _flat_arguments(fx, op.arguments[:-2])
    lo, hi = fx.get(op.arguments[-2]), fx.get(op.arguments[-1])
    callee.attributes.add("noinline")  # inlined, the copies would be compiled again
    status = fx.b.call(callee, [*captures, lo, hi, *dims])
    return_on_failure(fx, status)
    return status


def _flat_arguments(
    fx: FunctionEmitter, values: Sequence[SSAValue]
) -> tuple[list[ir.Value], list[ir.Value]]:
    """The call's leading pointers and scalars, and the memrefs' dynamic dims after them."""
    captures: list[ir.Value] = []
    dims: list[ir.Value] = []
    for value in values:
        if isinstance(value.type, MemRefType):
            flat = fx.flatten(value)
            captures.append(flat[0])
            dims.extend(flat[1:])
        else:
            captures.append(fx.get(value))
    return captures, dims


def return_on_failure(fx: FunctionEmitter, status: ir.Value) -> None:
    """Return `status` from the calling function when a bounds check failed inside."""
    if fx.fn.function_type.return_type == I32:
        with fx.b.if_then(fx.b.icmp_signed("!=", status, ZERO32), likely=False):
            fx.b.ret(status)


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


# The state one fork shares with its threads, in the forking thread's frame (it outlives
# them: every thread is joined before the fork returns).
_NEXT, _TASK, _CTX, _LO, _N, _PIECES, _STATUS = range(7)
MAX_PIECES = MAX_THREADS * PIECES_PER_THREAD
_STATE = ir.LiteralStructType([I64, PTR, PTR, I64, I64, I64, ir.ArrayType(I32, MAX_PIECES)])
_POOL_RUN_TYPE = ir.FunctionType(I32, [PTR, PTR, I64, I64, I64])  # thread_pool.RUN

FORK = "tracejit_parallel_fork"
PIECES = "tracejit_parallel_pieces"
WORKER = "tracejit_parallel_worker"


def _field_of(b: ir.IRBuilder, state: ir.Value, field: int) -> ir.Value:
    return b.gep(state, [ir.Constant(I32, 0), ir.Constant(I32, field)], inbounds=True,
                 source_etype=_STATE)  # fmt: skip


def _status_slot(b: ir.IRBuilder, state: ir.Value, piece: ir.Value) -> ir.Value:
    return b.gep(state, [ir.Constant(I32, 0), ir.Constant(I32, _STATUS), piece], inbounds=True,
                 source_etype=_STATE)  # fmt: skip


def _call_task(b: ir.IRBuilder, task: ir.Value, args: list[ir.Value]) -> ir.Value:
    return call_address(b, task, TASK_TYPE, args)


def _run_pieces(module: ModuleState) -> ir.Function:
    """`void @tracejit_parallel_pieces(ptr state)`: take the next piece from the shared
    counter and run it, until none is left; each piece's status goes to its own slot."""

    def build(fn: ir.Function) -> None:
        state = fn.args[0]
        b = ir.IRBuilder(fn.append_basic_block("entry"))
        task = b.load(_field_of(b, state, _TASK), typ=PTR)
        context = b.load(_field_of(b, state, _CTX), typ=PTR)
        lo, n, pieces = (b.load(_field_of(b, state, f), typ=I64) for f in (_LO, _N, _PIECES))
        head, body, done = (fn.append_basic_block(name) for name in ("next", "run", "done"))
        b.branch(head)
        b.position_at_end(head)
        piece = b.atomic_rmw("add", _field_of(b, state, _NEXT), ONE, "monotonic")
        b.cbranch(b.icmp_signed("<", piece, pieces), body, done)
        b.position_at_end(body)
        start, stop = (_bound(b, lo, n, p, pieces) for p in (piece, b.add(piece, ONE)))
        b.store(_call_task(b, task, [context, start, stop]), _status_slot(b, state, piece))
        b.branch(head)
        b.position_at_end(done)
        b.ret_void()

    return module.helper(PIECES, build, ir.VoidType(), [PTR])


def _worker(module: ModuleState) -> ir.Function:
    """`ptr @tracejit_parallel_worker(ptr state)`: a thread's start routine."""
    pieces = _run_pieces(module)

    def build(fn: ir.Function) -> None:
        b = ir.IRBuilder(fn.append_basic_block("entry"))
        b.call(pieces, [fn.args[0]])
        b.ret(ir.Constant(PTR, None))

    return module.helper(WORKER, build, PTR, [PTR])


def _bound(b: ir.IRBuilder, lo: ir.Value, n: ir.Value, piece: ir.Value,
           pieces: ir.Value) -> ir.Value:  # fmt: skip
    """lo + n * piece / pieces: where a piece starts."""
    return b.add(lo, b.udiv(b.mul(n, piece), pieces))


def _parallel_for(module: ModuleState) -> ir.Function:
    """`i32 @tracejit_parallel_fork(ptr task, ptr ctx, i64 lo, i64 hi)` (see the module
    docstring)."""
    create = module.declare("pthread_create", I32, [PTR, PTR, PTR, PTR])
    join = module.declare("pthread_join", I32, [I64, PTR])
    threads = module.loader_filled(THREADS_GLOBAL)
    pool = module.loader_filled(POOL_GLOBAL)
    worker, run_pieces = _worker(module), _run_pieces(module)

    def build(fn: ir.Function) -> None:
        task, context, lo, hi = fn.args
        b = ir.IRBuilder(fn.append_basic_block("entry"))
        state = opaque(b.alloca(_STATE))
        id_table = ir.ArrayType(I64, MAX_THREADS)  # pthread_t, or 0 for no thread
        ids = opaque(b.alloca(id_table))
        n = b.sub(hi, lo)
        count = _chunk_count(b, fn, threads, n)
        serial, forking = fn.append_basic_block("serial"), fn.append_basic_block("forking")
        b.cbranch(b.icmp_signed("<=", count, ONE), serial, forking)
        b.position_at_end(serial)
        b.ret(_call_task(b, task, [context, lo, hi]))

        b.position_at_end(forking)
        _run_on_pool(b, pool, [task, context, lo, hi, count])
        pieces = b.mul(count, ir.Constant(I64, PIECES_PER_THREAD))
        pieces = b.select(b.icmp_signed("<", n, pieces), n, pieces)
        for field, value in ((_NEXT, ir.Constant(I64, 0)), (_TASK, task), (_CTX, context),
                             (_LO, lo), (_N, n), (_PIECES, pieces)):  # fmt: skip
            b.store(value, _field_of(b, state, field))

        def thread_id(t: ir.Value) -> ir.Value:
            return b.gep(ids, [ir.Constant(I32, 0), t], inbounds=True, source_etype=id_table)

        with count_loop(b, fn, ONE, count, "start") as t:
            failed = b.call(create, [thread_id(t), ir.Constant(PTR, None), worker, state])
            with b.if_then(b.icmp_signed("!=", failed, ZERO32), likely=False):
                b.store(ir.Constant(I64, 0), thread_id(t))  # the others do its share
        b.call(run_pieces, [state])
        with count_loop(b, fn, ONE, count, "join") as t:
            started = b.load(thread_id(t), typ=I64)
            with b.if_then(b.icmp_unsigned("!=", started, ir.Constant(I64, 0))):
                b.call(join, [started, ir.Constant(PTR, None)])
        status = opaque(b.alloca(I32))
        b.store(ZERO32, status)
        with count_loop(b, fn, ir.Constant(I64, 0), pieces, "statuses") as piece:
            so_far = b.load(status, typ=I32)  # the failure in the first piece wins
            found = b.load(_status_slot(b, state, piece), typ=I32)
            b.store(b.select(b.icmp_signed("!=", so_far, ZERO32), so_far, found), status)
        b.ret(b.load(status, typ=I32))

    return module.helper(FORK, build, I32, [PTR, PTR, I64, I64])


def _run_on_pool(b: ir.IRBuilder, pool: ir.GlobalVariable, args: list[ir.Value]) -> None:
    """Return what the process's pool returns for the loop, unless there is no pool or it
    is busy with another caller's loop (then the code after this starts threads itself)."""
    run = b.load_atomic(pool, "monotonic", 8, typ=PTR)  # filled in while kernels may run
    with b.if_then(b.icmp_unsigned("!=", run, ir.Constant(PTR, None)), likely=True):
        status = call_address(b, run, _POOL_RUN_TYPE, args)
        with b.if_then(b.icmp_signed("!=", status, ir.Constant(I32, POOL_BUSY)), likely=True):
            b.ret(status)


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
