"""tracejit: tf.function for NumPy code, compiled through an xDSL dialect and LLVM.

import numpy as np
import tracejit as tj

@tj.function
def f(x, y):
    return x ** 2 + y

f(np.array([2, 3]), np.array([3, -2]))   # array([7, 7])
"""

import importlib
from typing import TYPE_CHECKING, Any

import numpy as _np

from tracejit.runtime.errors import FailedPreconditionError, InvalidArgumentError

if TYPE_CHECKING:  # what type checkers and editors see; at run time the names load on first use
    from tracejit.frontend import autograph
    from tracejit.frontend.api import config, optimizers
    from tracejit.frontend.api.concrete_function import ConcreteFunction, Graph
    from tracejit.frontend.api.function import Function, function
    from tracejit.frontend.api.module import Module
    from tracejit.frontend.api.py_function import py_function
    from tracejit.frontend.api.retracing import RetracingWarning
    from tracejit.frontend.api.transforms import grad, value_and_grad
    from tracejit.frontend.autodiff import GradientTape, custom_gradient
    from tracejit.frontend.autograph.index_loops import LoopUnrolledWarning
    from tracejit.frontend.export import saved_model
    from tracejit.frontend.staging import debugging
    from tracejit.frontend.staging.control_flow import Range as range  # noqa: A001
    from tracejit.frontend.staging.control_flow import cond, while_loop
    from tracejit.frontend.staging.printing import print_ as print  # noqa: A001
    from tracejit.frontend.staging.tensor import Tensor
    from tracejit.frontend.staging.tensor_array import TensorArray
    from tracejit.frontend.staging.tensor_spec import TensorSpec
    from tracejit.frontend.staging.trace_warnings import FrozenRandomWarning
    from tracejit.frontend.staging.variable import Variable

# Public name -> (module, attribute; None for the module itself). `import tracejit` stays cheap
# (the tracer, NumPy API and autodiff are ~0.4 s of imports) so that `tracejit-opt` on an .mlir
# file, which needs only ir/, passes/ and codegen/, starts fast; the first use of a name below
# imports its module (PEP 562).
_LAZY: dict[str, tuple[str, str | None]] = {
    "autograph": ("tracejit.frontend.autograph", None),
    "config": ("tracejit.frontend.api.config", None),
    "debugging": ("tracejit.frontend.staging.debugging", None),
    "optimizers": ("tracejit.frontend.api.optimizers", None),
    "saved_model": ("tracejit.frontend.export.saved_model", None),
    "GradientTape": ("tracejit.frontend.autodiff", "GradientTape"),
    "custom_gradient": ("tracejit.frontend.autodiff", "custom_gradient"),
    "grad": ("tracejit.frontend.api.transforms", "grad"),
    "value_and_grad": ("tracejit.frontend.api.transforms", "value_and_grad"),
    "LoopUnrolledWarning": ("tracejit.frontend.autograph.index_loops", "LoopUnrolledWarning"),
    "ConcreteFunction": ("tracejit.frontend.api.concrete_function", "ConcreteFunction"),
    "Graph": ("tracejit.frontend.api.concrete_function", "Graph"),
    "range": ("tracejit.frontend.staging.control_flow", "Range"),
    "cond": ("tracejit.frontend.staging.control_flow", "cond"),
    "while_loop": ("tracejit.frontend.staging.control_flow", "while_loop"),
    "Function": ("tracejit.frontend.api.function", "Function"),
    "function": ("tracejit.frontend.api.function", "function"),
    "Module": ("tracejit.frontend.api.module", "Module"),
    "print": ("tracejit.frontend.staging.printing", "print_"),
    "py_function": ("tracejit.frontend.api.py_function", "py_function"),
    "RetracingWarning": ("tracejit.frontend.api.retracing", "RetracingWarning"),
    "Tensor": ("tracejit.frontend.staging.tensor", "Tensor"),
    "TensorArray": ("tracejit.frontend.staging.tensor_array", "TensorArray"),
    "TensorSpec": ("tracejit.frontend.staging.tensor_spec", "TensorSpec"),
    "FrozenRandomWarning": ("tracejit.frontend.staging.trace_warnings", "FrozenRandomWarning"),
    "Variable": ("tracejit.frontend.staging.variable", "Variable"),
}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'tracejit' has no attribute {name!r}")
    module_name, attribute = _LAZY[name]
    module = importlib.import_module(module_name)
    value = module if attribute is None else getattr(module, attribute)
    globals()[name] = value  # later lookups skip __getattr__
    return value


def __dir__() -> list[str]:
    """The public API only (not the modules and helpers this file imports)."""
    return sorted(__all__)


class errors:  # noqa: N801  (a namespace, like tf.errors)
    """Run-time errors of compiled functions (both subclass ValueError), as `tf.errors`.

    `InvalidArgumentError`: an input or run-time value is invalid (an argument that does not
    match the trace, a failed `tj.debugging` assertion, an index out of bounds).
    `FailedPreconditionError`: the function cannot run in its state (a Variable it uses is
    gone).
    """

    InvalidArgumentError = InvalidArgumentError
    FailedPreconditionError = FailedPreconditionError


bool_ = _np.bool_
int8, int16, int32, int64 = _np.int8, _np.int16, _np.int32, _np.int64
uint8, uint16, uint32, uint64 = _np.uint8, _np.uint16, _np.uint32, _np.uint64
float16, float32, float64 = _np.float16, _np.float32, _np.float64
complex64, complex128 = _np.complex64, _np.complex128

__all__ = [
    "ConcreteFunction",
    "GradientTape",
    "custom_gradient",
    "grad",
    "value_and_grad",
    "optimizers",
    "FrozenRandomWarning",
    "Function",
    "RetracingWarning",
    "LoopUnrolledWarning",
    "Graph",
    "Module",
    "Tensor",
    "TensorArray",
    "TensorSpec",
    "Variable",
    "debugging",
    "print",
    "py_function",
    "cond",
    "autograph",
    "config",
    "saved_model",
    "range",
    "while_loop",
    "errors",
    "function",
    "bool_",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float16",
    "float32",
    "float64",
    "complex64",
    "complex128",
]
