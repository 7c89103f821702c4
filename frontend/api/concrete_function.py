"""`tj.ConcreteFunction`: one trace, compiled to machine code, callable on arrays.

Compilation is lazy: the first call (or the first look at `llvm_ir` / `asm`) runs the pass
pipeline and LLVM -- or, with tiered execution (`tiered.py`), the first call is interpreted
with NumPy while the compile runs in a background thread, which later calls wait for. The
call path then checks each input's dtype and shape, makes it C-contiguous, allocates the
outputs with `np.empty` and calls the kernel with the buffers' addresses (the ABI in
`codegen/abi.py`: inputs, then outputs); a non-zero status from the kernel becomes the
exception its check names.
"""

from __future__ import annotations

import inspect
import threading
import time
from typing import TYPE_CHECKING, Any

import numpy as np
from xdsl.dialects.builtin import TensorType

from tracejit.compiler import compile_log, driver
from tracejit.frontend.api import tiered
from tracejit.frontend.api.argument_writes import check_writable, copy_back
from tracejit.frontend.api.cache_key import IdentityKey, is_tensor_leaf, leaf_key, native
from tracejit.frontend.api.kernel_outputs import adopt
from tracejit.frontend.api.pickling_hooks import PICKLING
from tracejit.frontend.api.signature_format import named_leaves, pretty_signature, split_arguments
from tracejit.frontend.api.trace_function import TracedProgram
from tracejit.frontend.api.trace_record import TraceRecord
from tracejit.frontend.autodiff.tape import recording_in
from tracejit.frontend.staging import array_subclasses, primitives
from tracejit.frontend.staging import variable as tj_variable
from tracejit.frontend.staging.dims import UNKNOWN, DimSource, Product, Sliced, Sum, resolve
from tracejit.frontend.staging.source_location import at_user_line
from tracejit.frontend.staging.tensor import Tensor
from tracejit.frontend.staging.tensor_spec import TensorSpec
from tracejit.frontend.staging.tracing import TraceContext, current_trace, emit
from tracejit.frontend.staging.views import assign, rely_on_c_order
from tracejit.ir.runtime_contract import CALLBACK_ERROR, ENTRY_POINT_ANSWERS
from tracejit.runtime import buffer_pool
from tracejit.runtime.errors import FailedPreconditionError, InvalidArgumentError
from tracejit.runtime.fast_path import (
    PYTHON_NUMBERS,
    SLOW_PATH,
    FastCall,
    ShapesOf,
    build_fast_call,
    expected_types,
    is_small_kernel,
    retry_with_copies,
    takes_copies,
    with_numpy_scalars,
    with_python_values,
)
from tracejit.runtime.runtime_errors import raise_for_status
from tracejit.runtime.structure import TreeDef, flatten, leaf_owner, unflatten

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from xdsl.dialects import func
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.ir import Attribute

    from tracejit.codegen.jit import JitModule
    from tracejit.compiler.ir_display import HighlightedIR
    from tracejit.runtime.callbacks import CallbackSet


class Graph:
    """The traced module of a ConcreteFunction (`str(graph)` is its IR).

    `module` is the xDSL `ModuleOp` as traced, before any pass: the `tj` dialect's ops,
    one per NumPy operation, in a `func.func` named `function_name`.

    >>> @tj.function
    ... def f(x):
    ...     return np.exp(x) + 1.0
    >>> print(f.get_concrete_function(tj.TensorSpec([2], tj.float32)).graph)
    builtin.module {
      func.func @f(%0: tensor<2xf32>) -> tensor<2xf32> {
        %1 = tj.exp %0 : tensor<2xf32>
        %2 = tj.constant dense<1.000000e+00> : tensor<f32>
        %3 = tj.broadcast_in_dim %2, dims = [] : tensor<f32> to tensor<2xf32>
        %4 = tj.add %1, %3 : tensor<2xf32>
        func.return %4 : tensor<2xf32>
      }
    }
    """

    def __init__(self, program: TracedProgram):
        self.module = program.module
        self.function_name = program.function_name

    def __str__(self) -> str:
        return str(self.module)

    def _repr_html_(self) -> str:
        """Jupyter's display: the dataflow graph (see `ConcreteFunction._repr_html_`)."""
        from tracejit.compiler import ir_display

        return ir_display.graph_html(self.module, f"graph of {self.function_name}")


