"""LLVM IR text -> machine code with llvmlite's MCJIT, and the handles to call it.

Each `JitModule` owns one execution engine, and each engine owns its own TargetMachine (MCJIT
takes ownership and frees it with the engine), so nothing is shared between modules. Keep the
`JitModule` (or a `Kernel` from it, which holds the engine) alive while calling its code.
Object code (`JitModule.object_code`) can be cached and reloaded with `load_object`.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from tracejit.codegen.abi import KernelSignature, ctypes_prototype
from tracejit.codegen.errors import CodegenError

if TYPE_CHECKING:
    import llvmlite.binding as llvm

    from tracejit.codegen.shared_library import SharedLibrary
else:  # loading LLVM costs ~30 ms: a module loaded as a shared library never needs it
    from tracejit.codegen.lazy_module import LazyModule

    llvm = LazyModule("llvmlite.binding")


@functools.cache
def _initialize() -> None:
    # llvm.initialize() raises in llvmlite 0.50; native target + asm printer are enough.
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    libm = _libm()
    if libm:
        llvm.load_library_permanently(libm)
    _load_libgcc()
    _bind_python_api()


def _load_libgcc() -> None:
    """The backend may call compiler-rt/libgcc helpers no IR declares (`__truncdfhf2` when
    an f16 result is folded from f64 math, as expand-math's widened f32 code can be): an
    unresolved one would be called at address 0. libgcc_s has them (GCC >= 12 for the f16
    ones); without it the process is as before."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(RuntimeError):
            llvm.load_library_permanently("libgcc_s.so.1")


def _bind_python_api() -> None:
    """Make the CPython C API functions the fastcall wrappers call (`pyobject_entry.py`)
    resolvable: a shared libpython's symbols are not in MCJIT's default search."""
    from tracejit.codegen.entry_layout import PYTHON_API

    for name in PYTHON_API:
        llvm.add_symbol(name, ctypes.cast(getattr(ctypes.pythonapi, name), ctypes.c_void_p).value)


def _libm() -> str | None:
    """libm's file name. `ctypes.util.find_library` runs `ldconfig -p` in a subprocess
    (~2 ms, a third of a cache hit), so glibc's usual name is tried first."""
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL("libm.so.6")
            return "libm.so.6"
        except OSError:
            pass
    from ctypes.util import find_library  # imports subprocess: only when glibc's name fails

    return find_library("m")


@functools.cache
def host_cpu() -> tuple[str, str]:
    """The host CPU's name and feature string (asked once: ~0.3 ms, a tenth of a cache hit)."""
    _initialize()
    return llvm.get_host_cpu_name(), llvm.get_host_cpu_features().flatten()


def _target_machine() -> llvm.TargetMachine:
    """A fresh host TargetMachine (znver4 etc.); never share one between engines."""
    cpu, features = host_cpu()
    target = llvm.Target.from_default_triple()
    return target.create_target_machine(cpu=cpu, features=features, opt=3, jit=True)


def _check_symbols(
    module: llvm.ModuleRef, text: str, callbacks: Mapping[str, int] | None = None
) -> None:
    """Fail cleanly on external functions the process cannot provide (MCJIT would crash)."""
    for fn in module.functions:
        if fn.is_declaration and not fn.name.startswith("llvm.") and \
                fn.name not in (callbacks or {}) and llvm.address_of_symbol(fn.name) is None:
            raise CodegenError(f"external function {fn.name!r} is not available in this process")
    if "half" in text and not llvm.get_host_cpu_features().get("f16c", False):
        raise CodegenError("f16 code needs a host CPU with F16C")


def _skip_optimizing_entry_points(module: llvm.ModuleRef) -> None:
    """Mark the array-object entry points (`pyobject_entry.py`) `optnone noinline`.

    They are a few loads, compares and branches around one call, already written the way
    LLVM would leave them; O3 and full instruction selection on them cost a fifth of W8's
    LLVM time (5 ms of O3, 2 ms of codegen), for about one nanosecond per call. The kernels
    themselves are untouched (an entry point never inlined its kernel)."""
    from tracejit.codegen.entry_layout import FASTCALL_SUFFIX, SUFFIX

    for function in module.functions:
        if not function.is_declaration and function.name.endswith((SUFFIX, FASTCALL_SUFFIX)):
            function.add_function_attribute("noinline")
            function.add_function_attribute("optnone")


class _Context:
    """A private LLVMContext for one compile, and the modules parsed into it.

    llvmlite parses into LLVM's global context by default, which keeps every type, constant
    and metadata node any module ever used until the process exits: a kernel's constants
    (a captured array, its messages, its folded vector constants) stayed resident after
    the kernel was freed (~575 KiB for a 32 KiB table). A private context frees them with
    the kernel.

    The context must outlive its modules (freeing it deletes them, and a module freed again
    afterwards is a double free). llvmlite's ContextRef would free it from its own
    finalizer, which the cyclic garbage collector may run before the engine's, or, when
    marked as owned by something else, forget it there without freeing it. So the context
    is freed only here, through the pointer kept aside, after every module parsed into it
    has been closed (a module already freed, or owned by a freed engine, is skipped).
    `close` is called when no engine took the module, or by the engine that did, after it
    freed itself (`_engine_class`)."""

    def __init__(self) -> None:
        self.ref = llvm.create_context()
        self.ref._owned = True  # its finalizer must not free it
        self._pointer = self.ref._ptr
        self.modules: list[llvm.ModuleRef] = []

    def parse(self, text: str) -> llvm.ModuleRef:
        module = llvm.parse_assembly(text, context=self.ref)
        self.modules.append(module)
        return module

    def close(self) -> None:
        if self._pointer is None:
            return
        for module in self.modules:
            module.close()  # frees it unless an engine owns it (then it was freed with it)
        self.modules.clear()
        llvm.ffi.lib.LLVMPY_ContextDispose(self._pointer)
        self._pointer = None


@functools.cache
def _engine_class() -> type:
    """A subclass of llvmlite's ExecutionEngine that closes the `_Context` of its module
    once it has freed itself (and with it the module), so the one finalizer frees both, in
    that order."""

    class ContextOwningEngine(llvm.ExecutionEngine):
        context: _Context | None = None

        def _dispose(self) -> None:
            super()._dispose()
            context, self.context = self.context, None
            if context is not None:
                context.close()

    return ContextOwningEngine


def _parsed(text: str, tm: llvm.TargetMachine, context: _Context) -> llvm.ModuleRef:
    try:
        module = context.parse(text)
        module.verify()
    except RuntimeError as error:
        raise CodegenError(f"invalid LLVM IR: {error}") from error
    module.triple = tm.triple
    module.data_layout = str(tm.target_data)
    _skip_optimizing_entry_points(module)
    return module


def _optimized(
    module: llvm.ModuleRef, text: str, tm: llvm.TargetMachine, context: _Context
) -> llvm.ModuleRef:
    """`module` after O3, verified: LLVM's SLP vectoriser has been seen to leave an
    instruction that does not dominate its uses (the fuzzer found one), and machine-code
    generation then aborts the process. Such a module is optimised again from `text`
    without SLP vectorisation (the loop vectoriser still runs), then, if need be, not at
    all: slower code, never a crash."""
    unroll = text.count("\n") <= UNROLL_LINE_LIMIT
    _optimize(module, tm, unroll=unroll)
    for slp in (False, None):
        try:
            module.verify()
            break
        except RuntimeError:
            module = _parsed(text, tm, context)
            if slp is not None:
                _optimize(module, tm, slp=slp, unroll=unroll)
    _drop_vector_variants(module, tm)
    return module


def _drop_vector_variants(module: llvm.ModuleRef, tm: llvm.TargetMachine) -> None:
    """Delete the masked vector variants of slow math calls (`emit_math._vector_variant`):
    after O3 and the always-inliner nothing calls them, but their external linkage (which
    kept them alive for the vectoriser) would have them compiled to machine code: four
    functions per math function, up to 16 lanes of libm calls each. For `np.sin(x) * 2`
    that was 40% of machine-code generation (32 ms of 52). Made internal, one global DCE
    deletes them (a function some code still calls stays)."""
    from tracejit.codegen.emit_math import is_vector_variant

    variants = [f for f in module.functions if is_vector_variant(f.name)]
    if not variants:
        return
    for function in variants:
        function.linkage = "internal"
    tuning = llvm.create_pipeline_tuning_options(speed_level=0)
    _run_pipeline(module, tm, tuning, lambda manager: manager.add_global_dead_code_eliminate_pass())


# LLVM's loop unroller is off for modules of more lines of IR than this: in the large
# kernels of whole programs (a LeNet forward, a channel-flow solver, a Stockham FFT:
# 4,500-6,400 lines) it made O3 and machine-code generation take twice as long (first
# calls 1.7-2.8 s, 0.9-2.3 s without it), while their loops are already vectorised. The
# channel-flow solver (3,400 lines once its loop holds its body once) and an ADI solver
# (1,900) still paid 0.4 and 0.25 s for it, and ran no faster (channel flow 20% slower).
# The loop kernels of `make bench` (scalar nests, 250-1,000 lines) gain 5-10% from it.
# Below the limit a module is kept as the unroller leaves it, even multiplied: a radix sort
# of 1,000,000 int8 merges its digit counts in loops nested with static trip counts, and
# 1,100 lines of IR became 13,300, one block taking 2-3 s to schedule. Optimised again
# without unrolling (or at O2's threshold) it compiled in 0.4 s but ran twice as slowly
# (8.5 ms against 4.3 ms), and tiered compilation keeps the compile off the first call.
UNROLL_LINE_LIMIT = 1500


def _optimize(
    module: llvm.ModuleRef, tm: llvm.TargetMachine, slp: bool = True, unroll: bool = True
) -> None:
    """O3, then the always-inliner, in one run of one pass manager.

    One PassBuilder per compile, not one per run: llvmlite 0.50 gives every PassBuilder a
    PassInstrumentationCallbacks object it never frees (~1.5 KiB, plus ~0.5 KiB of
    callbacks each run registers into it), so each builder is memory the process keeps for
    good. A builder cannot be shared between compiles either: the callbacks a run registers
    point into that run's instrumentation, freed when the run ends."""
    tuning = llvm.create_pipeline_tuning_options(speed_level=3)
    tuning.loop_vectorization = True
    tuning.slp_vectorization = slp
    tuning.loop_unrolling = unroll
    # Vectorised calls can only be inlined after vectorisation: the masked vector variants
    # of expand-math's slow paths (`emit_math._vector_variant`) are `alwaysinline`, so the
    # always-inliner runs after the whole O3 pipeline.
    _run_pipeline(module, tm, tuning, lambda manager: manager.add_always_inliner_pass())


def _run_pipeline(
    module: llvm.ModuleRef,
    tm: llvm.TargetMachine,
    tuning: llvm.PipelineTuningOptions,
    add_passes: Callable[[llvm.ModulePassManager], None],
) -> None:
    """Run the pipeline of `tuning`'s speed level plus `add_passes`' on `module`, then free
    its pass manager and builder. llvmlite 0.50 never frees a ModulePassManager: its class
    inherits `_dispose` from `ObjectRef` (a no-op) before `NewPassManager`'s, so every O3
    pipeline (~65 KiB of pass objects) stayed resident for the life of the process.
    `detach` afterwards keeps a fixed llvmlite from freeing it a second time."""
    from llvmlite.binding.newpassmanagers import NewPassManager

    builder = llvm.create_pass_builder(tm, tuning)
    manager = builder.getModulePassManager()
    add_passes(manager)
    try:
        manager.run(module, builder)
    finally:
        NewPassManager._dispose(manager)
        manager.detach()
        builder.close()


LOAD_HOOKS: list[Callable[[JitModule, llvm.ExecutionEngine | SharedLibrary], None]] = []
"""Called with every module loaded, before its code runs: the runtime (a floor up,
runtime/runtime_binding.py) appends the function that fills in the globals through which
the module reaches it, so that this floor never imports the runtime."""


class Kernel:
    """A compiled function: `raw` is the ctypes callable taking raw ABI arguments (data
    addresses, scalars, dynamic dims); calling the kernel itself takes NumPy arrays."""

    def __init__(self, engine: llvm.ExecutionEngine | SharedLibrary, address: int,
                 signature: KernelSignature) -> None:
        self._engine = engine  # keeps the machine code alive
        self.signature = signature
        self.address = address
        self.raw = ctypes_prototype(signature)(address)
        self.raw.engine = engine  # whoever keeps only `raw` keeps the machine code alive

    def __call__(self, *args: object) -> object:
        return self.raw(*self.signature.call_args(args))


class JitModule:
    """Machine code for one module, loaded in its own MCJIT engine."""

    def __init__(self, engine: llvm.ExecutionEngine | SharedLibrary,
                 tm: llvm.TargetMachine | None,
                 module: llvm.ModuleRef | None, signatures: Mapping[str, KernelSignature],
                 object_code: bytes | None = None, llvm_ir: str | None = None) -> None:
        self._engine = engine  # anything with get_function/global_value_address
        self._given_tm = tm  # made on demand for a shared library (no LLVM loaded until then)
        self._module = module
        self._object_code = object_code
        self._llvm_ir = llvm_ir  # for object code: the optimised IR it was made from, if known
        self.signatures = dict(signatures)
        self._kernels: dict[str, Kernel] = {}
        for hook in LOAD_HOOKS:
            hook(self, engine)
        # Wall time of the steps of `compile_llvm_ir` (0.0 for a module loaded from object code).
        self.parse_seconds = 0.0
        self.optimize_seconds = 0.0
        self.codegen_seconds = 0.0

    @functools.cached_property
    def optimized_llvm_ir(self) -> str:
        """LLVM IR after the O3 pipeline (for object code: the IR it was loaded with)."""
        if self._module is not None:
            return str(self._module)
        if self._llvm_ir is None:
            raise CodegenError("a module loaded from object code without its LLVM IR has none")
        return self._llvm_ir

    @functools.cached_property
    def asm(self) -> str:
        """Host assembly of the optimised module (parsed again, not re-optimised, for a
        module loaded from object code)."""
        if self._module is not None:
            return self._tm.emit_assembly(self._module)
        context = _Context()
        try:
            return self._tm.emit_assembly(context.parse(self.optimized_llvm_ir))
        finally:
            context.close()

    @functools.cached_property
    def _tm(self) -> llvm.TargetMachine:
        return self._given_tm if self._given_tm is not None else _target_machine()

    @property
    def object_code(self) -> bytes:
        """Relocatable object code for the host, loadable with `load_object`."""
        if self._object_code is None:
            assert self._module is not None
            self._object_code = self._tm.emit_object(self._module)
        return self._object_code

    def global_address(self, name: str) -> int:
        address = self._engine.get_global_value_address(name)
        if not address:
            raise CodegenError(f"no global named {name!r}")
        return address

    def function_address(self, name: str) -> int:
        address = self._engine.get_function_address(name)
        if not address:
            raise CodegenError(f"no compiled function named {name!r}")
        return address

    def entry_point(self, name: str, expected: Sequence[int], release_gil: bool = True) -> object:
        """`name`'s array-object entry point (`pyobject_entry.py`): a callable taking the
        NumPy arrays themselves, or None if the module has none. `expected` is
        `[id(np.ndarray), id(dtype of argument 0), ...]`, what the entry checks.

        Preferably the METH_FASTCALL builtin (`__pyfast`), which returns its last argument
        on success and the status (an int) otherwise, and decides itself whether to release
        the GIL; else a ctypes function returning the status, releasing the GIL if
        `release_gil` (lets other threads run during the call but costs ~0.1 us)."""
        from tracejit.codegen.entry_layout import (
            EXPECT_SUFFIX,
            FASTCALL_SUFFIX,
            SUFFIX,
            fastcall_supported,
        )

        address = self._engine.get_function_address(name + SUFFIX)
        signature = self.signatures.get(name)
        if not address or signature is None or len(expected) != len(signature.args) + 1:
            return None
        table = self._engine.get_global_value_address(name + EXPECT_SUFFIX)
        (ctypes.c_void_p * len(expected)).from_address(table)[:] = list(expected)
        fast = self._engine.get_function_address(name + FASTCALL_SUFFIX)
        if fast and fastcall_supported():
            return _builtin(name, fast, self._engine)
        factory = ctypes.CFUNCTYPE if release_gil else ctypes.PYFUNCTYPE
        prototype = factory(ctypes.c_int32, *([ctypes.py_object] * len(signature.args)))
        function = prototype(address)
        # the machine code lives as long as the function (typeshed does not model attributes
        # set on ctypes function objects)
        function.engine = self._engine  # type: ignore[attr-defined]  # keeps the engine alive
        return function

    def kernel(self, name: str) -> Kernel:
        """A callable for the function `name` (built once, then cached)."""
        found = self._kernels.get(name)
        if found is None:
            if name not in self.signatures:
                raise CodegenError(f"no kernel signature for {name!r}")
            found = Kernel(self._engine, self.function_address(name), self.signatures[name])
            self._kernels[name] = found
        return found


class _MethodDef(ctypes.Structure):
    """CPython's PyMethodDef."""

    _fields_ = [
        ("ml_name", ctypes.c_char_p),
        ("ml_meth", ctypes.c_void_p),
        ("ml_flags", ctypes.c_int),
        ("ml_doc", ctypes.c_char_p),
    ]


_METH_FASTCALL = 0x0080
_new_builtin = ctypes.pythonapi.PyCFunction_NewEx
_new_builtin.restype = ctypes.py_object
_new_builtin.argtypes = [ctypes.c_void_p, ctypes.py_object, ctypes.py_object]


def _builtin(name: str, address: int, engine: object) -> object:
    """A builtin function object calling the METH_FASTCALL C function at `address`. Its
    `self` (a builtin keeps it alive) holds the PyMethodDef, which CPython does not copy,
    and the engine owning the machine code."""
    label = name.encode()
    definition = _MethodDef(label, address, _METH_FASTCALL, None)
    keep_alive = (definition, label, engine)
    return _new_builtin(ctypes.addressof(definition), keep_alive, None)


# MCJIT resolves external symbols when an engine is finalized, from one process-wide
# table. Run-time callbacks (tj.print, tj.py_function) are external functions whose
# addresses differ per compiled function, so binding them and finalizing happen under
# one lock: each engine keeps the addresses it was finalized with.
_SYMBOL_LOCK = threading.Lock()


def _finalize(engine: llvm.ExecutionEngine, callbacks: Mapping[str, int] | None) -> None:
    with _SYMBOL_LOCK:
        for name, address in (callbacks or {}).items():
            llvm.add_symbol(name, address)
        engine.finalize_object()


def compile_llvm_ir(
    text: str,
    signatures: Mapping[str, KernelSignature],
    callbacks: Mapping[str, int] | None = None,
    *,
    keep_object_code: bool = False,
) -> JitModule:
    """Parse, verify, optimise at O3 (loop + SLP vectorisation) and JIT `text` for the host.

    `callbacks` binds declared external functions to addresses (ctypes callbacks).
    `keep_object_code`: generate relocatable object code and load that (for the on-disk
    cache), instead of letting MCJIT generate code and then generating it a second time
    when `object_code` is asked for (machine code generation is a quarter of a compile)."""
    start = time.perf_counter()
    tm = _target_machine()
    context = _Context()
    engine_owns_context = False
    try:
        module = _parsed(text, tm, context)
        parsed = time.perf_counter()
        module = _optimized(module, text, tm, context)
        _check_symbols(module, text, callbacks)
        optimized = time.perf_counter()
        if keep_object_code:
            # the engine holds only the object code: the module is kept as text (the
            # cache stores it; `asm` parses it again) and freed here with its context
            object_code = tm.emit_object(module)
            engine = _engine_for_object(object_code, tm, callbacks)
            jit = JitModule(engine, tm, None, signatures, object_code, str(module))
        else:
            engine = llvm.create_mcjit_compiler(module, tm)
            engine.__class__ = _engine_class()  # frees the context after the engine
            engine.context, engine_owns_context = context, True
            _finalize(engine, callbacks)
            jit = JitModule(engine, tm, module, signatures)
    finally:
        if not engine_owns_context:
            context.close()
    jit.parse_seconds = parsed - start
    jit.optimize_seconds = optimized - parsed
    jit.codegen_seconds = time.perf_counter() - optimized
    return jit


def load_object(
    object_code: bytes,
    signatures: Mapping[str, KernelSignature],
    callbacks: Mapping[str, int] | None = None,
    optimized_llvm_ir: str | None = None,
) -> JitModule:
    """A JitModule from object code produced by `JitModule.object_code` in any process;
    given the optimised LLVM IR it was made from, its `optimized_llvm_ir` and `asm` work
    (the IR is parsed when asked for, not optimised again)."""
    tm = _target_machine()
    engine = _engine_for_object(object_code, tm, callbacks)
    return JitModule(engine, tm, None, signatures, object_code, optimized_llvm_ir)


def _engine_for_object(
    object_code: bytes, tm: llvm.TargetMachine, callbacks: Mapping[str, int] | None
) -> llvm.ExecutionEngine:
    """An engine (owning `tm`) holding only `object_code`, linked and ready to call."""
    empty = llvm.parse_assembly("")
    empty.triple = tm.triple
    engine = llvm.create_mcjit_compiler(empty, tm)
    engine.add_object_file(llvm.ObjectFileRef.from_data(object_code))
    _finalize(engine, callbacks)
    return engine
