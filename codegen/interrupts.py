"""Ctrl-C in compiled loops: a flag that SIGINT sets and staged loops poll.

While compiled code runs, Python cannot act on Ctrl-C: its C-level SIGINT handler only notes
the signal, and the Python handler (KeyboardInterrupt) runs when the call returns. So a 10 s
loop ignored Ctrl-C for 10 s, and a loop of 10^13 trips for ever. Here:

* the process has one i32 flag, in a small LLVM module of its own compiled on first use,
  with a C signal handler `tracejit_on_sigint` that sets the flag and then calls the handler
  it replaced (Python's, which notes the signal as before, so the KeyboardInterrupt comes);
* staged loops read the flag (`func.call @tracejit_interrupted`, once per chunk of 1,024
  trips after passes/strip_mine_polls.py, emitted
  inline as a load through the global
  `tracejit_interrupt_flag_ptr` that the loader fills in; until then it points at a zero of
  the module's own) and, when set, returns the KeyboardInterrupt status
  (passes/lower_control_flow.py, bufferize); a function with such loops clears the flag on
  entry (`@tracejit_clear_interrupt`), forgetting a Ctrl-C Python has handled already;
* the caller then runs Python's pending signal handler, so KeyboardInterrupt is raised once,
  at the call (runtime/runtime_errors.py).

The handler is installed with sigaction keeping the flags and mask of Python's (so
interrupted system calls still fail with EINTR, as Python expects), only over a C function
(not over SIG_DFL or SIG_IGN), and installed again when a module is loaded after Python
replaced it (a `signal.signal(SIGINT, ...)` call restores Python's own C handler). Element
loops (lower-to-loops) and thread-pool pieces do not poll: they are bounded by the arrays.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import signal
import sys
import threading
from collections.abc import Callable

from llvmlite import ir

from tracejit.codegen.llvm_types import I32, PTR, call_address, opaque

INTERRUPT_GLOBAL = "tracejit_interrupt_flag_ptr"
_NO_INTERRUPT = "tracejit_no_interrupt"
HANDLER = "tracejit_on_sigint"
_FLAG, _PREVIOUS = "tracejit_interrupt_flag", "tracejit_previous_sigint"

SA_SIGINFO = 4  # Linux


class _Sigaction(ctypes.Structure):
    """glibc's `struct sigaction` on Linux (x86-64 and AArch64)."""

    _fields_ = [
        ("handler", ctypes.c_void_p),
        ("mask", ctypes.c_ulong * 16),
        ("flags", ctypes.c_int),
        ("restorer", ctypes.c_void_p),
    ]


_lock = threading.Lock()
_state: dict[str, int] = {}  # flag / handler / previous-slot addresses, once compiled
_keep: list[object] = []  # the handler module: its code runs in signal handlers for ever


# --- in kernels ---------------------------------------------------------------------------
def flag_slot(module: ir.Module) -> ir.GlobalVariable:
    """`ptr @tracejit_interrupt_flag_ptr`, pointing at a zero of the module's own until the
    loader fills in the process's flag (`bind`)."""
    slot = module.globals.get(INTERRUPT_GLOBAL)
    if slot is not None:
        return slot
    zero = opaque(ir.GlobalVariable(module, I32, _NO_INTERRUPT))
    zero.initializer = ir.Constant(I32, 0)
    zero.linkage = "internal"
    slot = ir.GlobalVariable(module, PTR, INTERRUPT_GLOBAL)
    slot.initializer = zero
    return slot


def emit_interrupted(b: ir.IRBuilder, module: ir.Module) -> ir.Value:
    """i1: whether the flag is set (monotonic loads: never hoisted out of the loop)."""
    flag = b.load_atomic(flag_slot(module), "monotonic", 8, typ=PTR)
    value = b.load_atomic(flag, "monotonic", 4, typ=I32)
    return b.icmp_unsigned("!=", value, ir.Constant(I32, 0))


def emit_clear(b: ir.IRBuilder, module: ir.Module) -> None:
    flag = b.load_atomic(flag_slot(module), "monotonic", 8, typ=PTR)
    b.atomic_rmw("xchg", flag, ir.Constant(I32, 0), "monotonic")


# The calls bufferize makes (passes/bufferize/elementwise.py), emitted inline: no function.
INTERRUPT_CALLS: dict[str, Callable[[ir.IRBuilder, ir.Module], ir.Value | None]] = {
    "tracejit_interrupted": emit_interrupted,
    "tracejit_clear_interrupt": emit_clear,
}


# --- the process's flag and handler --------------------------------------------------------
def _handler_module() -> ir.Module:
    module = ir.Module(name="tracejit_interrupts")
    flag = opaque(ir.GlobalVariable(module, I32, _FLAG))
    flag.initializer = ir.Constant(I32, 0)
    previous = opaque(ir.GlobalVariable(module, PTR, _PREVIOUS))
    previous.initializer = ir.Constant(PTR, None)
    handler = ir.Function(module, ir.FunctionType(ir.VoidType(), [I32]), HANDLER)
    b = ir.IRBuilder(handler.append_basic_block("entry"))
    b.atomic_rmw("xchg", flag, ir.Constant(I32, 1), "seq_cst")
    chained = b.load_atomic(previous, "monotonic", 8, typ=PTR)
    with b.if_then(b.icmp_unsigned("!=", chained, ir.Constant(PTR, None))):
        call_address(b, chained, ir.FunctionType(ir.VoidType(), [I32]), [handler.args[0]])
    b.ret_void()
    return module


def _compiled() -> dict[str, int]:
    with _lock:
        if not _state:
            from tracejit.codegen.jit import compile_llvm_ir

            jit = compile_llvm_ir(str(_handler_module()), {})
            _keep.append(jit)
            _state["flag"] = jit.global_address(_FLAG)
            _state["previous"] = jit.global_address(_PREVIOUS)
            _state["handler"] = jit.function_address(HANDLER)
    return _state


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)


def install() -> int | None:
    """Chain the flag-setting handler in front of the process's SIGINT handler, if it is
    not there; returns the flag's address (None where Ctrl-C cannot be caught: not Linux,
    or SIGINT ignored, left at its default, or handled with SA_SIGINFO)."""
    if not sys.platform.startswith("linux"):
        return None
    state = _compiled()
    libc = _libc()
    current = _Sigaction()
    if libc.sigaction(signal.SIGINT, None, ctypes.byref(current)) != 0:
        return None
    if current.handler == state["handler"]:
        return state["flag"]
    if current.handler in (None, 0, 1) or current.flags & SA_SIGINFO:  # SIG_DFL, SIG_IGN
        return None
    ctypes.c_void_p.from_address(state["previous"]).value = current.handler
    ours = _Sigaction()
    ctypes.memmove(ctypes.byref(ours), ctypes.byref(current), ctypes.sizeof(_Sigaction))
    ours.handler = state["handler"]
    if libc.sigaction(signal.SIGINT, ctypes.byref(ours), None) != 0:
        return None
    return state["flag"]


def bind(engine: object) -> None:
    """Point a loaded module's flag slot at the process's flag (installing the handler)."""
    slot = engine.get_global_value_address(INTERRUPT_GLOBAL)  # type: ignore[attr-defined]  # an llvmlite engine
    if not slot:
        return
    flag = install()
    if flag is not None:
        ctypes.c_void_p.from_address(slot).value = flag


def clear() -> None:
    """Forget a pending Ctrl-C (after Python raised its KeyboardInterrupt)."""
    if "flag" in _state:
        ctypes.c_int32.from_address(_state["flag"]).value = 0