class ConcreteFunction:
    """One trace of a `tj.Function` for one input signature, and its machine code.

    Made by a `tj.Function` (its calls, `get_concrete_function`); not constructed directly.
    Calling it runs the compiled kernel on arguments that match its signature exactly
    (same dtypes; same sizes where the trace has them, any size for a `None` dim); the
    machine code is compiled on the first call (or the first look at `ir`, `llvm_ir`,
    `asm`). It shows what the compiler made of the function at every stage: `graph` (the
    traced `tj` IR), `ir(after=pass)`, `llvm_ir`, `asm`. In Jupyter it displays as its
    traced graph (`_repr_html_`).

    Raises
    ------
    tj.errors.InvalidArgumentError
        (when called) an argument's dtype or shape does not match the trace, or a run-time
        check of the kernel failed.
    TypeError
        (when called) the arguments' structure, or a Python value the trace was made with,
        differs.

    Examples
    --------
    >>> @tj.function
    ... def scale(x, factor):
    ...     return x * factor
    >>> c = scale.get_concrete_function(tj.TensorSpec([None], tj.float32), 2.0)
    >>> c
    ConcreteFunction scale(x, factor)
    Input Parameters:
      x (POSITIONAL_OR_KEYWORD): TensorSpec(shape=(None,), dtype=float32, name=None)
      factor (POSITIONAL_OR_KEYWORD): Literal[2.0]
    Output Type:
      TensorSpec(shape=(None,), dtype=float32, name=None)
    Captures:
      None
    >>> c(np.array([1, 2, 3], np.float32))  # a traced Python value may be left out
    array([2., 4., 6.], dtype=float32)
    >>> c(np.array([1.0, 2.0, 3.0]))
    Traceback (most recent call last):
    ...
    tracejit.runtime.errors.InvalidArgumentError: input 0 has dtype float64 and shape (3,), but
    this ConcreteFunction expects TensorSpec(shape=(None,), dtype=float32, name=None)
    """

    def __init__(
        self,
        program: TracedProgram,
        signature: inspect.Signature,
        names: list[str],
        arg_treedef: TreeDef,
        arg_leaves: list[object],
        pipeline: tuple[str, ...] = driver.DEFAULT_PIPELINE,
    ):
        # Python values of the trace; other objects only through their weak identity key,
        # so a trace never keeps an argument object alive.
        static_keys = {
            i: leaf_key(leaf) for i, leaf in enumerate(arg_leaves) if not is_tensor_leaf(leaf)
        }
        static_leaves = {
            i: key if isinstance(key, IdentityKey) else arg_leaves[i]
            for i, key in static_keys.items()
        }
        self.record = TraceRecord(
            program, signature, list(names), arg_treedef, static_keys, static_leaves, pipeline
        )
        self.graph = Graph(program)
        self._lock = threading.Lock()
        self._compilation: driver.Compilation | None = None
        self._kernel: Any = None
        self._stages: list[driver.Stage] | None = None  # recorded after compiling to run
        self._messages: list[str] = []
        self._callbacks: Any = None
        self.fast_call: FastCall | None = None  # set when compiled (fast_path.py)
        self.fast_call_copies = False  # whether it may take copies of strided arguments
        self._dynamic_dims: tuple = ()  # (buffer index, axis) of each run-time dim argument
        self.tier = tiered.Tier()  # first call interpreted, compiled in the background

    # --- introspection -------------------------------------------------------------
    @property
    def structured_input_signature(self) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """The arguments this trace takes, as `(args, kwargs)` with a `tj.TensorSpec` (named
        after its parameter) for each array and the traced value for each Python value.

        >>> @tj.function
        ... def power(a, b=2):
        ...     return a ** b
        >>> power.get_concrete_function(tj.TensorSpec([], tj.float32)).structured_input_signature
        ((TensorSpec(shape=(), dtype=float32, name='a'), 2), {})
        """
        record = self.record
        leaves = named_leaves(record.arg_treedef, record.input_leaves(), record.names)
        return split_arguments(record.signature, unflatten(record.arg_treedef, leaves))

    @property
    def structured_outputs(self) -> Any:
        """What a call returns, with a `tj.TensorSpec` for each array (Python values as
        traced), in the structure the function returned.

        >>> @tj.function
        ... def stats(x):
        ...     return {"mean": np.mean(x), "n": len(x)}
        >>> stats.get_concrete_function(tj.TensorSpec([4], tj.float64)).structured_outputs
        {'mean': TensorSpec(shape=(), dtype=float64, name=None), 'n': 4}
        """
        leaves = list(self.record.program.output_leaves)
        program = self.record.program
        for position, spec in zip(
            program.output_positions, program.output_specs[: program.result_count], strict=True
        ):
            leaves[position] = spec
        return unflatten(self.record.program.output_treedef, leaves)

    def pretty_printed_signature(self) -> str:
        """The parameters with their specs or traced values and the output's specs, in
        TensorFlow's layout (its `Captures` section always reads None here).

        >>> @tj.function
        ... def shift(x, by=1):
        ...     return x + by
        >>> print(shift.get_concrete_function(np.ones(2)).pretty_printed_signature())
        Input Parameters:
          x (POSITIONAL_OR_KEYWORD): TensorSpec(shape=(2,), dtype=float64, name=None)
          by (POSITIONAL_OR_KEYWORD): Literal[1]
        Output Type:
          TensorSpec(shape=(2,), dtype=float64, name=None)
        Captures:
          None
        """
        record = self.record
        return pretty_signature(
            record.signature, record.arg_treedef, record.input_leaves(), self.structured_outputs
        )

    def __repr__(self) -> str:
        return f"ConcreteFunction {self.record.call_name()}\n{self.pretty_printed_signature()}"

    # --- notebooks (compiler/ir_display.py) --------------------------------------------
    def _repr_html_(self) -> str:
        """What Jupyter shows for a ConcreteFunction: its signature above its traced graph,
        drawn as SVG when Graphviz's `dot` program is installed, else the traced IR as text
        (highlighted when Pygments is installed, as it is with IPython)."""
        from tracejit.compiler import ir_display

        return ir_display.graph_html(self.graph.module, repr(self))

    def highlighted_ir(self, after: str | None = None) -> HighlightedIR:
        """The IR of a stage, as an object Jupyter displays with syntax highlighting.

        Parameters
        ----------
        after : str, optional
            What `ir` takes (a pass of the pipeline; None: the IR after the last pass), or
            "llvm" for `llvm_ir`, "asm" for `asm`.

        Returns
        -------
        HighlightedIR
            `str()` of it is the text; in a notebook it shows highlighted (HTML).

        Raises
        ------
        ValueError
            `after` is neither a pass of the pipeline nor "llvm" or "asm".

        Examples
        --------
        >>> @tj.function
        ... def f(x):
        ...     return np.exp(x)
        >>> view = f.get_concrete_function(tj.TensorSpec([3], tj.float32)).highlighted_ir(
        ...     after="canonicalize"
        ... )
        >>> print(view)
        builtin.module {
          func.func @f(%0: tensor<3xf32>) -> tensor<3xf32> {
            %1 = tj.exp %0 : tensor<3xf32>
            func.return %1 : tensor<3xf32>
          }
        }
        >>> view._repr_html_().startswith("<div")  # what a notebook shows
        True
        """
        from tracejit.compiler.ir_display import HighlightedIR

        if after == "llvm":
            return HighlightedIR(self.llvm_ir, "llvm")
        if after == "asm":
            return HighlightedIR(self.asm, "asm")
        return HighlightedIR(self.ir(after), "mlir")

    def __reduce__(self) -> tuple:
        """Pickle by value: the traced IR, its signature, the captured Variables' values and,
        once compiled, the object code (`saved_model/pickling.py`, the code `save` uses)."""
        return PICKLING.reduce_concrete(self)

    def ir(self, after: str | None = None) -> str:
        """The IR after the pass named `after` (its first run), or the final lowered IR.

        Asked before the first call, the one compilation records every stage and then also
        serves the calls; asked after it, the passes run again to record them.

        Parameters
        ----------
        after : str, optional
            A pass of the pipeline (`inline`, `canonicalize`, `cse`, `fuse-elementwise`,
            `bufferize`, `lower-to-loops`, ...: `tracejit-opt --list-passes` lists them).
            None: the IR after the last pass, which LLVM compiles.

        Returns
        -------
        str
            The module in MLIR's generic text form (`str(self.graph)` for the traced one).

        Raises
        ------
        ValueError
            `after` is not a pass of this function's pipeline.

        Examples
        --------
        >>> @tj.function
        ... def f(x):
        ...     return x * 2.0 + 1.0
        >>> c = f.get_concrete_function(tj.TensorSpec([4], tj.float64))
        >>> print(c.ir(after="fuse-elementwise"))  # doctest: +ELLIPSIS
        builtin.module {
          func.func @f(%0: tensor<4xf64>) -> tensor<4xf64> {
            %1 = tj.fused ...
        >>> c.ir(after="no-such-pass")
        Traceback (most recent call last):
        ...
        ValueError: pass 'no-such-pass' is not in the pipeline ['inline', 'canonicalize', ...]
        """
        stages = self._lowering_stages()
        if after is None:
            return stages[-1].ir if stages else str(self.graph)
        for stage in stages:
            if stage.pass_name == after:
                return stage.ir
        raise ValueError(f"pass '{after}' is not in the pipeline {list(self.record.pipeline)}")

    @property
    def llvm_ir(self) -> str:
        """The LLVM IR after LLVM's O3 pipeline (compiles first, if need be).

        >>> @tj.function
        ... def f(x):
        ...     return x + 1.0
        >>> "define" in f.get_concrete_function(np.ones(3)).llvm_ir
        True
        """
        return self._compile().jit.optimized_llvm_ir

    @property
    def asm(self) -> str:
        """The host assembly of the kernel (compiles first, if need be).

        >>> @tj.function
        ... def f(x):
        ...     return x + 1.0
        >>> ".globl" in f.get_concrete_function(np.ones(3)).asm
        True
        """
        return self._compile().jit.asm

    @property
    def compilation(self) -> driver.Compilation:
        """What compiling this trace produced (compiler/driver.py): machine code, run-time
        check messages, callbacks, per-pass timings, and the stages when they were recorded.
        Compiles first, if need be.

        >>> @tj.function
        ... def f(x):
        ...     return x * 0.375 + 1.0
        >>> compilation = f.get_concrete_function(np.ones(3)).compilation
        >>> [name for name, seconds in compilation.pass_seconds][:3]
        ['inline', 'canonicalize', 'cse']

        A module this process compiled before is loaded instead (`from_cache`, `from_memo`:
        no passes ran, so `pass_seconds` is empty).
        """
        return self._compile()

    # --- compilation -----------------------------------------------------------------
    def _lowering_stages(self) -> list[driver.Stage]:
        compilation = self._compile(record_stages=True)
        if compilation.stages is not None:
            return compilation.stages
        with self._lock:  # compiled (to run) before the stages were asked for
            if self._stages is None:
                self._stages = driver.lower(
                    self.graph.module, self.record.pipeline, record_stages=True
                ).stages
            return self._stages

    # --- compiling (public for export, pickling and tools: frontend/api/trace_record.py) ---
    @property
    def is_compiled(self) -> bool:
        """Whether the machine code is there (`compilation` compiles it when it is not).

        >>> @tj.function
        ... def f(x):
        ...     return x + 1.0
        >>> c = f.get_concrete_function(np.ones(3))
        >>> c.is_compiled
        False
        >>> _ = c(np.ones(3))
        >>> c.is_compiled
        True
        """
        return self._compilation is not None

    def install_compilation(self, compilation: driver.Compilation) -> None:
        """Call `compilation` from now on (machine code loaded from a SavedModel or a pickle),
        unless this function is compiled already."""
        with self._lock:
            if self._compilation is None:
                self._install(compilation)

    def _compile(self, record_stages: bool = False) -> driver.Compilation:
        if self._compilation is None:
            tiered.wait_for_background_compile(self)  # raises what it raised
        with self._lock:
            if self._compilation is None:
                self._install(self.compile_fresh(record_stages))
        assert self._compilation is not None
        return self._compilation

    def compile_fresh(
        self,
        record_stages: bool = False,
        after_pass: Callable[[str, ModuleOp], None] | None = None,
        background: bool = False,
    ) -> driver.Compilation:
        """Compile this trace anew (logged as a background compile when `background`), without
        installing it: `install_compilation` does. `after_pass` runs after each pass."""
        start = time.perf_counter()
        compilation = driver.compile(
            self.graph.module,
            self.record.pipeline,
            py_functions=self.record.program.py_functions,
            record_stages=record_stages,
            after_pass=after_pass,
        )
        seconds = time.perf_counter() - start
        compile_log.compiled(self.record.call_name(), compilation, seconds, background)
        return compilation

    def _install(self, compilation: driver.Compilation) -> None:
        """Make `compilation` the one this function calls (under `self._lock`; the kernel is
        set last: a call that sees it, in any thread, sees everything else too)."""
        kernel = compilation.jit.kernel(self.record.program.function_name)
        self._dynamic_dims = kernel.signature.dynamic_dims
        self._messages, self._callbacks = compilation.messages, compilation.callbacks
        self.fast_call = self._build_fast_call(compilation.jit)
        self.fast_call_copies = self.fast_call is not None and takes_copies(self.record.program)
        self._compilation = compilation
        self._kernel = kernel.raw

    def _build_fast_call(self, compiled: JitModule) -> FastCall | None:
        if not driver.pyobject_entry_supported() or _has_callbacks(self):
            return None
        shapes_of = None
        if _output_shapes_computed(self.record.program):
            if not self.record.program.input_specs:
                return None
            shapes_of = _shapes_of(self.record.program)
        expected = expected_types(self.record.program)
        release_gil = not is_small_kernel(self.record.program)
        entry = compiled.entry_point(self.record.program.function_name, expected, release_gil)
        program = self.record.program
        on_status = _status_handler(self._messages, self._callbacks)  # not a method: no cycle
        kernel_call = build_fast_call(entry, program, on_status, adopt, shapes_of)
        if kernel_call is not None and not program.written_inputs:
            kernel_call = with_numpy_scalars(kernel_call, program)
        if kernel_call is not None and program.written_inputs:
            kernel_call = _unless_noting(kernel_call)
        statics = self.record.static_keys
        if kernel_call is None or not statics:  # then every argument is a kernel input
            return kernel_call
        flat = all(child.kind == "leaf" for child in self.record.arg_treedef.children)
        values = {i: self.record.static_leaves[i] for i in statics}
        if not flat or any(type(v) not in PYTHON_NUMBERS for v in values.values()):
            return None  # objects are keyed by identity: the slow path checks them
        return with_python_values(kernel_call, program, values, leaf_key)

    # --- calling ---------------------------------------------------------------------
    def __call__(self, *args: object, **kwargs: object) -> Any:
        """Run the kernel on arguments that match this trace (Python values the trace was
        made with may be left out); compiles first, if need be. See the class docstring."""
        if not kwargs and self.fast_call is not None:
            result = self.fast_call(args)
            if result is SLOW_PATH and self.fast_call_copies:
                result = retry_with_copies(self.fast_call, args)
            if result is not SLOW_PATH:
                return result
        try:
            bound = self.record.signature.bind_partial(*args, **kwargs)
            self._fill_traced_python_values(bound)
            bound = self.record.signature.bind(*bound.args, **bound.kwargs)
        except TypeError as error:
            raise TypeError(f"{self.record.call_name()}: {error}") from None
        bound.apply_defaults()
        leaves, treedef = flatten(tuple(bound.arguments.values()))
        if treedef != self.record.arg_treedef:
            raise TypeError(
                f"ConcreteFunction {self.record.call_name()} was called with arguments of a "
                "different structure than it was traced with"
            )
        self._check_python_values(leaves)
        return self.call_leaves(leaves)

    def _fill_traced_python_values(self, bound: inspect.BoundArguments) -> None:
        """Arguments traced as plain Python values may be omitted: `square(x)` for a trace
        of `pow(a, b=2)`, as with tf.function's concrete functions."""
        position = 0
        for name, child in zip(self.record.names, self.record.arg_treedef.children, strict=False):
            if name not in bound.arguments and child.kind == "leaf":
                value = self.record.static_leaves.get(position)
                if isinstance(value, IdentityKey):  # an object (an optimizer): if alive
                    value = value.strong if value.ref is None else value.ref()
                    if value is None:
                        continue
                if position in self.record.static_leaves:
                    bound.arguments[name] = value
            position += child.num_leaves

    def _check_python_values(self, leaves: list[object]) -> None:
        for i, key in self.record.static_keys.items():
            if leaf_key(leaves[i]) != key:
                old, new = self.record.static_leaves[i], leaves[i]
                raise TypeError(
                    f"ConcreteFunction {self.record.call_name()} was constructed with "
                    f"{type(old).__name__} value {old!r} in {self._leaf_name(i)}, but was "
                    f"called with {type(new).__name__} value {new!r}"
                )

    def _leaf_name(self, index: int) -> str:
        return leaf_owner(self.record.arg_treedef, self.record.names, index)

    def call_leaves(self, leaves: list[Any]) -> Any:
        """Run the kernel on the argument leaves (Python leaves already match the trace)."""
        program = self.record.program
        inputs = [
            _checked_input(leaves[i], spec, i, program.layout_dependent_inputs.get(k))
            for k, (i, spec) in enumerate(
                zip(program.input_positions, program.input_specs, strict=True)
            )
        ]
        if self._kernel is None:
            interpreted = tiered.interpret_first_call(self, inputs)
            if interpreted is not None:
                return self._results(leaves, interpreted)
            self._compile()
        if program.written_inputs:
            check_writable(program, leaves, self.record.call_name())
        if tj_variable.noting:  # an eager GradientTape records this call: keep the values
            for ref in program.variables:  # of the Variables and arguments it may change
                tj_variable.note_use(ref())
            for k in program.written_inputs:
                tj_variable.note_array(leaves[program.input_positions[k]])
        variables = [self._variable_buffer(ref) for ref in program.variables]
        shapes = self._output_shapes(inputs)
        outputs = [
            buffer_pool.empty(shape, spec.dtype)
            for shape, spec in zip(shapes, program.output_specs, strict=True)
        ]
        buffers = [*inputs, *variables, *outputs]
        status = self._kernel(
            *[b.ctypes.data for b in buffers],
            *[buffers[i].shape[d] for i, d in self._dynamic_dims],  # the ABI's trailing dims
        )
        if status:
            self._raise(status)
        return self._results(leaves, outputs)

    def _results(self, leaves: list[object], outputs: list[np.ndarray]) -> object:
        """The function's results from the kernel outputs (written inputs copied back)."""
        program = self.record.program
        count = program.result_count
        copy_back(program, leaves, outputs[count:])
        results = list(program.output_leaves)
        for k, (position, out) in enumerate(
            zip(program.output_positions, outputs[:count], strict=True)
        ):
            if k in program.exported:  # a descriptor of a kernel-allocated array
                out = adopt(out, program.exported[k])
            results[position] = out[()] if out.ndim == 0 else out
        return unflatten(program.output_treedef, results)

    def dims_meet(self, leaves: list[Any]) -> bool:
        """Whether the argument leaves meet the dims this trace requires equal (dims unknown
        at trace time are never broadcast: reduce_retracing traces such a call exactly)."""
        program = self.record.program
        if not program.dim_constraints:
            return True
        shapes = [np.shape(leaves[i]) for i in program.input_positions]
        try:
            return _unmet_constraint(program, shapes) is None
        except IndexError:  # another rank: the call's own checks explain
            return True

    def _output_shapes(self, inputs: list[np.ndarray]) -> list[tuple[int, ...]]:
        """Output shapes from the input shapes; checks the run-time dim constraints."""
        program = self.record.program
        if not program.has_unknown_dims:
            return [spec.shape for spec in program.output_specs]  # type: ignore[misc]  # no unknown dims: no None
        shapes = [a.shape for a in inputs]
        unmet = _unmet_constraint(program, shapes)
        if unmet is not None:
            (source, size), (other, expected) = unmet
            raise InvalidArgumentError(
                f"Incompatible shapes: {_describe(source)} is {size} but "
                f"{_describe(other)} is {expected}; this function was traced with unknown "
                "dims, which must be equal where they meet (they are not broadcast)"
            )
        return [tuple(resolve(d, shapes) for d in dims) for dims in program.output_dims]

    def _variable_buffer(self, ref: Callable[[], tj_variable.Variable | None]) -> np.ndarray:
        variable = ref()
        if variable is None:
            raise FailedPreconditionError(
                f"ConcreteFunction {self.record.call_name()} captured a tj.Variable that no longer "
                "exists (it was garbage-collected); keep a reference to it, or trace again"
            )
        return variable._buffer

    def _raise(self, status: int) -> None:
        _raise_for(status, self._messages, self._callbacks)

    def call_symbolic(self, leaves: list[Any]) -> Any:
        """Stage a call of this trace inside the function being traced now."""
        from xdsl.dialects import func

        callee = driver.inlined_function(self.graph.module, self.record.program.function_name)
        _returning_arrays(callee)
        context = current_trace()
        _rename_py_functions(callee, self.record.program.py_functions, context)
        name = context.add_callee(callee)
        operands = []
        layout_dependent = self.record.program.layout_dependent_inputs
        for k, i in enumerate(self.record.program.input_positions):
            leaf = leaves[i]
            if k in layout_dependent:
                _rely_on_c_order(leaf, layout_dependent[k])
            tensor = leaf if isinstance(leaf, Tensor) else primitives.constant(leaf)
            operands.append(tensor.value)
        variables = self.record.program.variables
        for ref, value_type in zip(variables, _variable_types(callee), strict=True):
            operands.append(context.capture_variable(ref(), value_type))
        result_types = [r for r in callee.function_type.outputs]
        call = emit(func.CallOp(name, operands, result_types))
        values = list(call.results)
        if recording_in(context):  # a GradientTape differentiates the callee's ops
            values = driver.inline_call(call, callee)
        program = self.record.program
        count = program.result_count
        for k, value in zip(program.written_inputs, values[count:], strict=True):
            written = leaves[program.input_positions[k]]
            if isinstance(written, Tensor):  # the callee wrote the caller's traced array
                assign(written, Tensor(value, written.dims))
        in_caller = _caller_dims(program, leaves)
        results = list(program.output_leaves)
        for k, (position, dims, value) in enumerate(
            zip(program.output_positions, program.output_dims[:count], values[:count], strict=True)
        ):
            if k in program.exported:  # its dims are the descriptor's: only the kernel knows
                assert isinstance(value.type, TensorType)  # an array's value
                dims = (UNKNOWN,) * value.type.get_num_dims()
            results[position] = Tensor(value, tuple(in_caller(d) for d in dims))
        return unflatten(self.record.program.output_treedef, results)


