"""The compiler driver: traced module -> pass pipeline -> LLVM -> machine code.

This is the one module that ties the frontend to `passes` and `codegen`; the
`tracejit-opt` CLI and `ConcreteFunction` both compile through it, so what the CLI
prints for a function is exactly what the function runs.
"""

from __future__ import annotations

import functools
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from xdsl.dialects.builtin import ArrayAttr, ModuleOp, StringAttr
from xdsl.utils.hints import isa

from tracejit.codegen.fingerprint import digest_of, module_fingerprint
from tracejit.compiler.compiled_memo import MEMO
from tracejit.compiler.compiled_memo import entry_for as memo_entry
from tracejit.compiler.options import OPTIONS
from tracejit.ir.runtime_contract import (
    ARG_DTYPES_ATTR,
    MESSAGES_ATTR,
    PRINT_ATTR,
    PY_FUNCTION_ATTR,
)
from tracejit.passes.pipeline import (
    DEFAULT_PIPELINE,
    AfterPassHook,
    Pipeline,
    PipelineError,
    Registry,
    default_pipeline,
    uses_only_builtin_passes,
)
from tracejit.runtime.gc_pause import collection_paused


@dataclass
class Stage:
    """The IR after one pass, and how long the pass took."""

    pass_name: str
    ir: str
    seconds: float


@dataclass
class LoweredModule:
    module: ModuleOp
    stages: list[Stage] = field(default_factory=list)
    # (pass name, wall seconds incl. verification) for every pass, recorded or not.
    pass_seconds: list[tuple[str, float]] = field(default_factory=list)


def verification_mode() -> str:
    """When to verify the IR: after `each` pass, once at the `end` of a pipeline, or `off`.
    Always each pass in the CLI and the fuzzer; for `tj.function` as the options say
    (compiler/options.py, `TRACEJIT_VERIFY_EACH`), off by default because verification costs
    as much as the passes (and grows faster than linearly with the number of blocks in xDSL)."""
    return OPTIONS.verify


def with_host_facts(pipeline: str | Sequence[str]) -> str:
    """The pipeline's text. The default pipeline (DEFAULT_PIPELINE, as a list or a text,
    or "default") is the text `default_pipeline` gives for this host: tile-matmul's vector
    target from /proc/cpuinfo, and stream-stores' threshold the last-level cache size, or
    `OPTIONS.stream_min_bytes` when set (TRACEJIT_STREAM_MIN_BYTES), and use-blas off when
    SciPy is not installed (its BLAS would never run). Any other pipeline is
    run as given: its passes use the options it names, else their deterministic defaults."""
    text = pipeline if isinstance(pipeline, str) else ",".join(pipeline)
    if text not in ("default", ",".join(DEFAULT_PIPELINE)):
        return text
    from tracejit.compiler.host import host_last_level_cache_bytes, host_vector_target

    cache_bytes = OPTIONS.stream_min_bytes
    if cache_bytes is None:
        cache_bytes = host_last_level_cache_bytes()
    from tracejit.runtime import lapack

    return default_pipeline(
        target=host_vector_target(), cache_bytes=cache_bytes, blas=lapack.blas_available()
    )


def lower(
    module: ModuleOp,
    pipeline: str | Sequence[str] = DEFAULT_PIPELINE,
    record_stages: bool = False,
    verify_each: bool | None = None,
    after_pass: AfterPassHook | None = None,
    registry: Registry | None = None,
) -> LoweredModule:
    """Run `pipeline` on a copy of `module` (the traced graph stays untouched); verify
    after each pass if `verify_each` (default: as `verification_mode()` says). The pass
    names are looked up in `registry` (default: passes/'s PASSES)."""
    mode = verification_mode() if verify_each is None else "given"
    verify_at_end = mode == "end"
    if verify_each is None:
        verify_each = mode == "each"
    lowered = LoweredModule(module.clone())
    last = time.perf_counter()

    def hook(pass_name: str, current: ModuleOp) -> None:
        nonlocal last
        now = time.perf_counter()
        lowered.pass_seconds.append((pass_name, now - last))
        if record_stages:
            lowered.stages.append(Stage(pass_name, str(current), now - last))
        if after_pass is not None:
            after_pass(pass_name, current)
        last = time.perf_counter()

    passes = Pipeline.parse(with_host_facts(pipeline), registry)
    try:
        passes.run(lowered.module, verify_each=verify_each, after_pass=hook)
        if verify_at_end and passes.names:
            _verify_at_end(lowered.module, passes.names[-1])
    except PipelineError as error:
        error.module = lowered.module  # type: ignore[attr-defined]  # the IR the pass left
        raise
    return lowered


