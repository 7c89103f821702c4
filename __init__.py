"""tracejit: tf.function for NumPy code, compiled through an xDSL dialect and LLVM.

import numpy as np
import tracejit as tj

@tj.function
def f(x, y):
    return x ** 2 + y

f(np.array([2, 3]), np.array([3, -2]))   # array([7, 7])
"""

import numpy as _np

from tracejit.frontend import autograph, config, debugging, optimizers, saved_model
from tracejit.frontend.autodiff import GradientTape, custom_gradient, grad, value_and_grad
from tracejit.frontend.autograph.index_loops import LoopUnrolledWarning
from tracejit.frontend.concrete_function import ConcreteFunction, Graph
from tracejit.frontend.control_flow import Range as range  # noqa: A001
from tracejit.frontend.control_flow import cond, while_loop
from tracejit.frontend.errors import FailedPreconditionError, InvalidArgumentError
from tracejit.frontend.function import Function, function
from tracejit.frontend.module import Module
from tracejit.frontend.printing import print_ as print  # noqa: A001
from tracejit.frontend.py_function import py_function
from tracejit.frontend.retracing import RetracingWarning
from tracejit.frontend.tensor import Tensor
from tracejit.frontend.tensor_array import TensorArray
from tracejit.frontend.tensor_spec import TensorSpec
from tracejit.frontend.trace_warnings import FrozenRandomWarning
from tracejit.frontend.variable import Variable


class errors:  # noqa: N801  (a namespace, like tf.errors)
    """Run-time errors of compiled functions (both subclass ValueError)."""

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