def _rely_on_c_order(leaf: Any, reason: str) -> None:
    """The callee relies on this input being C-contiguous (`reason`): the caller's traced
    array carries that to the caller's arguments, or is refused; a NumPy array must be one."""
    if isinstance(leaf, Tensor):
        rely_on_c_order(leaf, reason)
    elif isinstance(leaf, np.ndarray) and leaf.size > 1 and not leaf.flags.c_contiguous:
        raise InvalidArgumentError(
            "a tj.function called with a NumPy array that is not C-contiguous relies on its "
            f"reshape being a view ({reason}). Pass np.ascontiguousarray(x)"
        )


def _returning_arrays(callee: func.FuncOp) -> None:
    """Make `callee` (a copy) return the arrays it exports: an array whose size only the
    kernel knows (`x[mask]`) is returned to Python as a descriptor of a buffer the kernel
    allocated (`tj.export`), but a calling trace uses the array itself."""
    from xdsl.dialects import func
    from xdsl.dialects.builtin import FunctionType

    from tracejit.ir.tensor_array import ExportOp

    returned = callee.body.block.last_op
    assert isinstance(returned, func.ReturnOp)
    exports = [v.owner for v in returned.operands if isinstance(v.owner, ExportOp)]
    if not exports:
        return
    values = [v.owner.tensor if isinstance(v.owner, ExportOp) else v for v in returned.operands]
    returned.operands = values
    for export in exports:
        if not export.result.uses:
            export.detach()
            export.erase()
    inputs = callee.function_type.inputs.data
    callee.function_type = FunctionType.from_lists(inputs, [v.type for v in values])