def _verify_at_end(module: ModuleOp, last_pass: str) -> None:
    try:
        module.verify()
    except Exception as error:
        raise PipelineError(f"{last_pass} (or a pass before it)", str(error)) from error


def error_messages(module: ModuleOp) -> list[str]:
    """The run-time check messages of a lowered module, indexed by kernel status - 1."""
    attr = module.attributes.get(MESSAGES_ATTR)
    if attr is None:
        return []
    assert isa(attr, ArrayAttr[StringAttr])
    return [m.data for m in attr]


def _bind_loaded_modules() -> None:
    """Every module codegen loads from now on is bound to the runtime (thread pool, block
    cache, thread count): runtime/runtime_binding.py adds codegen/jit.py's load hook when
    imported. Imported here, next to codegen, not at start-up (codegen costs ~0.4 s)."""
    from tracejit.runtime import runtime_binding  # noqa: F401


def compile_to_machine_code(
    module: ModuleOp, callbacks: dict[str, int] | None = None, check_bounds: bool | None = None
):
    """Translate an already lowered (cf-level) module to LLVM IR and JIT it (returns a
    codegen JitModule); `callbacks` binds the module's callback declarations to function
    addresses. (`compile` is the whole way from a traced module.)"""
    from tracejit import codegen

    _bind_loaded_modules()

    if check_bounds is None:
        check_bounds = OPTIONS.check_bounds
    return codegen.compile_module(module, callbacks=callbacks, check_bounds=check_bounds)


def wait_for_runtime() -> None:
    """Wait for the compile of the thread pool and the block cache, if one was started
    (runtime/runtime_binding.py: in the background, shortly after the first kernel that
    needs them is loaded); until it is done, parallel loops start threads on every call and
    temporaries come from malloc. Nothing is imported when no kernel was ever loaded."""
    binding = sys.modules.get("tracejit.runtime.runtime_binding")
    if binding is not None:
        binding.wait_until_ready()


@functools.cache
def pyobject_entry_supported() -> bool:
    """Whether this NumPy's array struct lets kernels be called with the arrays themselves."""
    from tracejit.codegen.entry_layout import layout_is_supported

    return layout_is_supported()


def callback_sites(module: ModuleOp) -> list:
    """The run-time callback declarations of a lowered module (`passes/bufferize/state.py`)."""
    from xdsl.dialects import func

    from tracejit.codegen.abi import memref_arg
    from tracejit.runtime.callbacks import CallbackSite

    sites = []
    for op in module.ops:
        if not isinstance(op, func.FuncOp) or op.body.blocks:
            continue
        kind = PRINT_ATTR if PRINT_ATTR in op.attributes else PY_FUNCTION_ATTR
        if kind not in op.attributes:
            continue
        attr = op.attributes[kind]
        payload = [p.data for p in attr] if kind == PRINT_ATTR else attr.data  # type: ignore[attr-defined]  # array or string attributes
        dtypes = tuple(d.data for d in op.attributes[ARG_DTYPES_ATTR])  # type: ignore[attr-defined]  # an array of strings
        shapes = tuple(memref_arg(t).shape for t in op.function_type.inputs)  # type: ignore[arg-type]  # memref argument types
        sites.append(CallbackSite(op.sym_name.data, kind, payload, dtypes, shapes))
    return sites


def inlined_function(module: ModuleOp, name: str):
    """A copy of function `name` of a traced module with its own calls inlined (so it can
    be placed, self-contained, into another trace's module)."""
    from xdsl.dialects import func

    from tracejit.passes.inline import inline_module

    copy = module.clone()
    inline_module(copy)
    for op in copy.ops:
        if isinstance(op, func.FuncOp) and op.sym_name.data == name:
            op.detach()
            return op
    raise KeyError(name)


def inline_call(call, callee) -> list:
    """Replace `call` by a copy of `callee`'s body (passes/inline.py); the values it returned."""
    from tracejit.passes.inline import inline_call as inline

    return inline(call, callee)


