"""IREE as a second, independent compiler: export a traced function with `export-linalg`,
compile it with IREE for the CPU (`llvm-cpu`), run it on the same inputs.

Needs the `interop` extra (`iree-base-compiler`, `iree-base-runtime`). Many functions go
into one module (`compile_many`), since an IREE compile costs about a second whatever its
size. Values cross the boundary as NumPy arrays: unsigned integers travel as the signless
integers of the same bits (the exported types are signless) and come back as the traced
function's dtypes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr, TensorType

from tracejit.compiler import driver
from tracejit.ir.dtypes import numpy_dtype
from tracejit.passes.export_linalg import export_module
from tracejit.passes.pipeline import TENSOR_OPT_PIPELINE


@dataclass
class Exported:
    """One traced function as an upstream `func.func`, and the dtypes of its results."""

    function: func.FuncOp
    result_dtypes: list[np.dtype]


def export(concrete, name: str) -> Exported:
    """The concrete function's upstream form, renamed `name` (an ExportError if some op
    has none)."""
    module = concrete.graph.module
    traced = _only_function(module)
    dtypes = [_dtype(t) for t in traced.function_type.outputs]
    lowered = driver.lower(module, TENSOR_OPT_PIPELINE, verify_each=False).module
    export_module(lowered)  # raises ExportError itself (not wrapped as a pipeline error)
    function = _only_function(lowered)
    function.detach()
    function.sym_name = StringAttr(name)
    return Exported(function, dtypes)


def _only_function(module: ModuleOp) -> func.FuncOp:
    functions = [op for op in module.ops if isinstance(op, func.FuncOp)]
    if len(functions) != 1:
        raise ValueError(f"expected one function in the module, found {len(functions)}")
    return functions[0]


def _dtype(t) -> np.dtype:
    if not isinstance(t, TensorType):
        raise ValueError(f"a non-tensor result type {t}")
    return numpy_dtype(t.get_element_type())


def module_text(functions: Sequence[func.FuncOp]) -> str:
    return str(ModuleOp([f.clone() for f in functions]))


def compile_many(functions: Sequence[func.FuncOp]) -> dict[str, Callable]:
    """Compile the functions into one IREE module for the host CPU; name -> callable."""
    import iree.compiler as ireec
    import iree.runtime as ireert

    vmfb = ireec.compile_str(
        module_text(functions),
        target_backends=["llvm-cpu"],
        extra_args=[
            "--iree-llvmcpu-target-cpu=host",
            # IREE narrows f64 to f32 by default: keep NumPy's precision.
            "--iree-input-demote-f64-to-f32=false",
            # IREE's embedded linker has no libm: f64 fmod (arith.remf), tanh, ... would not
            # link. A system library links against the host's libm.
            "--iree-llvmcpu-link-embedded=false",
        ],
    )
    context = ireert.SystemContext(config=ireert.Config("local-sync"))
    context.add_vm_module(ireert.VmModule.copy_buffer(context.instance, vmfb))
    module = context.modules.module
    return {f.sym_name.data: module[f.sym_name.data] for f in functions}


def call(function: Callable, args: Sequence[np.ndarray], result_dtypes: Sequence[np.dtype]):
    """Run an IREE function on NumPy arrays; its results as arrays of `result_dtypes`."""
    inputs = [signless(np.array(a, order="C")) for a in args]  # keeps 0-d arrays 0-d
    results = function(*inputs)
    if not isinstance(results, tuple | list):
        results = (results,) if results is not None else ()
    arrays = [np.asarray(r.to_host()) for r in results]
    return [as_dtype(a, d) for a, d in zip(arrays, result_dtypes, strict=True)]


def signless(array: np.ndarray) -> np.ndarray:
    """An unsigned array as the signed integers of the same bits (exported types are
    signless, read as signed)."""
    if array.dtype.kind == "u":
        return array.view(array.dtype.str.replace("u", "i"))
    return array


def as_dtype(array: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """A result back in the traced dtype (the same bits for unsigned and bool)."""
    if array.dtype == dtype:
        return array
    if dtype.kind in "ub" and array.dtype.itemsize == dtype.itemsize:
        return array.view(dtype)
    return array.astype(dtype)