def _caller_dims(program: TracedProgram, leaves: list[Any]) -> Callable[[Any], Any]:
    """The called trace's dims in its caller's terms (its outputs' dims, which its result
    values do not carry), and its dim constraints required of the caller's dims. A dim
    unknown to the callee is an axis of one of its inputs: the caller's dim there."""
    from tracejit.frontend.staging.dims import require_equal, substituted

    def source_dim(source: DimSource) -> Any:
        leaf = leaves[program.input_positions[source.input]]
        dims = leaf.dims if isinstance(leaf, Tensor) else np.shape(leaf)
        return dims[source.axis] if source.axis < len(dims) else UNKNOWN

    def in_caller(dim: Any) -> Any:
        return substituted(dim, source_dim)

    for a, b in program.dim_constraints:
        pair = [in_caller(a), in_caller(b)]
        if isinstance(pair[0], int) and isinstance(pair[1], int):
            if pair[0] != pair[1]:
                raise InvalidArgumentError(
                    at_user_line(f"Incompatible shapes: {pair[0]} and {pair[1]} must be equal")
                )
        elif pair[0] != pair[1]:
            require_equal(pair, current_trace().dim_constraints)
    return in_caller


def _describe(dim: int | DimSource | Sliced | Product | Sum) -> str:
    if isinstance(dim, int):
        return "the traced size"
    if isinstance(dim, Sliced):
        bounds = ":".join("" if v is None else str(v) for v in (dim.start, dim.stop, dim.step))
        return f"[{bounds}] of {_describe(dim.base)}"
    if isinstance(dim, Product):
        return " times ".join([_describe(f) for f in dim.factors] + [str(dim.times)])
    if isinstance(dim, Sum):
        return " plus ".join(_describe(t) for t in dim.terms)
    return f"dim {dim.axis} of input {dim.input}"


