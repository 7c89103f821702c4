"""The trace context: where staged ops go while a Python function is being traced.

`emit(op)` is the one place tracing inserts IR (JAX's `bind`): it stamps the op with
the user's file:line as its location and appends it to the function being built.
Traces nest (a Function called while tracing another), so the contexts form a
per-thread stack.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
from xdsl.builder import Builder
from xdsl.dialects import func
from xdsl.dialects.builtin import FileLineColLoc, IntAttr, ModuleOp, StringAttr
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue
from xdsl.rewriter import InsertPoint

from tracejit.frontend.staging.source_location import at_user_line, user_location
from tracejit.ir.state import VarType

if TYPE_CHECKING:
    from tracejit.frontend.staging.tensor_spec import TensorSpec
    from tracejit.frontend.staging.variable import Variable


@dataclass(frozen=True)
class PyFunctionSpec:
    """What the run-time callback needs: the function and its outputs' specs."""

    func: Callable[..., Any]
    outputs: tuple[TensorSpec, ...]


OpT = TypeVar("OpT", bound=Operation)


class TraceContext:
    """Builds one `func.func` from the ops a traced Python function stages."""

    def __init__(self, module: ModuleOp, function: func.FuncOp):
        self.module = module
        self.function = function
        self.builder = Builder(InsertPoint.at_end(function.body.block))
        self.open_blocks: list[Block] = [function.body.block]  # where staged values are visible
        self.read_guards: list[tuple[SSAValue, SSAValue, str]] = []  # see guard_reads
        self.pass_throughs: set[tuple[SSAValue, Operation]] = set()  # see insert_read_guards
        self.variables: list[Variable] = []  # captured tj.Variables, in handle-argument order
        self._handles: dict[int, SSAValue] = {}
        self.created_variables: list[Variable] = []
        self.py_functions: dict[str, PyFunctionSpec] = {}  # callback name -> its spec
        self.dims: dict[SSAValue, tuple] = {}  # tensor value -> its dims (frontend/staging/dims.py)
        self.dim_constraints: list[tuple] = []  # (DimSource, dim) pairs equal at run time
        self.inputs: list[SSAValue] = []  # the tensor inputs, for tj.dim of a DimSource
        # a run-time size's value (`x.shape[k]`) -> (its dim, x's value, k), so that a size
        # computed back to it (`(n + 1) - 1`) is that dim (frontend/staging/runtime_sizes.py)
        self.measured_sizes: dict[SSAValue, tuple] = {}
        # id of each argument's Tensor -> its input index; the inputs whose reshapes the
        # function relies on being views (C-contiguous) -> where (frontend/staging/views.py)
        self.argument_indices: dict[int, int] = {}
        self.layout_dependent_inputs: dict[int, str] = {}
        # tj.poison value -> the error its op raised while tracing, raised at the end of the
        # trace only if the value is used (frontend/staging/non_strict.py); in program order
        self.pending_errors: dict[SSAValue, BaseException] = {}
        # a staged loop statement -> the loop variables it kept and the arrays it carried
        # when last staged, to start from when staged again (frontend/staging/control_flow.py)
        self.loop_memory: dict[tuple, tuple[set[str], list]] = {}
        # The `try` statements being traced, innermost last: a thunk of the types their
        # handlers catch (autograph/operators.py `errors_caught`), and the block the try
        # is staged in (see `handling`)
        self.caught: list[tuple[Callable[[], object], Block]] = []
        self.refusals: list[Exception] = []  # see `refuse`
        # NumPy arrays a staged loop or if may have left two local names on, with their
        # bytes then, the construct's traced value and why a later change of them is
        # refused (frontend/staging/numpy_locals.py; checked at the end of the trace)
        self.shared_arrays: list[tuple[np.ndarray, bytes, SSAValue, str]] = []
        # Variable -> the Variable this trace reads and writes in its place (an eager
        # tape's vector-Jacobian product works on copies: autodiff/eager.py); None: itself
        self.substitute: Callable[[Variable], Variable] | None = None

    def capture_variable(self, variable: Variable, value_type: Attribute) -> SSAValue:
        """The `!tj.var` handle of `variable`: a function argument added on first use."""
        if self.substitute is not None:
            variable = self.substitute(variable)
        handle = self._handles.get(id(variable))
        if handle is None:
            block = self.function.body.block
            handle = block.insert_arg(VarType(value_type), len(block.args))  # type: ignore[arg-type]  # VarType is a type attribute
            self._handles[id(variable)] = handle
            self.variables.append(variable)
        return handle

    def guard_reads(self, value: SSAValue, defined: SSAValue, message: str) -> None:
        """Every op that reads `value` first checks the 0-d bool `defined` at run time (a
        variable a staged loop may not have assigned); see `insert_read_guards`."""
        self.read_guards.append((value, defined, message))

    def guard_of(self, value: SSAValue) -> tuple[SSAValue, str] | None:
        """The run-time flag saying whether guarded `value` was assigned, and the error of a
        read when it was not (None: `value` is not guarded)."""
        for guarded, defined, message in reversed(self.read_guards):
            if guarded is value:
                return defined, message
        return None

    def insert_read_guards(self) -> None:
        """Put a `tj.assert` before each op that reads a guarded value, in that op's block, so
        it fails exactly when Python's read would (not on paths that never read it). A staged
        loop that carries a guarded value carries its flag too (autograph/operators.py), so
        handing it to the loop or yielding it unchanged is no read (`pass_throughs`)."""
        from tracejit.ir.effects import AssertOp

        for value, defined, message in self.read_guards:
            for use in list(value.uses):
                reader = use.operation
                if (value, reader) in self.pass_throughs:
                    continue
                assert reader.parent is not None
                check = AssertOp(defined, message)
                check.location = reader.location
                reader.parent.insert_op_before(check, reader)

    def handling(self, error: BaseException) -> str | None:
        """How a `try` being traced handles `error`: "here" when the try is staged in the
        block being staged (the error is raised where it is found, as NumPy raises it, so
        the handler runs), "staged" when a staged branch or loop body opened since then
        (it would raise only if that code runs: `primitives.poison` refuses it), None
        when no try handles it (deferred to the end of the trace, non-strict execution)."""
        for types, block in reversed(self.caught):
            try:
                handled = isinstance(error, types())  # type: ignore[arg-type]  # what `except` takes
            except Exception:  # a name Python would only look up on an exception: not ours
                continue
            if handled:
                return "here" if block is self.open_blocks[-1] else "staged"
        return None

    def refuse(self, error: Exception) -> Exception:
        """`error`, a refusal about to be raised inside a `try` being traced, kept so that
        the trace raises it when the function returns even if the user's handler catches
        it (`except Exception:` would run the handler instead of refusing)."""
        self.refusals.append(error)
        return error

    def defer_error(self, value: SSAValue, error: BaseException) -> None:
        """`value` (a `tj.poison`) stands for the result of an op that failed with `error`."""
        self.pending_errors[value] = error

    def register_py_function(self, spec: PyFunctionSpec) -> str:
        name = f"py_function_{len(self.py_functions)}"
        self.py_functions[name] = spec
        return name

    def add_callee(self, callee: func.FuncOp) -> str:
        """Put a traced callee into this module under a fresh private name; return it."""
        taken = {op.sym_name.data for op in self.module.ops if isinstance(op, func.FuncOp)}
        name, suffix = callee.sym_name.data, 1
        while name in taken or name == self.function.sym_name.data:
            name, suffix = f"{callee.sym_name.data}_{suffix}", suffix + 1
        callee.sym_name = StringAttr(name)
        callee.sym_visibility = StringAttr("private")
        self.module.body.block.add_op(callee)
        return name

    @contextmanager
    def building_in(self, block: Block) -> Iterator[None]:
        """Stage ops at the end of `block` (a region being traced), then come back."""
        saved = self.builder
        self.builder = Builder(InsertPoint.at_end(block))
        self.open_blocks.append(block)
        try:
            yield
        finally:
            self.open_blocks.pop()
            self.builder = saved

    def emit(self, op: OpT) -> OpT:
        self._check_visible(op)
        location = user_location()
        if location is not None:
            op.location = FileLineColLoc(
                StringAttr(location.filename), IntAttr(location.line), IntAttr(location.column)
            )
        return self.builder.insert(op)

    def _check_visible(self, op: Operation) -> None:
        """Refuse an operand staged in a region that is not open around the insertion point
        (a branch or loop body already closed, or another trace): the IR would be invalid.
        It happens when Python code keeps a traced value where AutoGraph does not carry it
        out of a staged if/loop (an attribute, a global, a closure's container)."""
        for operand in op.operands:
            block = operand.block if isinstance(operand, BlockArgument) else operand.owner.parent
            if block is None or block in self.open_blocks:
                continue
            raise ValueError(
                at_user_line(
                    "a tensor computed inside a staged if or loop body is used outside it: it "
                    "was kept where AutoGraph does not carry it out of the branch or loop (an "
                    "object's attribute, a global, or a container the function does not own). "
                    "Keep it in a local variable (or a local list/dict), or return it from "
                    "tj.cond / tj.while_loop"
                )
            )


_state = threading.local()


def _stack() -> list[TraceContext]:
    if not hasattr(_state, "stack"):
        _state.stack = []
    return _state.stack


def current_trace() -> TraceContext:
    stack = _stack()
    if not stack:
        raise RuntimeError("a symbolic tracejit Tensor was used outside of its trace")
    return stack[-1]


def is_tracing() -> bool:
    return bool(_stack())


@contextmanager
def tracing(context: TraceContext) -> Iterator[TraceContext]:
    _stack().append(context)
    try:
        yield context
    finally:
        _stack().pop()


def emit(op: OpT) -> OpT:
    """Insert `op` into the innermost function being traced and return it."""
    return current_trace().emit(op)
