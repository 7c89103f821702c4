"""Tracing: run a Python function on symbolic tensors and record a `func.func`.

The argument leaves that are arrays (or TensorSpecs) become the function's block
arguments; every other leaf is passed through as the Python value itself, so it is
baked into the trace. Tensor leaves of the result become the function's results;
other result leaves are kept as Python values and handed back as they are.
"""

from __future__ import annotations

import inspect
import re
import weakref
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType, ModuleOp, StringAttr

from tracejit.frontend import numpy_api  # noqa: F401  (registers the NumPy functions)
from tracejit.frontend.api.cache_key import is_tensor_leaf, spec_of
from tracejit.frontend.api.kernel_outputs import exported_outputs
from tracejit.frontend.staging import non_strict, numpy_locals, primitives
from tracejit.frontend.staging.dims import DimSource, Unknown
from tracejit.frontend.staging.source_location import at_user_line
from tracejit.frontend.staging.tensor import Tensor
from tracejit.frontend.staging.tensor_spec import TensorSpec
from tracejit.frontend.staging.tracing import TraceContext, tracing
from tracejit.ir.dtypes import SUPPORTED_DTYPES, UnsupportedDtypeError, tensor_type
from tracejit.runtime.structure import TreeDef, flatten, unflatten


@dataclass
class TracedProgram:
    """The result of one trace: the module and how to map values in and out of it."""

    module: ModuleOp
    function_name: str
    input_specs: list[TensorSpec]  # one per tensor argument leaf, in order
    input_positions: list[int]  # where those leaves sit among all argument leaves
    output_treedef: TreeDef
    output_leaves: list[Any]  # Python values, or None where a kernel output goes
    output_positions: list[int]  # which output leaves come from the kernel
    output_specs: list[TensorSpec]
    variables: list[Any] = field(default_factory=list)  # weakrefs to captured tj.Variables
    py_functions: dict[str, object] = field(default_factory=dict)
    created_variables: list[Any] = field(default_factory=list)  # created while tracing: owned
    # Dims unknown at trace time (frontend/staging/dims.py): each output's dims, and the pairs of
    # input dims that must be equal when the kernel runs.
    output_dims: list[tuple] = field(default_factory=list)
    dim_constraints: list[tuple] = field(default_factory=list)
    # Outputs the kernel allocates (shape known only at run time): output index -> dtype;
    # the kernel returns their descriptors (frontend/api/kernel_outputs.py).
    exported: dict[int, np.dtype] = field(default_factory=dict)
    # Inputs (indices into input_specs) the function writes: their final values are the
    # last outputs, copied back into the caller's arrays (frontend/api/argument_writes.py).
    written_inputs: list[int] = field(default_factory=list)
    # Inputs whose reshapes the function writes through or reads after writing the input
    # (frontend/staging/views.py): views only of a C-contiguous array, as in NumPy, so a
    # call passing another layout there is refused. Input index -> the user's line.
    layout_dependent_inputs: dict[int, str] = field(default_factory=dict)
    # Inputs (indices into input_specs) traced from NumPy scalars, immutable where a 0-d
    # array is not: a call passes a NumPy scalar there, and a 0-d array has its own trace
    scalar_inputs: frozenset[int] = frozenset()

    @property
    def result_count(self) -> int:
        """The kernel outputs that are the function's results (the rest are written inputs)."""
        return len(self.output_positions)

    @property
    def has_unknown_dims(self) -> bool:
        return bool(self.dim_constraints or self.exported) or any(
            not isinstance(d, int) for dims in self.output_dims for d in dims
        )


def symbol_name(name: str) -> str:
    cleaned = re.sub(r"\W", "_", name)
    return cleaned if cleaned and not cleaned[0].isdigit() else f"f_{cleaned}"