def _shapes_of(program: TracedProgram) -> ShapesOf:
    """The fast path's `_output_shapes`: the output shapes from the input arrays, or None
    when they are not arrays of the traced ranks or break a dim constraint (the slow path
    then says which). Written once per trace as Python source, so that a call runs one
    plain function (a generic walk over the dims cost 1.1 us of a 2.6 us call):

        def shapes_of(arrays):
            s0, s1 = arrays[0].shape, arrays[1].shape
            if len(s0) != 1 or len(s1) != 1: return None
            if s0[0] != s1[0]: return None
            return [(s0[0],)]
    """
    ranks = [None if spec.shape is None else len(spec.shape) for spec in program.input_specs]
    names = [f"s{i}" for i in range(len(ranks))]
    others: dict[str, Any] = {"resolve": resolve}

    def expression(dim: Any) -> str:
        if isinstance(dim, int):
            return str(dim)
        if isinstance(dim, DimSource):
            return f"s{dim.input}[{dim.axis}]"
        others[f"d{len(others)}"] = dim
        return f"resolve(d{len(others) - 1}, ({', '.join(names)},))"

    tests = [f"len(s{i}) != {rank}" if rank is not None else "True" for i, rank in enumerate(ranks)]
    tests += [f"{expression(a)} != {expression(b)}" for a, b in program.dim_constraints]
    outputs = ", ".join(f"({''.join(expression(d) + ', ' for d in dims)})"
                        for dims in program.output_dims)  # fmt: skip
    targets = "".join(f"{name}, " for name in names)
    reads = "".join(f"arrays[{i}].shape, " for i in range(len(names)))
    lines = [
        "def shapes_of(arrays):",
        "    try:",
        f"        {targets}= {reads}",
        "    except AttributeError:",
        "        return None",
        *(f"    if {test}: return None" for test in tests),
        f"    return [{outputs}]",
    ]
    namespace = dict(others)
    exec("\n".join(lines), namespace)  # noqa: S102  # source made above from the trace's dims
    shapes_of = namespace["shapes_of"]
    shapes_of.source = "\n".join(lines)  # for reading: what a call checks and computes
    return shapes_of