# --- the persistent compiled-code cache (compiler/object_cache.py) ----------------------------
_object_caches: dict[tuple[str, int], object] = {}


def object_cache():
    """The `ObjectCache` the options select (`tj.config.set_cache_dir`), or None when off."""
    directory = OPTIONS.cache_dir
    if directory is None:
        return None
    from tracejit.compiler.object_cache import ObjectCache  # ~20 ms to import: only when on
    index = (str(directory), OPTIONS.cache_max_bytes)
    if index not in _object_caches:
        _object_caches[index] = ObjectCache(*index)
    return _object_caches[index]


@dataclass
class Compilation:
    """Everything one compilation of a traced module produces."""

    jit: Any  # the codegen JitModule: kernels, entry points, optimised LLVM IR, assembly
    messages: list[str]  # run-time check messages, indexed by kernel status - 1
    callbacks: Any  # the CallbackSet of tj.print / tj.py_function sites, or None
    stages: list[Stage] | None = None  # the IR after each pass, when recorded
    pass_seconds: list[tuple[str, float]] = field(default_factory=list)
    from_cache: bool = False  # loaded: from the persistent cache, or from the memo
    from_memo: bool = False  # loaded from the memo of modules compiled in this process


def compile(  # noqa: A001  (the driver's one entry point; shadows nothing it uses)
    module: ModuleOp,
    pipeline: str | Sequence[str] = DEFAULT_PIPELINE,
    *,
    py_functions: dict | None = None,
    record_stages: bool = False,
    verify_each: bool | None = None,
    check_bounds: bool | None = None,
    after_pass: AfterPassHook | None = None,
) -> Compilation:
    """Compile a traced module to machine code: passes, LLVM, JIT.

    With a cache directory set (`tj.config.set_cache_dir`) the object code is loaded from it
    when it holds this module (exact text), pipeline and bounds-check setting for this host
    and these versions (no passes, no LLVM), and stored after a fresh compile; without one,
    from the memo of modules this process compiled (compiler/compiled_memo.py). Neither
    keeps what a pass registered after import compiles. Recording the stages always
    compiles. `verify_each` and `check_bounds` default to the process's options
    (compiler/options.py: `TRACEJIT_VERIFY_EACH`, `tj.config.set_check_bounds`). `after_pass`
    is called after each pass of a fresh compile (tiered execution's background compile stops
    by raising from it)."""
    if check_bounds is None:
        check_bounds = OPTIONS.check_bounds
    # what a pass registered since import makes is never kept: the pipeline's text, on which
    # both caches key, does not say what such a pass does
    keep = uses_only_builtin_passes(pipeline)
    cache = object_cache() if keep else None
    key = _cache_key(module, pipeline, check_bounds) if cache is not None else None
    if cache is not None and not record_stages:
        assert key is not None
        hit = _load_cached(cache, key, py_functions)
        if hit is not None:
            return hit
    memo_key = None
    if keep and cache is None and not record_stages:
        memo_key = _memo_key(module, pipeline, check_bounds)
        hit = _load_memoized(memo_key, py_functions)
        if hit is not None:
            return hit
    with collection_paused():
        compilation = _compile_fresh(
            module,
            pipeline,
            py_functions,
            record_stages,
            verify_each,
            check_bounds,
            cache is not None or memo_key is not None,
            after_pass,
        )
    if memo_key is not None:
        _memoize(memo_key, compilation)
    if cache is not None:
        assert key is not None
        extra = {
            "messages": compilation.messages,
            "callbacks": [s.to_json() for s in compilation.callbacks.sites],
            "llvm_ir": compilation.jit.optimized_llvm_ir,
        }
        if cache.store(key, compilation.jit.object_code, compilation.jit.signatures, extra):
            from tracejit.compiler import compile_log

            compile_log.stored(key, len(compilation.jit.object_code or b""))
            _build_library(cache, key, extra["callbacks"], extra["llvm_ir"])
    return compilation


