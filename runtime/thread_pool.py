"""The process's pool of worker threads, which parallel loops run on (emit_parallel.py).

Starting a thread costs 30-60 us on a virtual machine (measured here: `x * 2 + 1` on 1M
float32 took 81 us on one thread and 93 us on two, when every call started its thread), so
the threads are started once and then park on a futex between calls. The pool is a small
LLVM module of its own, compiled once per process and never freed (a worker runs its code
while it waits), whose run function every compiled module reaches through a global the
loader fills in (POOL_GLOBAL, like the thread count). Without it (a platform with no futex
here, or a module loaded elsewhere) the fork starts threads per call, as before.

    i32 @tracejit_pool_run(ptr task, ptr ctx, i64 lo, i64 hi, i64 threads)

runs task(ctx, piece) over [lo, hi) cut into min(PIECES_PER_THREAD * threads, hi - lo)
pieces on the calling thread and `threads - 1` workers, and returns the first failing
piece's status (0 when all succeed), or POOL_BUSY when another call holds the pool (a
second Python thread in a parallel kernel): that caller then starts its own threads.

One call at a time (the `busy` flag):
  1. start workers up to threads - 1 (each `pthread_detach`ed, parked on `generation`);
  2. write the job (task, ctx, lo, n), zero `done`, then publish: `claim` = (g << 32) |
     (pieces << 16) | 0 and `generation` = g, and wake the workers (FUTEX_WAKE);
  3. take pieces like the workers: a piece is taken by a compare-and-swap that adds 1 to
     `claim`, only while its generation is g and its count below its pieces. A worker that
     wakes late for an older job finds another generation in `claim` and takes nothing, and
     a taken piece proves the job is not over (the caller waits for every piece), so the
     job's fields it reads next are this job's;
  4. wait until `done` (pieces finished, counted by whoever ran them) reaches the pieces:
     spin briefly, then FUTEX_WAIT on `done`; the last piece's runner wakes it.
Workers spin for a while (SPIN_ROUNDS) before sleeping, so back-to-back calls find them
awake. Results do not depend on which thread runs a piece (emit_parallel.py's docstring).

After `os.fork()` the child has no workers: `_forget_workers_in_child` (os.register_at_fork)
sets the child's worker count and busy flag to 0, and its first parallel call starts new
workers. A worker never touches Python.
"""

from __future__ import annotations

import ctypes
import functools
import os
import platform
import sys
from collections.abc import Callable

from llvmlite import ir

from tracejit.codegen.llvm_types import I32, I64, PTR, TASK_TYPE, call_address, opaque
from tracejit.ir.parallel_contract import (  # noqa: F401 (re-exported)
    MAX_THREADS,
    PIECES_PER_THREAD,
    POOL_BUSY,
    POOL_GLOBAL,
)

RUN = "tracejit_pool_run"
WORKER = "tracejit_pool_worker"
MAX_PIECES = MAX_THREADS * PIECES_PER_THREAD
SPIN_ROUNDS = 4_000
"""Checks (with a CPU pause between) before a thread sleeps on a futex: ~100 us of spinning
here, so a worker is still awake when calls come back to back (a futex wake-up costs more),
and an idle process stops using CPU soon after its last call."""

FUTEX_WAIT_PRIVATE, FUTEX_WAKE_PRIVATE = 128, 129
SYS_FUTEX = {"x86_64": 202, "aarch64": 98}

MAX_BACKOFF = 256
"""Calls run on the calling thread alone, at most, after a call in which the caller waited
for the workers longer than it worked itself (see `_build_run`)."""
CLOCK_MONOTONIC = 1  # Linux's clockid_t

# The pool's state: module globals, named for reading the IR.
_I32_STATE = ("busy", "generation", "workers", "done", "active", "backoff", "penalty")
_I64_STATE = ("claim", "lo", "n")
_PTR_STATE = ("task", "ctx")


@functools.cache
def pool_address() -> int | None:
    """The address of `tracejit_pool_run`, compiling the pool the first time; None where
    there is no pool (not Linux on x86-64 or AArch64). The first call is runtime_binding's
    one background compile."""
    machine = platform.machine()
    if not sys.platform.startswith("linux") or machine not in SYS_FUTEX:
        return None
    from tracejit.codegen.jit import compile_llvm_ir

    module = _PoolModule(SYS_FUTEX[machine], pause=machine == "x86_64").module
    jit = compile_llvm_ir(str(module), {})
    _KEEP.append(jit)  # its code runs in the workers for the life of the process
    for name in _I32_STATE:
        _STATE[name] = ctypes.c_int32.from_address(jit.global_address(f"tracejit_pool_{name}"))
    return jit.function_address(RUN)


