"""tracejit.codegen: cf-level xDSL module -> LLVM IR -> host machine code (llvmlite MCJIT).

    compile_module(module) -> JitModule      # .kernel(name)(*arrays), .asm, .optimized_llvm_ir
    translate_module(module) -> str          # unoptimised LLVM IR text

The calling convention is documented in `tracejit.codegen.abi`.
"""

from __future__ import annotations

from collections.abc import Mapping

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

from tracejit.codegen.abi import (
    KernelSignature,
    MemRefArg,
    ScalarArg,
    ctypes_prototype,
    kernel_signature,
)
from tracejit.codegen.emit_llvm import build_llvm_module, translate_module
from tracejit.codegen.errors import CodegenError
from tracejit.codegen.jit import JitModule, Kernel, compile_llvm_ir, load_object


def module_signatures(module: ModuleOp) -> dict[str, KernelSignature]:
    """The ABI signature of every public function defined in `module`, by name (private
    functions get internal linkage and may be inlined away)."""
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
) -> JitModule:
    """Translate, optimise (O3, vectorised for the host) and JIT-compile `module`;
    `callbacks` gives the addresses of the module's run-time callback declarations."""
    text = translate_module(module, noalias_args=noalias_args)
    return compile_llvm_ir(text, module_signatures(module), callbacks)


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
