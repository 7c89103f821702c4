"""tracejit.codegen: cf-level xDSL module -> LLVM IR -> host machine code (llvmlite MCJIT).

    compile_module(module) -> JitModule      # .kernel(name)(*arrays), .asm, .optimized_llvm_ir
    translate_module(module) -> str          # unoptimised LLVM IR text

The calling convention is documented in `tracejit.codegen.abi`.

The names below are imported on first use (PEP 562): a process that only loads cached object
code (`load_object`) must not pay ~0.2 s for importing the emitter and the xDSL dialects it
translates (arith, math, memref), which a cache hit never needs.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from xdsl.dialects import func
    from xdsl.dialects.builtin import ModuleOp

    from tracejit.codegen.abi import KernelSignature
    from tracejit.codegen.jit import JitModule

# public name -> the submodule defining it
_LAZY = {
    "KernelSignature": "abi",
    "MemRefArg": "abi",
    "ScalarArg": "abi",
    "ctypes_prototype": "abi",
    "kernel_signature": "abi",
    "build_llvm_module": "emit_llvm",
    "translate_module": "emit_llvm",
    "CodegenError": "errors",
    "JitModule": "jit",
    "Kernel": "jit",
    "compile_llvm_ir": "jit",
    "load_object": "jit",
}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'tracejit.codegen' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"tracejit.codegen.{_LAZY[name]}"), name)
    globals()[name] = value  # later look-ups skip __getattr__
    return value


def module_signatures(module: ModuleOp) -> dict[str, KernelSignature]:
    """The ABI signature of every public function defined in `module`, by name (private
    functions get internal linkage and may be inlined away)."""
    from xdsl.dialects import func

    from tracejit.codegen.abi import kernel_signature

    return {
        op.sym_name.data: kernel_signature(op)
        for op in module.ops
        if isinstance(op, func.FuncOp) and op.body.blocks and not _is_private(op)
    }


def _is_private(op: func.FuncOp) -> bool:
    return op.sym_visibility is not None and op.sym_visibility.data == "private"


def compile_module(
    module: ModuleOp,
    *,
    noalias_args: bool = False,
    callbacks: Mapping[str, int] | None = None,
    check_bounds: bool | None = None,
    keep_object_code: bool = False,
) -> JitModule:
    """Translate, optimise (O3, vectorised for the host) and JIT-compile `module`;
    `callbacks` gives the addresses of the module's run-time callback declarations;
    `check_bounds` range-checks every memory access (default off; the driver passes its option);
    `keep_object_code` when the object code will be asked for (one code generation)."""
    from tracejit.codegen.emit_llvm import translate_module
    from tracejit.codegen.jit import compile_llvm_ir

    text = translate_module(module, noalias_args=noalias_args, check_bounds=check_bounds)
    signatures = module_signatures(module)
    return compile_llvm_ir(text, signatures, callbacks, keep_object_code=keep_object_code)


__all__ = [
    "CodegenError",
    "JitModule",
    "Kernel",
    "KernelSignature",
    "MemRefArg",
    "ScalarArg",
    "build_llvm_module",
    "compile_llvm_ir",
    "compile_module",
    "ctypes_prototype",
    "kernel_signature",
    "load_object",
    "module_signatures",
    "translate_module",
]