def trace(
    python_function: object,
    signature: inspect.Signature,
    names: list[str],
    leaves: list[Any],
    treedef: TreeDef,
    attributes: dict[str, str] | None = None,
    scalar_inputs: frozenset[int] = frozenset(),
) -> TracedProgram:
    """Trace `python_function` called with the bound arguments `unflatten(treedef, leaves)`.

    `attributes` are set on the traced `func.func` (e.g. `tj.implements`). `scalar_inputs`:
    the leaves that stand for NumPy scalars (np.float64(2.0), ...), which are immutable:
    `x += 1` on one rebinds the name, where on a 0-d array it writes the array."""
    positions = [i for i, leaf in enumerate(leaves) if is_tensor_leaf(leaf)]
    specs = [spec_of(leaves[i]) for i in positions]
    for spec in specs:
        if spec.shape is None:
            raise NotImplementedError(
                "tracing with an unknown rank (TensorSpec(shape=None)) is not supported yet"
            )
    for index, spec in zip(positions, specs, strict=True):
        what = f"argument '{names[index]}'" if len(leaves) == len(names) else f"input {index + 1}"
        _check_dtype(spec.dtype, what)
    input_types = [tensor_type(s.shape, s.dtype) for s in specs]  # type: ignore[arg-type]  # spec shapes are known (no None rank)
    name = symbol_name(getattr(python_function, "__name__", "function"))
    function = func.FuncOp(name, (input_types, []))
    for attr_name, value in (attributes or {}).items():
        function.attributes[attr_name] = StringAttr(value)
    module = ModuleOp([])
    context = TraceContext(module, function)

    symbolic = list(leaves)
    context.inputs = list(function.body.block.args)
    with tracing(context):
        for index, (position, arg) in enumerate(zip(positions, context.inputs, strict=True)):
            shape = specs[index].shape
            assert shape is not None  # a traced input's rank is known
            symbolic[position] = Tensor(arg, dims=_input_dims(index, shape))
        arguments = [symbolic[position] for position in positions]
        for position, argument in zip(positions, arguments, strict=True):
            # a 0-d array argument is written by `x += 1`; a NumPy scalar is not (`y = x;
            # y -= 1` leaves x as it was, as in Python)
            argument._is_array = position not in scalar_inputs
        context.argument_indices = {id(a): k for k, a in enumerate(arguments)}
        given = unflatten(treedef, symbolic)
        outputs = non_strict.call_traced(python_function, signature, names, given)
        if context.refusals:  # raised in a `try`, whose handler may have caught them
            raise context.refusals[0]
        out_leaves, out_treedef = flatten(outputs)
        out_positions, results = [], []
        for i, leaf in enumerate(out_leaves):
            if isinstance(leaf, np.ndarray | np.generic):
                _check_dtype(leaf.dtype, f"returned NumPy value {i + 1} (shape {np.shape(leaf)})")
                leaf = primitives.constant(leaf)
            if isinstance(leaf, Tensor):
                out_positions.append(i)
                results.append(leaf)
                out_leaves[i] = None
        written = [k for k, t in enumerate(arguments) if t._value is not context.inputs[k]]
        results += [Tensor(arguments[k].value, arguments[k].dims) for k in written]
        results, exported = exported_outputs(results)
        returned = [t.value for t in results]
        context.emit(func.ReturnOp(*returned))
        context.insert_read_guards()
        numpy_locals.refuse_changed_shared_arrays(context)
        non_strict.finish(context)  # errors of used results raise; unused ones are dropped

    argument_types = [a.type for a in function.body.block.args]  # inputs, then Variables
    # the returned values' types, not `t.value`'s now: a view's value is made again when
    # read, which, in a trace calling this one, would be an op of the calling trace
    function.function_type = FunctionType.from_lists(argument_types, [v.type for v in returned])
    module.body.block.add_op(function)
    return TracedProgram(
        module=module,
        function_name=name,
        input_specs=specs,
        input_positions=positions,
        output_treedef=out_treedef,
        output_leaves=out_leaves,
        output_positions=out_positions,
        output_specs=[TensorSpec(t.shape, t.dtype) for t in results],
        output_dims=[_output_dims(t) for t in results],
        dim_constraints=list(dict.fromkeys(context.dim_constraints)),
        variables=[weakref.ref(v) for v in context.variables],
        py_functions=dict(context.py_functions),
        created_variables=list(context.created_variables),
        exported=exported,
        written_inputs=written,
        layout_dependent_inputs=dict(context.layout_dependent_inputs),
        scalar_inputs=frozenset(k for k, i in enumerate(positions) if i in scalar_inputs),
    )


def _check_dtype(dtype: np.dtype, what: str) -> None:
    if np.dtype(dtype) not in SUPPORTED_DTYPES:
        error = UnsupportedDtypeError(dtype)
        raise UnsupportedDtypeError(dtype, at_user_line(f"{what}: {error}"))


def _input_dims(index: int, shape: tuple) -> tuple:
    return tuple(DimSource(index, axis) if d is None else d for axis, d in enumerate(shape))


def _output_dims(tensor: Tensor) -> tuple:
    if any(isinstance(d, Unknown) for d in tensor.dims):
        raise NotImplementedError(
            at_user_line(
                f"an output of shape {tensor.shape} has a dim whose run-time size tracejit "
                "cannot compute from the input shapes"
            )
        )
    return tuple(tensor.dims)