def is_cached(
    module: ModuleOp,
    pipeline: str | Sequence[str] = DEFAULT_PIPELINE,
    check_bounds: bool | None = None,
) -> bool:
    """Whether the persistent cache (when on), else the process's memo of compiled modules,
    holds this module's object code, so `compile` would load it instead of compiling."""
    if check_bounds is None:
        check_bounds = OPTIONS.check_bounds
    if not uses_only_builtin_passes(pipeline):
        return False
    cache = object_cache()
    if cache is None:
        return _memo_key(module, pipeline, check_bounds) in MEMO
    return cache.path(_cache_key(module, pipeline, check_bounds)).is_file()


def _build_library(cache: Any, key: str, sites: list, llvm_ir: Any) -> None:
    """Start linking the entry's shared library (`codegen/shared_library.py`), which a later
    process loads without LLVM; modules with run-time callbacks bind them per process, so they
    keep using the object code."""
    if sites or not isinstance(llvm_ir, str) or cache.library_path(key).exists():
        return
    from tracejit.codegen.shared_library import build_in_background

    build_in_background(llvm_ir, cache.library_path(key), OPTIONS.c_compiler)


def _key_parts(
    module: ModuleOp, pipeline: str | Sequence[str], check_bounds: bool
) -> tuple[str, str, str]:
    """What decides a module's machine code in this process, besides the environment."""
    spec = with_host_facts(pipeline)  # the default pipeline names this host's facts
    # bounds checks change the machine code: checked and unchecked never share
    checks = "bounds-checked" if check_bounds else "unchecked"
    return module_fingerprint(module), spec, checks


def _cache_key(module: ModuleOp, pipeline: str | Sequence[str], check_bounds: bool) -> str:
    from tracejit.compiler.object_cache import cache_key

    return cache_key(*_key_parts(module, pipeline, check_bounds))


# --- the memo of modules compiled in this process (compiler/compiled_memo.py) -----------------
def _memo_key(module: ModuleOp, pipeline: str | Sequence[str], check_bounds: bool) -> str:
    return digest_of(*_key_parts(module, pipeline, check_bounds))  # the process is the environment


def _load_memoized(key: str, py_functions: dict | None) -> Compilation | None:
    entry = MEMO.get(key)
    if entry is None:
        return None
    from tracejit.codegen.jit import load_object

    _bind_loaded_modules()
    callbacks = _cached_callbacks(list(entry.callback_sites), py_functions)
    addresses = callbacks.addresses if callbacks is not None else None
    jit = load_object(entry.object_code, entry.signatures, addresses, entry.llvm_ir)
    return Compilation(jit, list(entry.messages), callbacks, from_cache=True, from_memo=True)


def _memoize(key: str, compilation: Compilation) -> None:
    jit = compilation.jit
    sites = [s.to_json() for s in compilation.callbacks.sites] if compilation.callbacks else []
    entry = memo_entry(
        jit.object_code, jit.signatures, compilation.messages, sites, jit.optimized_llvm_ir
    )
    MEMO.put(key, entry)


def _load_cached(cache: Any, key: str, py_functions: dict | None) -> Compilation | None:
    entry = cache.load(key)
    if entry is None or not isinstance(entry.extra.get("messages"), list):
        return None
    sites = entry.extra.get("callbacks", [])
    llvm_ir = entry.extra.get("llvm_ir")
    llvm_ir = llvm_ir if isinstance(llvm_ir, str) else None
    messages = list(entry.extra["messages"])
    if not sites:
        loaded = _load_library(cache, key, entry, llvm_ir)
        if loaded is not None:
            return Compilation(loaded, messages, None, from_cache=True)
    from tracejit.codegen.jit import load_object

    _bind_loaded_modules()

    callbacks = _cached_callbacks(sites, py_functions)
    try:
        addresses = callbacks.addresses if callbacks is not None else None
        loaded = load_object(entry.object_code, entry.signatures, addresses, llvm_ir)
    except Exception:  # a valid entry LLVM will not load: compile and overwrite it
        return None
    _build_library(cache, key, sites, llvm_ir)  # for the next process
    return Compilation(loaded, messages, callbacks, from_cache=True)


def _load_library(cache: Any, key: str, entry: Any, llvm_ir: str | None) -> Any:
    """The entry's machine code from its shared library, or None when it has none (yet)."""
    from tracejit.codegen import shared_library
    from tracejit.codegen.jit import JitModule

    _bind_loaded_modules()

    path = cache.library_path(key)
    if not cache.trusted(path):  # dlopen runs its code: only a library no one else could write
        return None
    library = shared_library.load(path)
    if library is None:
        return None
    return JitModule(library, None, None, entry.signatures, entry.object_code, llvm_ir)


