"""The per-call fast path of a ConcreteFunction: a closure built once per trace.

The common call passes plain NumPy arrays, positionally, of the traced dtypes and
shapes. For it, `Function.__call__` tries the fast closure of the trace it used last:
the closure allocates the outputs (`np.empty`, or reused memory for large ones:
buffer_pool.py) and hands the array objects to the
kernel's array-object entry point (`codegen/pyobject_entry.py`), which checks their
count, types, dtypes, ranks, static dims and contiguity itself while reading the data
pointers — no per-argument Python work, no ctypes pointer conversions, no cache key,
no structure rebuilding for one output.

The entry is a METH_FASTCALL builtin returning its last argument on success and the
status (an int) otherwise, or, where that is unavailable, a ctypes function returning
the status (0 on success); `status is out or not status` accepts both.
Anything unusual returns `SLOW_PATH`, and the caller takes the full path, which
converts, checks and explains.
"""

from __future__ import annotations

from collections.abc import Callable
from types import BuiltinFunctionType
from typing import Any

import numpy as np

from tracejit.runtime.buffer_pool import allocator, sized_allocator
from tracejit.runtime.structure import LEAF, unflatten

SLOW_PATH = object()  # "take the slow path" (a new shape, a copy needed, ...)

FastCall = Callable[[tuple], Any]
Adopt = Callable[[np.ndarray, np.dtype], np.ndarray]
ShapesOf = Callable[[tuple], "list[tuple[int, ...]] | None"]
"""The output shapes of a trace with dims unknown at trace time, from the kernel's input
arrays; None when they are not arrays of the traced ranks or break a dim constraint (the
slow path then explains)."""


def expected_types(program: Any) -> list[int]:
    """What the entry point checks: `[id(np.ndarray), id(dtype) per kernel argument]`."""
    dtypes = [s.dtype for s in program.input_specs]
    dtypes += [ref().dtype for ref in program.variables if ref() is not None]
    dtypes += [s.dtype for s in program.output_specs]
    return [id(np.ndarray)] + [id(np.dtype(d)) for d in dtypes]


# Kernels touching fewer elements than this keep the GIL during the call: releasing and
# re-acquiring it costs more than they run. Larger ones release it for other threads.
SMALL_KERNEL_ELEMENTS = 1 << 16


def is_small_kernel(program: Any) -> bool:
    shapes = [s.shape for s in (*program.input_specs, *program.output_specs)]
    if any(shape is None or None in shape for shape in shapes):
        return False
    return sum(int(np.prod(shape, dtype=np.int64)) for shape in shapes) <= SMALL_KERNEL_ELEMENTS


def build_fast_call(
    entry: Any,
    program: Any,
    on_status: Callable[[int], Any],
    adopt: Adopt | None = None,
    shapes_of: ShapesOf | None = None,
) -> FastCall | None:
    """The fast closure for `program`'s kernel entry point, called with the kernel's input
    arrays (the arguments themselves when every argument is one: `input_positions` is then
    0, 1, ...), or None if not applicable. `adopt` turns the descriptor of an array the
    kernel allocated (`program.exported`) into that array (frontend/api/kernel_outputs.py).
    `shapes_of` computes the output shapes of a trace with unknown dims (given only then)."""
    if entry is None or (program.exported and adopt is None):
        return None
    count = len(program.input_positions)  # the ctypes entry does not check the count
    specs = [(tuple(s.shape), np.dtype(s.dtype)) for s in program.output_specs]
    if shapes_of is not None:
        return _unknown_dims_call(entry, program, specs, on_status, adopt, shapes_of)
    if program.written_inputs:
        return _writing_call(entry, program, specs, on_status)
    variables = list(program.variables)
    exported = bool(program.exported)
    if not variables and not exported and _is_single(program, specs):
        return _single_array_call(entry, count, specs[0], on_status)
    finish = _finisher(program, specs, adopt)
    allocations = [(allocator(shape, dtype), shape, dtype) for shape, dtype in specs]

    def call(args: tuple) -> Any:
        if len(args) != count:
            return SLOW_PATH
        buffers = _variable_buffers(variables)
        if buffers is None:
            return SLOW_PATH  # the slow path raises FailedPreconditionError
        outs = [empty(shape, dtype) for empty, shape, dtype in allocations]
        arrays = (*args, *buffers, *outs)
        status = entry(*arrays)
        if status is arrays[-1] or not status:
            return finish(outs)
        return on_status(status)

    return call


