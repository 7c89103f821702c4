"""`tj.py_function(func, inp, Tout)`: call Python on NumPy arrays at run time.

The escape hatch for Python side effects in compiled code: `func` runs on every call,
in program order, through a ctypes callback from the kernel. `Tout` declares the
outputs: a dtype (a 0-d output), a `tj.TensorSpec` with a full shape, a list of
those, or None / [] for no output. Exceptions raised by `func` propagate to the
caller of the compiled function as themselves.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tracejit.frontend.staging import primitives
from tracejit.frontend.staging.source_location import at_user_line
from tracejit.frontend.staging.tensor import Tensor
from tracejit.frontend.staging.tensor_spec import TensorSpec
from tracejit.frontend.staging.tracing import PyFunctionSpec, current_trace, emit, is_tracing
from tracejit.ir.dtypes import tensor_type
from tracejit.ir.state import PyCallOp


def _output_specs(tout: Any) -> tuple[tuple[TensorSpec, ...], bool]:
    """(specs, single) for a Tout given as None, a dtype, a TensorSpec or a list."""
    if tout is None:
        return (), False
    single = not isinstance(tout, list | tuple)
    specs = []
    for entry in [tout] if single else tout:
        spec = entry if isinstance(entry, TensorSpec) else TensorSpec((), entry)
        if spec.shape is None or any(d is None for d in spec.shape):
            raise TypeError(at_user_line("tj.py_function outputs need fully known shapes"))
        specs.append(spec)
    return tuple(specs), single


def py_function(
    func: Callable[..., object],
    inp: Sequence[object],
    Tout: object,  # noqa: N803
    grad: Callable[..., object] | None = None,
) -> Any:
    """Call `func` on `inp` (as NumPy arrays) every time the compiled function runs.

    The escape hatch for what tracejit does not compile: any Python code, side effects
    included, runs on every call, in program order, on the inputs' run-time values.
    Exceptions `func` raises reach the caller of the compiled function as themselves.

    Parameters
    ----------
    func : callable
        Called as `func(*arrays)`; its results are converted to `Tout`.
    inp : sequence
        The inputs: tensors, Variables, arrays or Python numbers.
    Tout : dtype, tj.TensorSpec, list of them, or None
        The outputs: a dtype for one 0-d output, a `tj.TensorSpec` with every dim known, a
        list of those for several outputs; None or [] for none.
    grad : callable, optional
        `grad(*upstreams, *inp)`, traced like the function around it, returns the gradient
        of each input: a py_function has no gradient of its own, and differentiating
        through one without it is an error.

    Returns
    -------
    One value for a single `Tout`, a list for a list, None for no output.

    Raises
    ------
    TypeError
        An output spec has unknown dims.

    Examples
    --------
    >>> def median(x):
    ...     return np.median(x)
    >>> @tj.function
    ... def median_plus_one(x):
    ...     return tj.py_function(median, [x], tj.float64) + 1.0
    >>> median_plus_one(np.array([3.0, 1.0, 2.0]))
    np.float64(3.0)
    """
    specs, single = _output_specs(Tout)
    if not is_tracing():
        return _eager(func, inp, specs, single)
    if grad is not None:
        return _with_gradient(func, inp, Tout, grad)
    from tracejit.frontend.staging.variable import Variable

    inputs = []
    for value in inp:
        if isinstance(value, Variable):
            value = value.value()
        inputs.append(value if isinstance(value, Tensor) else primitives.constant(value))
    name = current_trace().register_py_function(PyFunctionSpec(func, specs))
    types = [tensor_type(s.shape, s.dtype) for s in specs]  # type: ignore[arg-type]  # spec shapes are known (no None rank)
    op = emit(PyCallOp([t.value for t in inputs], types, name))
    results = [Tensor(r) for r in op.outputs]
    if not results:
        return None
    return results[0] if single else results


def _with_gradient(  # noqa: N803
    func, inp: Sequence[object], Tout: object, grad: Callable[..., object]
) -> object:
    from tracejit.frontend.autodiff.custom import custom_gradient

    @custom_gradient
    def call(*inputs: object) -> Any:
        result = py_function(func, inputs, Tout)
        return result, lambda *upstreams: grad(*upstreams, *inputs)

    return call(*inp)


def _eager(func: Callable[..., Any], inp: Sequence[Any], specs, single: bool) -> Any:
    result = func(*(np.asarray(v) for v in inp))
    if not specs:
        return None
    values = [result] if single else list(result)
    arrays = [
        np.asarray(v, dtype=s.dtype).reshape(s.shape) for v, s in zip(values, specs, strict=True)
    ]
    arrays = [a[()] if a.ndim == 0 else a for a in arrays]
    return arrays[0] if single else arrays