def _unmet_constraint(program: TracedProgram, shapes: list[tuple[int, ...]]) -> tuple | None:
    """The first pair of dims the trace requires equal that these input shapes make differ,
    each with its size, or None."""
    for source, other in program.dim_constraints:
        size, expected = resolve(source, shapes), resolve(other, shapes)
        if size != expected:
            return (source, size), (other, expected)
    return None


def _output_shapes_computed(program: TracedProgram) -> bool:
    """Whether a call computes output shapes from the input shapes (dims unknown at trace
    time), which the fast path does not: outputs the kernel allocates itself (`x[mask]`:
    `exported`, a descriptor of static shape) need nothing computed, unless an argument
    is written too."""
    if program.exported and program.written_inputs:
        return True
    return bool(program.dim_constraints) or any(
        not isinstance(d, int)
        for k, dims in enumerate(program.output_dims)
        if k not in program.exported
        for d in dims
    )


def _has_callbacks(concrete: ConcreteFunction) -> bool:
    """Kernels with tj.print keep the slow path: printing dominates their cost anyway."""
    return bool(concrete._callbacks and concrete._callbacks.sites)


def _variable_types(callee: func.FuncOp) -> list[Attribute]:
    from tracejit.ir.state import VarType

    return [t.value_type for t in callee.function_type.inputs if isinstance(t, VarType)]


