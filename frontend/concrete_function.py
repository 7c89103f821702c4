"""`tj.ConcreteFunction`: one trace, compiled to machine code, callable on arrays.

Compilation is lazy: the first call (or the first look at `llvm_ir` / `asm`) runs
the pass pipeline and LLVM. The call path then checks each input's dtype and shape,
makes it C-contiguous, allocates the outputs with `np.empty` and calls the kernel
with the buffers' addresses (the ABI in `codegen/abi.py`: inputs, then outputs).
"""

from __future__ import annotations

import inspect
import threading
from typing import Any

import numpy as np

from tracejit.frontend import driver
from tracejit.frontend.cache_key import is_tensor_leaf, leaf_key, native
from tracejit.frontend.errors import InvalidArgumentError
from tracejit.frontend.runtime_errors import raise_for_status
from tracejit.frontend.structure import TreeDef, flatten, unflatten
from tracejit.frontend.tensor_spec import TensorSpec
from tracejit.frontend.trace_function import TracedProgram
from tracejit.passes.pipeline import DEFAULT_PIPELINE


class Graph:
    """The traced module of a ConcreteFunction (`str(graph)` is its IR)."""

    def __init__(self, program: TracedProgram):
        self.module = program.module
        self.function_name = program.function_name

    def __str__(self) -> str:
        return str(self.module)


class ConcreteFunction:
    """One trace of a `tj.Function` for one input signature."""

    def __init__(
        self,
        program: TracedProgram,
        signature: inspect.Signature,
        names: list[str],
        arg_treedef: TreeDef,
        arg_leaves: list[Any],
        pipeline: tuple[str, ...] = DEFAULT_PIPELINE,
    ):
        self._program = program
        self._signature = signature
        self._names = names
        self._arg_treedef = arg_treedef
        self._static_keys = {
            i: leaf_key(leaf) for i, leaf in enumerate(arg_leaves) if not is_tensor_leaf(leaf)
        }
        self._pipeline = pipeline
        self.graph = Graph(program)
        self._lock = threading.Lock()
        self._compiled: Any = None
        self._kernel: Any = None
        self._stages: list[driver.Stage] | None = None
        self._messages: list[str] = []

    # --- introspection -------------------------------------------------------------
    @property
    def structured_input_signature(self) -> Any:
        leaves: list[Any] = [None] * self._arg_treedef.num_leaves
        specs = iter(self._program.input_specs)
        for i in range(len(leaves)):
            leaves[i] = (
                next(specs) if i in self._program.input_positions else self._static_keys[i][1]
            )
        return unflatten(self._arg_treedef, leaves)

    @property
    def structured_outputs(self) -> Any:
        leaves = list(self._program.output_leaves)
        for position, spec in zip(
            self._program.output_positions, self._program.output_specs, strict=True
        ):
            leaves[position] = spec
        return unflatten(self._program.output_treedef, leaves)

    def ir(self, after: str | None = None) -> str:
        """The IR after the pass named `after` (its first run), or the final lowered IR."""
        stages = self._lowering_stages()
        if after is None:
            return stages[-1].ir if stages else str(self.graph)
        for stage in stages:
            if stage.pass_name == after:
                return stage.ir
        raise ValueError(f"pass '{after}' is not in the pipeline {list(self._pipeline)}")

    @property
    def llvm_ir(self) -> str:
        """The LLVM IR after LLVM's O3 pipeline."""
        return self._compile().optimized_llvm_ir

    @property
    def asm(self) -> str:
        """The host assembly of the kernel."""
        return self._compile().asm

    # --- compilation -----------------------------------------------------------------
    def _lowering_stages(self) -> list[driver.Stage]:
        if self._stages is None:
            self._stages = driver.lower(
                self.graph.module, self._pipeline, record_stages=True
            ).stages
        return self._stages

    def _compile(self) -> Any:
        with self._lock:
            if self._compiled is None:
                lowered = driver.lower(self.graph.module, self._pipeline)
                self._messages = driver.error_messages(lowered.module)
                compiled = driver.compile_to_machine_code(lowered.module)
                self._kernel = compiled.kernel(self._program.function_name).raw
                self._compiled = compiled
        return self._compiled

    # --- calling ---------------------------------------------------------------------
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        try:
            bound = self._signature.bind(*args, **kwargs)
        except TypeError as error:
            raise TypeError(f"{self.graph.function_name}: {error}") from None
        bound.apply_defaults()
        leaves, treedef = flatten(tuple(bound.arguments.values()))
        if treedef != self._arg_treedef:
            raise TypeError("the arguments' structure does not match this ConcreteFunction")
        for i, key in self._static_keys.items():
            if leaf_key(leaves[i]) != key:
                raise TypeError(
                    f"argument '{self._leaf_name(i)}' was traced with the Python value "
                    f"{key[1]!r} but was called with {leaves[i]!r}"
                )
        return self.call_leaves(leaves)

    def _leaf_name(self, index: int) -> str:
        return self._names[min(index, len(self._names) - 1)]

    def call_leaves(self, leaves: list[Any]) -> Any:
        """Run the kernel on the argument leaves (Python leaves already match the trace)."""
        if self._kernel is None:
            self._compile()
        program = self._program
        inputs = [
            _checked_input(leaves[i], spec, i)
            for i, spec in zip(program.input_positions, program.input_specs, strict=True)
        ]
        outputs = [np.empty(spec.shape, spec.dtype) for spec in program.output_specs]  # type: ignore[arg-type]
        status = self._kernel(*[a.ctypes.data for a in inputs], *[o.ctypes.data for o in outputs])
        if status:
            raise_for_status(status, self._messages)
        results = list(program.output_leaves)
        for position, out in zip(program.output_positions, outputs, strict=True):
            results[position] = out[()] if out.ndim == 0 else out
        return unflatten(program.output_treedef, results)


def _checked_input(value: Any, spec: TensorSpec, position: int) -> np.ndarray:
    array = np.asarray(value)
    if not array.dtype.isnative:
        array = array.astype(native(array.dtype))
    if array.dtype != spec.dtype or not spec.is_compatible_with(array):
        raise InvalidArgumentError(
            f"input {position} has dtype {array.dtype} and shape {array.shape}, but this "
            f"ConcreteFunction expects {spec}"
        )
    if not array.flags.c_contiguous:
        array = np.ascontiguousarray(array)
    return array