def _cached_callbacks(sites: list, py_functions: dict | None):
    """The CallbackSet of a cache entry's callback sites, or None when it has none (most
    kernels: the callback machinery is then not even imported)."""
    if not sites:
        return None
    from tracejit.runtime.callbacks import CallbackSet, CallbackSite

    return CallbackSet([CallbackSite.from_json(d) for d in sites], py_functions or {})


def _compile_fresh(
    module: ModuleOp,
    pipeline: str | Sequence[str],
    py_functions: dict | None,
    record_stages: bool,
    verify_each: bool | None,
    check_bounds: bool,
    keep_object_code: bool,
    after_pass: AfterPassHook | None = None,
) -> Compilation:
    from tracejit import codegen

    _bind_loaded_modules()
    from tracejit.runtime.callbacks import CallbackSet

    lowered = lower(
        module,
        pipeline,
        record_stages=record_stages,
        verify_each=verify_each,
        after_pass=after_pass,
    )
    callbacks = CallbackSet(callback_sites(lowered.module), py_functions or {})
    jit = codegen.compile_module(
        lowered.module,
        callbacks=callbacks.addresses,
        check_bounds=check_bounds,
        keep_object_code=keep_object_code,
    )
    stages = lowered.stages if record_stages else None
    messages = error_messages(lowered.module)
    return Compilation(jit, messages, callbacks, stages, lowered.pass_seconds)


# --- object code saved with a traced module (frontend/export/saved_model/object_code.py) ---
def object_code_key(
    module: ModuleOp, pipeline: str | Sequence[str] = DEFAULT_PIPELINE
) -> str:
    """The key the persistent cache gives `module`'s object code in this process: it changes
    with the IR, the pipeline, the bounds-check setting, the CPU and the compiler."""
    return _cache_key(module, pipeline, OPTIONS.check_bounds)


def encode_object_code(compilation: Compilation) -> bytes | None:
    """The compilation's machine code as one cache entry (`compiler/object_cache.py`: with a
    checksum, the kernel signatures and the run-time messages), or None if it has none."""
    from tracejit.compiler.object_cache import encode_entry

    jit = compilation.jit
    try:
        code = jit.object_code
    except Exception:  # e.g. loaded from a shared library: there is only the IR to save
        return None
    sites = [s.to_json() for s in compilation.callbacks.sites] if compilation.callbacks else []
    extra = {"messages": list(compilation.messages), "callbacks": sites}
    return encode_entry(code, jit.signatures, extra)


def decode_object_code(data: bytes) -> Compilation | None:
    """The Compilation of an entry `encode_object_code` made, or None if it is invalid or
    LLVM will not load it."""
    from tracejit.codegen.jit import load_object
    from tracejit.compiler.object_cache import decode_entry

    _bind_loaded_modules()

    entry = decode_entry(data)
    if entry is None or not isinstance(entry.extra.get("messages"), list):
        return None
    try:
        callbacks = _cached_callbacks(entry.extra.get("callbacks", []), {})
        addresses = callbacks.addresses if callbacks is not None else None
        jit = load_object(entry.object_code, entry.signatures, addresses)
    except Exception:
        return None
    messages = [str(m) for m in entry.extra["messages"]]
    return Compilation(jit, messages, callbacks, from_cache=True)


def tracejit_version() -> str:
    """The installed tracejit's version (as the persistent cache reads it)."""
    from tracejit.compiler.object_cache import distribution_versions

    return distribution_versions("tracejit")["tracejit"]


def is_valid_pipeline(spec: str) -> bool:
    """Whether `spec` (an `experimental_pipeline` text) names passes this build has."""
    from xdsl.utils.exceptions import ArgSpecParseError

    try:
        Pipeline.parse(spec)
    except (Exception, ArgSpecParseError):  # unknown pass, bad option (a BaseException)
        return False
    return True


def clear_interrupt() -> None:
    """Forget the Ctrl-C that stopped a kernel (codegen/interrupts.py), once it is raised."""
    from tracejit.codegen import interrupts

    interrupts.clear()