def _rename_py_functions(
    callee: func.FuncOp, py_functions: dict[str, Any], context: TraceContext
) -> None:
    """Re-register the callee's py_functions in the caller's trace under fresh names."""
    from xdsl.dialects.builtin import StringAttr

    from tracejit.ir.state import PyCallOp

    for op in callee.walk():
        if isinstance(op, PyCallOp):
            new_name = context.register_py_function(py_functions[op.callback.data])
            op.callback = StringAttr(new_name)


def _checked_input(
    value: object, spec: TensorSpec, position: int, needs_c_order: str | None = None
) -> np.ndarray:
    """The argument as the kernel's C-contiguous input (a copy if it is not one; refused
    when the trace relies on its reshapes being views, `needs_c_order` saying where)."""
    array_subclasses.check_argument(value, f"input {position}")
    array = np.asarray(value)
    if not array.dtype.isnative:
        array = array.astype(native(array.dtype))
    if array.dtype != spec.dtype or not spec.is_compatible_with(array):
        raise InvalidArgumentError(
            f"input {position} has dtype {array.dtype} and shape {array.shape}, but this "
            f"ConcreteFunction expects {spec}"
        )
    if not array.flags.c_contiguous:
        if needs_c_order is not None and array.size > 1:
            raise InvalidArgumentError(
                f"input {position} is not C-contiguous (Fortran-ordered, a transpose or a "
                "strided slice), and the function relies on its reshape being a view, as "
                "NumPy's is only for a C-contiguous array. Pass np.ascontiguousarray(x), or "
                f"copy the reshape (`.copy()`) in the function: {needs_c_order}"
            )
        array = np.ascontiguousarray(array)
    return array