_KEEP: list[object] = []
_STATE: dict[str, ctypes.c_int32] = {}


def backoff_state() -> tuple[int, int]:
    """(calls left to run on the calling thread alone, current penalty); see `_build_run`."""
    if "backoff" not in _STATE:
        return 0, 0
    return _STATE["backoff"].value, _STATE["penalty"].value


def started_workers() -> int:
    """How many worker threads the pool has started in this process (0 before any
    parallel call, or where there is no pool)."""
    return _STATE["workers"].value if "workers" in _STATE else 0


def _forget_workers_in_child() -> None:
    """The child of a fork has only the forking thread: no workers, no other caller
    holding the pool (a parent's call in another thread never returns here), and nothing
    learned about workers it never had (the parent's backoff after late workers on a busy
    machine kept the child's first calls on one thread)."""
    for name in ("workers", "busy", "backoff", "penalty"):
        if name in _STATE:
            _STATE[name].value = 0


os.register_at_fork(after_in_child=_forget_workers_in_child)


class _PoolModule:
    """Builds the pool's LLVM module (see the module docstring)."""

    def __init__(self, sys_futex: int, pause: bool) -> None:
        self.module = ir.Module(name="tracejit_pool")
        self.sys_futex = ir.Constant(I64, sys_futex)
        self.state: dict[str, ir.GlobalVariable] = {}
        for names, typ in ((_I32_STATE, I32), (_I64_STATE, I64), (_PTR_STATE, PTR)):
            for name in names:
                self.state[name] = self._global(name, typ, ir.Constant(typ, None))
        statuses = ir.ArrayType(I32, MAX_PIECES)
        self.statuses = self._global("statuses", statuses, ir.Constant(statuses, None))
        syscall_type = ir.FunctionType(I64, [I64], var_arg=True)
        self.syscall = ir.Function(self.module, syscall_type, "syscall")
        self.create = ir.Function(
            self.module, ir.FunctionType(I32, [PTR, PTR, PTR, PTR]), "pthread_create"
        )
        self.detach = ir.Function(self.module, ir.FunctionType(I32, [I64]), "pthread_detach")
        self.clock_gettime = ir.Function(
            self.module, ir.FunctionType(I32, [I32, PTR]), "clock_gettime"
        )
        self.pause = None
        if pause:
            self.pause = ir.Function(
                self.module, ir.FunctionType(ir.VoidType(), []), "llvm.x86.sse2.pause"
            )
        self.run_pieces = self._build_run_pieces()
        self.worker = self._build_worker()
        self._build_run()

    def _global(self, name: str, typ: ir.Type, value: ir.Constant) -> ir.GlobalVariable:
        variable = opaque(ir.GlobalVariable(self.module, typ, f"tracejit_pool_{name}"))
        variable.initializer = value
        variable.align = 64  # one cache line each: the hot counters do not share lines
        return variable

    # --- small pieces --------------------------------------------------------------------
    def load(self, b: ir.IRBuilder, name: str) -> ir.Value:
        variable = self.state[name]
        typ = variable.value_type
        return b.load_atomic(variable, "seq_cst", 4 if typ == I32 else 8, typ=typ)

    def store(self, b: ir.IRBuilder, value: ir.Value, name: str) -> None:
        """A sequentially consistent store, written as an exchange (what x86 emits for one;
        llvmlite's `store_atomic` wants typed pointers)."""
        b.atomic_rmw("xchg", self.state[name], value, "seq_cst")

    def futex(self, b: ir.IRBuilder, word: str, operation: int, value: ir.Value) -> None:
        """syscall(SYS_futex, &word, operation, value, NULL): wait while word == value, or
        wake up to `value` waiters."""
        args = [self.state[word], ir.Constant(I32, operation), value, ir.Constant(PTR, None)]
        b.call(self.syscall, [self.sys_futex, *args])

    def spin_pause(self, b: ir.IRBuilder) -> None:
        if self.pause is not None:
            b.call(self.pause, [])

    def wait_while_equal(self, fn: ir.Function, b: ir.IRBuilder, word: str,
                         seen: ir.Value, name: str) -> ir.Value:  # fmt: skip
        """Spin, then sleep, until `word` differs from `seen`; returns its new value."""
        return self.spin_until(fn, b, word, lambda now: b.icmp_unsigned("!=", now, seen), name)

    def spin_until(self, fn: ir.Function, b: ir.IRBuilder, word: str,
                   finished: Callable[[ir.Value], ir.Value], name: str) -> ir.Value:  # fmt: skip
        """Read `word` until `finished(value)` holds: SPIN_ROUNDS times with a CPU pause in
        between, then asleep on the futex while the word keeps the value last read.
        Returns the value that finished."""
        entry = b.block
        head, spin, sleep, out = (fn.append_basic_block(f"{name}_{s}")
                                  for s in ("check", "spin", "sleep", "done"))  # fmt: skip
        b.branch(head)
        b.position_at_end(head)
        rounds = b.phi(I64)
        rounds.add_incoming(ir.Constant(I64, 0), entry)
        now = self.load(b, word)
        b.cbranch(finished(now), out, spin)
        b.position_at_end(spin)
        self.spin_pause(b)
        more = b.add(rounds, ir.Constant(I64, 1))
        rounds.add_incoming(more, spin)
        b.cbranch(b.icmp_unsigned("<", more, ir.Constant(I64, SPIN_ROUNDS)), head, sleep)
        b.position_at_end(sleep)
        self.futex(b, word, FUTEX_WAIT_PRIVATE, now)  # returns at once if the word changed
        rounds.add_incoming(more, sleep)
        b.branch(head)
        b.position_at_end(out)
        return now

    # --- the functions -------------------------------------------------------------------
    def _build_run_pieces(self) -> ir.Function:
        """`void run_pieces(i32 g)`: take and run pieces of generation g until none is left."""
        fn = ir.Function(self.module, ir.FunctionType(ir.VoidType(), [I32]), "run_pieces")
        fn.linkage = "internal"
        g = fn.args[0]
        b = ir.IRBuilder(fn.append_basic_block("entry"))
        names = ("claim", "check", "take", "run", "out")
        head, check, take, run, out = (fn.append_basic_block(n) for n in names)
        b.branch(head)
        b.position_at_end(head)
        claim = self.load(b, "claim")
        same = b.icmp_unsigned("==", b.trunc(b.lshr(claim, ir.Constant(I64, 32)), I32), g)
        b.cbranch(same, check, out)
        b.position_at_end(check)
        piece = b.and_(claim, ir.Constant(I64, 0xFFFF))
        pieces = b.and_(b.lshr(claim, ir.Constant(I64, 16)), ir.Constant(I64, 0xFFFF))
        b.cbranch(b.icmp_unsigned("<", piece, pieces), take, out)
        b.position_at_end(take)
        swapped = b.cmpxchg(self.state["claim"], claim, b.add(claim, ir.Constant(I64, 1)),
                            "seq_cst", "seq_cst")  # fmt: skip
        b.cbranch(b.extract_value(swapped, 1), run, head)
        b.position_at_end(run)
        task = self.load(b, "task")
        ctx, lo, n = (self.load(b, name) for name in ("ctx", "lo", "n"))
        start, stop = (b.add(lo, b.udiv(b.mul(n, p), pieces))
                       for p in (piece, b.add(piece, ir.Constant(I64, 1))))  # fmt: skip
        status = call_address(b, task, TASK_TYPE, [ctx, start, stop])
        slot = b.gep(self.statuses, [ir.Constant(I32, 0), piece], inbounds=True,
                     source_etype=self.statuses.value_type)  # fmt: skip
        b.store(status, slot)
        finished = b.add(b.atomic_rmw("add", self.state["done"], ir.Constant(I32, 1), "seq_cst"),
                         ir.Constant(I32, 1))  # fmt: skip
        last = b.icmp_unsigned("==", b.zext(finished, I64), pieces)
        with b.if_then(last):
            self.futex(b, "done", FUTEX_WAKE_PRIVATE, ir.Constant(I32, 1))
        b.branch(head)
        b.position_at_end(out)
        b.ret_void()
        return fn

    def _build_worker(self) -> ir.Function:
        """`ptr worker(ptr arg)`: arg = index | (generation at start << 32). Waits for each
        new generation and, when its index is below the job's `active`, takes pieces."""
        fn = ir.Function(self.module, ir.FunctionType(PTR, [PTR]), WORKER)
        fn.linkage = "internal"
        entry = fn.append_basic_block("entry")
        b = ir.IRBuilder(entry)
        arg = b.ptrtoint(fn.args[0], I64)
        index = b.trunc(arg, I32)
        first_seen = b.trunc(b.lshr(arg, ir.Constant(I64, 32)), I32)
        loop = fn.append_basic_block("loop")
        b.branch(loop)
        b.position_at_end(loop)
        seen = b.phi(I32)
        seen.add_incoming(first_seen, entry)
        g = self.wait_while_equal(fn, b, "generation", seen, "wait")
        with b.if_then(b.icmp_unsigned("<", index, self.load(b, "active"))):
            b.call(self.run_pieces, [g])
        seen.add_incoming(g, b.block)
        b.branch(loop)
        return fn

    def _build_run(self) -> None:
        fn = ir.Function(self.module, ir.FunctionType(I32, [PTR, PTR, I64, I64, I64]), RUN)
        task, ctx, lo, hi, threads = fn.args
        b = ir.IRBuilder(fn.append_basic_block("entry"))
        self.thread_id = b.alloca(I64)  # pthread_create's output, before any loop
        taken = b.cmpxchg(self.state["busy"], ir.Constant(I32, 0), ir.Constant(I32, 1),
                          "seq_cst", "seq_cst")  # fmt: skip
        mine, busy = fn.append_basic_block("mine"), fn.append_basic_block("busy")
        b.cbranch(b.extract_value(taken, 1), mine, busy)
        b.position_at_end(busy)
        b.ret(ir.Constant(I32, POOL_BUSY))

        b.position_at_end(mine)
        self.timespec = b.alloca(ir.ArrayType(I64, 2))  # clock_gettime's output
        alone, shared = fn.append_basic_block("alone"), fn.append_basic_block("shared")
        backoff = self.load(b, "backoff")
        b.cbranch(b.icmp_signed(">", backoff, ir.Constant(I32, 0)), alone, shared)
        b.position_at_end(alone)  # backing off: the whole range here, the pool free for others
        self.store(b, b.sub(backoff, ir.Constant(I32, 1)), "backoff")
        self.store(b, ir.Constant(I32, 0), "busy")
        b.ret(call_address(b, task, TASK_TYPE, [ctx, lo, hi]))

        b.position_at_end(shared)
        started_at = self.now(b)
        generation = self.load(b, "generation")
        started = self._start_workers(fn, b, b.sub(b.trunc(threads, I32), ir.Constant(I32, 1)),
                                      generation)  # fmt: skip
        n = b.sub(hi, lo)
        pieces = b.mul(threads, ir.Constant(I64, PIECES_PER_THREAD))
        pieces = b.select(b.icmp_signed("<", n, pieces), n, pieces)
        for name, value in (("task", task), ("ctx", ctx), ("lo", lo), ("n", n),
                            ("done", ir.Constant(I32, 0)), ("active", started)):  # fmt: skip
            self.store(b, value, name)
        g = b.add(generation, ir.Constant(I32, 1))
        claim = b.or_(b.shl(b.zext(g, I64), ir.Constant(I64, 32)),
                      b.shl(pieces, ir.Constant(I64, 16)))  # fmt: skip
        self.store(b, claim, "claim")
        self.store(b, g, "generation")
        self.futex(b, "generation", FUTEX_WAKE_PRIVATE, ir.Constant(I32, (1 << 31) - 1))
        b.call(self.run_pieces, [g])
        own_done_at = self.now(b)
        self._wait_for_pieces(fn, b, pieces)
        self._back_off_if_late(b, b.sub(own_done_at, started_at), b.sub(self.now(b), own_done_at))
        status = self._first_failure(fn, b, pieces)
        self.store(b, ir.Constant(I32, 0), "busy")
        b.ret(status)

    def now(self, b: ir.IRBuilder) -> ir.Value:
        """CLOCK_MONOTONIC in nanoseconds (a vDSO call, ~20 ns)."""
        b.call(self.clock_gettime, [ir.Constant(I32, CLOCK_MONOTONIC), self.timespec])
        seconds, nanoseconds = (
            b.load(b.gep(self.timespec, [ir.Constant(I32, 0), ir.Constant(I32, i)],
                         inbounds=True, source_etype=self.timespec.allocated_type), typ=I64)
            for i in (0, 1)
        )  # fmt: skip
        return b.add(b.mul(seconds, ir.Constant(I64, 1_000_000_000)), nanoseconds)

    def _back_off_if_late(self, b: ir.IRBuilder, worked: ir.Value, waited: ir.Value) -> None:
        """After a call whose caller, done with its own pieces, waited for the workers longer
        than it worked itself (a worker that claimed a piece was preempted: other processes
        hold the cores), the next `penalty` calls run on the calling thread alone; the
        penalty doubles with each such call (up to MAX_BACKOFF) and halves with each call
        that went well, so a busy machine costs one slow call in MAX_BACKOFF and an idle one
        gets its threads back. On an idle machine the wait is at most about one piece."""
        late = b.icmp_signed(">", waited, worked)
        penalty = self.load(b, "penalty")
        doubled = b.shl(penalty, ir.Constant(I32, 1))
        doubled = b.select(b.icmp_signed("<", doubled, ir.Constant(I32, 1)),
                           ir.Constant(I32, 1), doubled)  # fmt: skip
        doubled = b.select(b.icmp_signed(">", doubled, ir.Constant(I32, MAX_BACKOFF)),
                           ir.Constant(I32, MAX_BACKOFF), doubled)  # fmt: skip
        halved = b.lshr(penalty, ir.Constant(I32, 1))
        penalty = b.select(late, doubled, halved)
        self.store(b, penalty, "penalty")
        self.store(b, b.select(late, penalty, ir.Constant(I32, 0)), "backoff")

    def _start_workers(self, fn: ir.Function, b: ir.IRBuilder, wanted: ir.Value,
                       generation: ir.Value) -> ir.Value:  # fmt: skip
        """Start workers until there are `wanted` (or one fails); returns min(wanted, count)."""
        entry = b.block
        head, start, out = (fn.append_basic_block(n) for n in ("workers", "start", "started"))
        workers = self.load(b, "workers")
        b.branch(head)
        b.position_at_end(head)
        count = b.phi(I32)
        count.add_incoming(workers, entry)
        b.cbranch(b.icmp_signed("<", count, wanted), start, out)
        b.position_at_end(start)
        thread_id = self.thread_id
        arg = b.or_(b.zext(count, I64), b.shl(b.zext(generation, I64), ir.Constant(I64, 32)))
        failed = b.call(self.create, [thread_id, ir.Constant(PTR, None), self.worker,
                                      b.inttoptr(arg, PTR)])  # fmt: skip
        created = fn.append_basic_block("created")
        b.cbranch(b.icmp_signed("!=", failed, ir.Constant(I32, 0)), out, created)
        b.position_at_end(created)
        b.call(self.detach, [b.load(thread_id, typ=I64)])
        more = b.add(count, ir.Constant(I32, 1))
        self.store(b, more, "workers")
        count.add_incoming(more, created)
        b.branch(head)
        b.position_at_end(out)
        result = b.phi(I32)
        result.add_incoming(count, head)
        result.add_incoming(count, start)
        return b.select(b.icmp_signed("<", wanted, result), wanted, result)

    def _wait_for_pieces(self, fn: ir.Function, b: ir.IRBuilder, pieces: ir.Value) -> None:
        """Until `done` == pieces: spin, then FUTEX_WAIT on `done`."""
        self.spin_until(fn, b, "done", lambda done: b.icmp_unsigned("==", b.zext(done, I64),
                                                                    pieces), "join")  # fmt: skip

    def _first_failure(self, fn: ir.Function, b: ir.IRBuilder, pieces: ir.Value) -> ir.Value:
        """The status of the first piece that failed, or 0."""
        entry = b.block
        head, read, out = (fn.append_basic_block(n) for n in ("status", "status_read", "ok"))
        b.branch(head)
        b.position_at_end(head)
        piece = b.phi(I64)
        piece.add_incoming(ir.Constant(I64, 0), entry)
        b.cbranch(b.icmp_unsigned("<", piece, pieces), read, out)
        b.position_at_end(read)
        slot = b.gep(self.statuses, [ir.Constant(I32, 0), piece], inbounds=True,
                     source_etype=self.statuses.value_type)  # fmt: skip
        status = b.load(slot, typ=I32)
        piece.add_incoming(b.add(piece, ir.Constant(I64, 1)), read)
        b.cbranch(b.icmp_signed("!=", status, ir.Constant(I32, 0)), out, head)
        b.position_at_end(out)
        result = b.phi(I32)
        result.add_incoming(ir.Constant(I32, 0), head)
        result.add_incoming(status, read)
        return result