def _unknown_dims_call(
    entry: Any, program: Any, specs: list, on_status, adopt: Adopt | None, shapes_of: ShapesOf
) -> FastCall | None:
    """For a trace with dims unknown at trace time (`reduce_retracing`, an input signature
    with None): the outputs are allocated at the shapes `shapes_of` computes from the
    arguments, and the entry point reads every dim from the arrays themselves. It saves
    the ~25 us the slow path spends binding, checking and converting (a 100-element
    `np.sin(x) * y + 1`: 29 us there, NumPy 2.2 us). Functions writing their arguments
    keep the slow path."""
    if program.written_inputs:
        return None
    count = len(program.input_positions)
    variables = list(program.variables)
    finish = _finisher(program, specs, adopt)
    makers = [sized_allocator(dtype) for _, dtype in specs]
    if not variables and not program.exported and _is_single(program, specs):
        return _single_unknown_dims_call(entry, count, makers[0], not specs[0][0], on_status,
                                         shapes_of)  # fmt: skip

    def call(args: tuple) -> Any:
        if len(args) != count:
            return SLOW_PATH
        shapes = shapes_of(args)
        buffers = _variable_buffers(variables)
        if shapes is None or buffers is None:
            return SLOW_PATH
        outs = list(map(_make, makers, shapes))
        arrays = (*args, *buffers, *outs)
        status = entry(*arrays)
        if status is arrays[-1] or not status:
            return finish(outs)
        return on_status(status)

    return call


def _single_unknown_dims_call(
    entry: Any, count: int, make: Callable, scalar: bool, on_status, shapes_of: ShapesOf
) -> FastCall:
    """The commonest case with unknown dims: arrays in, one array (or NumPy scalar) out."""

    def call(args: tuple) -> Any:
        if len(args) != count:
            return SLOW_PATH
        shapes = shapes_of(args)
        if shapes is None:
            return SLOW_PATH
        out = make(shapes[0])
        status = entry(*args, out)
        if status is out or not status:
            return out[()] if scalar else out
        return on_status(status)

    return call


def _finisher(program: Any, specs: list, adopt: Adopt | None) -> Callable[[list], Any]:
    """How a call makes its result from the kernel's outputs."""
    if program.exported:
        return _outputs(program, specs, adopt)
    if _is_single(program, specs):
        return _single_output(specs)
    return _outputs(program, specs)


def _variable_buffers(variables: list) -> list | None:
    """The captured Variables' buffers, or None if one no longer exists."""
    buffers = []
    for ref in variables:
        variable = ref()
        if variable is None:
            return None
        buffers.append(variable._buffer)
    return buffers


def _make(maker: Callable[[tuple[int, ...]], np.ndarray], shape: tuple[int, ...]) -> np.ndarray:
    return maker(shape)


def _writing_call(entry: Any, program: Any, specs: list, on_status) -> FastCall:
    """A function that writes its argument arrays (`x += A @ y`): the kernel returns their
    final values as extra outputs (argument_writes.py), copied into the caller's arrays
    after it succeeds. A written array that is read-only or shares memory with another
    argument takes the slow path, which refuses it with the reason."""
    count = len(program.input_positions)
    written = list(program.written_inputs)  # kernel inputs: the arguments themselves here
    others = [[j for j in range(count) if j != k] for k in written]
    variables = list(program.variables)
    results = program.result_count
    kept = specs[:results]
    finish = _single_output(kept) if _is_single(program, kept) else _outputs(program, kept)
    allocations = [(allocator(shape, dtype), shape, dtype) for shape, dtype in specs]

    def call(args: tuple) -> Any:
        if len(args) != count or not _writable_alone(args, written, others):
            return SLOW_PATH
        buffers = _variable_buffers(variables)
        if buffers is None:
            return SLOW_PATH
        outs = [empty(shape, dtype) for empty, shape, dtype in allocations]
        arrays = (*args, *buffers, *outs)
        status = entry(*arrays)
        if status is not arrays[-1] and status:
            return on_status(status)
        for k, value in zip(written, outs[results:], strict=True):
            np.copyto(args[k], value, casting="unsafe")
        return finish(outs[:results])

    return call


def _writable_alone(args: tuple, written: list[int], others: list[list[int]]) -> bool:
    """Whether each written argument is a writable array sharing no memory with another
    argument. Two arrays that each own their memory are apart without asking
    np.may_share_memory (~0.2 us a pair: 3 us of a 9 us call with 2 written of 5)."""
    owned = [type(a) is np.ndarray and a.flags.owndata for a in args]
    for k, rest in zip(written, others, strict=True):
        target = args[k]
        if type(target) is not np.ndarray or not target.flags.writeable:
            return False
        for j in rest:
            other = args[j]
            if other is target:
                return False
            if not (owned[k] and owned[j]) and np.may_share_memory(target, other):
                return False
    return True


def _single_array_call(entry: object, count: int, spec: tuple, on_status) -> FastCall:
    """The commonest case, kept minimal: arrays in, one array (or NumPy scalar) out."""
    shape, dtype = spec
    empty = allocator(shape, dtype)
    if not isinstance(entry, BuiltinFunctionType):  # ctypes: the count is checked here
        return _single_array_ctypes_call(entry, count, spec, on_status)
    if shape:

        def call(args: tuple) -> object:
            out = empty(shape, dtype)
            status = entry(*args, out)
            return out if status is out else on_status(status)

        return call

    def call_scalar(args: tuple) -> object:
        out = empty(shape, dtype)
        status = entry(*args, out)
        return out[()] if status is out else on_status(status)

    return call_scalar


