"""The public record of one trace: what a ConcreteFunction was traced from and compiles with.

Export (saved_model, pickling), tiered execution and tools read a ConcreteFunction through
its `record` -- never its private members -- so that its internals can change freely.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tracejit.runtime.structure import TreeDef

if TYPE_CHECKING:
    from tracejit.frontend.api.trace_function import TracedProgram


@dataclass
class TraceRecord:
    """A trace: its program, how its arguments bind, the pipeline it compiles with and the
    Variables it owns."""

    program: TracedProgram  # the traced module and its input and output specs
    signature: inspect.Signature  # the Python function's
    names: list[str]  # the parameters' names
    arg_treedef: TreeDef  # the structure of (args, kwargs)
    # Python values of the trace by argument leaf: `static_keys` as the cache key holds them
    # (objects by weak identity), `static_leaves` as they were (or that identity key)
    static_keys: dict[int, object]
    static_leaves: dict[int, Any]
    pipeline: tuple[str, ...]  # the pass pipeline (compiler/driver.py)
    # Variables the function owns: those made when it was loaded or unpickled (the program
    # holds its Variables weakly)
    owned_variables: list[object] = field(default_factory=list)

    def input_leaves(self) -> list[Any]:
        """Every argument leaf: its TensorSpec, or its Python value."""
        leaves: list[Any] = [None] * self.arg_treedef.num_leaves
        specs = iter(self.program.input_specs)
        for i in range(len(leaves)):
            leaves[i] = self.static_leaves[i] if i in self.static_leaves else next(specs)
        return leaves

    def call_name(self) -> str:
        """`f(x, y)`: the traced function's name and parameters."""
        return f"{self.program.function_name}({', '.join(self.names)})"