def _raise_for(status: int, messages: Sequence[str], callbacks: CallbackSet | None) -> None:
    """Raise what a non-zero kernel status means: a failed check, or the exception a
    run-time callback (py_function) raised."""
    message = messages[status - 1] if 0 < status <= len(messages) else ""
    if message.startswith(CALLBACK_ERROR) and callbacks is not None:
        error = callbacks.take_error()
        if error is not None:
            raise error
    raise_for_status(status, messages)


def _unless_noting(kernel_call: FastCall) -> FastCall:
    """`kernel_call`, which leaves a call made while an eager GradientTape notes the arrays
    it writes (`tj_variable.noting`) to the slow path, which notes them."""

    def call(args: tuple) -> Any:
        return SLOW_PATH if tj_variable.noting else kernel_call(args)

    return call


def _status_handler(messages: Sequence[str], callbacks: CallbackSet | None) -> Callable[[int], Any]:
    """What the fast call does with a non-zero status. It holds what it needs, not the
    ConcreteFunction: the ConcreteFunction holds the fast call, and a cycle would keep a
    dropped function (and its machine code) until Python's full garbage collection, rare
    in a process of many long-lived objects (design.md, codegen/)."""

    def on_status(status: int) -> Any:
        if status in ENTRY_POINT_ANSWERS:  # the entry point declined (a copy or another
            return SLOW_PATH  # trace is needed)
        _raise_for(status, messages, callbacks)

    return on_status