def _single_array_ctypes_call(entry: Any, count: int, spec: tuple, on_status) -> FastCall:
    shape, dtype = spec
    empty = allocator(shape, dtype)
    scalar = not shape

    def call(args: tuple) -> Any:
        if len(args) != count:
            return SLOW_PATH
        out = empty(shape, dtype)
        status = entry(*args, out)
        if status:
            return on_status(status)
        return out[()] if scalar else out

    return call


# The Python values a fast call checks against the trace's (`with_python_values`).
PYTHON_NUMBERS = (bool, int, float, complex)


def with_python_values(
    kernel_call: FastCall, program: Any, values: dict[int, Any], key_of: Callable
) -> FastCall:
    """`kernel_call` for calls that pass Python numbers too (`f(x, 0.5)`: a value of the
    trace, not a kernel input): each must be of the trace's type and equal to its value
    (`values`), and a zero or NaN must have the trace's key (`key_of`, the cache key of one
    leaf: -0.0 == 0.0); the arrays at `input_positions` go to the kernel."""
    positions = list(program.input_positions)
    count = len(positions) + len(values)
    checks = [(i, type(v), v, key_of(v) if v == 0 or v != v else None) for i, v in values.items()]

    def call(args: tuple) -> Any:
        if len(args) != count:
            return SLOW_PATH
        for i, kind, value, key in checks:
            given = args[i]
            if type(given) is not kind or not (given == value or key is not None):
                return SLOW_PATH
            if key is not None and key_of(given) != key:
                return SLOW_PATH
        return kernel_call(tuple(args[i] for i in positions))

    return call


def with_numpy_scalars(kernel_call: FastCall, program: Any) -> FastCall:
    """`kernel_call` for a trace made with NumPy scalars (`f(x, np.float64(0.5))`, which the
    guide recommends over Python numbers: a tensor input, not a value of the trace) at its
    `scalar_inputs`: a call must pass NumPy scalars there (a 0-d array, which a write
    changes in place, has its own trace), which become 0-d arrays for the entry point; they
    took the slow path before (24 us for `a * c` on 100 elements, NumPy 0.5 us)."""
    scalars = sorted(getattr(program, "scalar_inputs", ()))  # exports made before it: none
    if not scalars:
        return kernel_call

    def call(args: tuple) -> Any:
        if len(args) <= scalars[-1]:
            return SLOW_PATH
        converted = list(args)
        for k in scalars:
            if not isinstance(args[k], np.generic):
                return SLOW_PATH
            converted[k] = np.asarray(args[k])
        return kernel_call(tuple(converted))

    return call


def takes_copies(program: Any) -> bool:
    """Whether a call of `program`'s fast path may pass C-contiguous copies of strided
    arguments (`retry_with_copies`): not for a trace that writes its inputs (the writes
    must reach the arguments: the slow path copies them back) or relies on an input's
    reshape being a view (the slow path refuses that)."""
    return not program.written_inputs and not program.layout_dependent_inputs


def retry_with_copies(fast: FastCall, args: tuple) -> Any:
    """`fast` again, after it returned SLOW_PATH, with C-contiguous copies of the arrays
    that are not (a transpose, a strided slice, a Fortran-ordered array), which the entry
    point refuses: the slow path, which copies them too, cost ~30 us more per call. Only
    after a failure, so the common call pays nothing for it."""
    if not any(_strided(a) for a in args):
        return SLOW_PATH
    return fast(tuple(np.ascontiguousarray(a) if _strided(a) else a for a in args))


def _strided(value: object) -> bool:
    return type(value) is np.ndarray and not value.flags.c_contiguous


def _is_single(program: Any, specs: list) -> bool:
    return program.output_treedef == LEAF and len(specs) == 1


def _single_output(specs: list) -> Callable[[list], object]:
    scalar = len(specs[0][0]) == 0
    return (lambda outs: outs[0][()]) if scalar else (lambda outs: outs[0])


def _outputs(program: Any, specs: list, adopt: Adopt | None = None) -> Callable[[list], Any]:
    positions, template, treedef = (
        program.output_positions,
        program.output_leaves,
        program.output_treedef,
    )
    exported = dict(program.exported)

    def finish(outs: list) -> Any:
        results = list(template)
        for k, (position, out) in enumerate(zip(positions, outs, strict=True)):
            if k in exported:
                out = adopt(out, exported[k])  # type: ignore[misc]  # given with exported
            results[position] = out[()] if out.ndim == 0 else out
        return unflatten(treedef, results)

    return finish
