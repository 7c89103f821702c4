"""`--run`: execute the compiled function on `--input name=file.npy|literal` arrays and
print its results with `np.array2string`.

A Python input runs through its ConcreteFunction (inputs by parameter name, results in the
function's own structure). A `.mlir` input runs the compiled module directly with the ABI of
`codegen/abi.py`: one pointer per input memref, then per output memref, then one i64 per
dynamic dim; the kernel returns an i32 status, k > 0 meaning the k-th message of the module's
`tj.messages` failed. Its arguments are named after the input file's function (`%x` is `x`,
an unnamed argument N is `argN`); arguments that were tensors must be given, any other
argument without an `--input` (a destination buffer) is allocated, zeroed, and printed.
"""

from __future__ import annotations

import ast
import os
import re
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType

from tracejit.ir.runtime_contract import BOUNDS_ERROR, split_message
from tracejit.tools.diagnostics import Diagnostic, ToolError
from tracejit.tools.opt_args import UsageError, split_assignment


def input_texts(texts: list[str]) -> dict[str, str]:
    return dict(split_assignment(text, "--input") for text in texts)


def load_array(name: str, text: str, dtype: np.dtype | None) -> np.ndarray:
    """A `.npy` file as stored, or a Python literal converted to the expected dtype."""
    if text.endswith(".npy") or os.path.exists(text):
        try:
            return contiguous(np.load(text, allow_pickle=False))
        except (OSError, ValueError) as error:
            raise UsageError(f"--input {name}: cannot load {text!r}: {error}") from None
    try:
        value = ast.literal_eval(_FloatNames().visit(ast.parse(text, mode="eval")))
    except (ValueError, SyntaxError) as error:
        raise UsageError(
            f"--input {name}: {text!r} is neither a .npy file nor a literal ({error})"
        ) from None
    return contiguous(np.asarray(value, dtype=dtype))


class _FloatNames(ast.NodeTransformer):
    """Lets array literals say `inf` and `nan` (ast.literal_eval accepts no names)."""

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id in ("inf", "nan"):
            return ast.copy_location(ast.Constant(float(node.id)), node)
        return node


def contiguous(array: np.ndarray) -> np.ndarray:
    """C-contiguous, keeping 0-d arrays 0-d (np.ascontiguousarray makes them 1-d)."""
    return array if array.flags.c_contiguous else array.copy(order="C")


def format_results(value: object, label: str = "result") -> str:
    """`label: float32[3] = [1. 2. 3.]` per array leaf; tuples/lists/dicts are indexed."""
    if isinstance(value, dict):
        return "".join(format_results(v, f"{label}[{k!r}]") for k, v in value.items())
    if isinstance(value, (tuple, list)):
        return "".join(format_results(v, f"{label}[{i}]") for i, v in enumerate(value))
    array = np.asarray(value)
    prefix = f"{label}: {array.dtype}{list(array.shape)} = "
    return prefix + np.array2string(array, prefix=prefix) + "\n"


# --- a Python input: call the ConcreteFunction ------------------------------------------------
def run_concrete(concrete: Any, texts: list[str]) -> str:
    from tracejit.frontend.staging.tensor_spec import TensorSpec
    from tracejit.runtime.structure import flatten

    args, kwargs = concrete.structured_input_signature
    leaves, _ = flatten((args, kwargs))
    dtypes = {leaf.name: leaf.dtype for leaf in leaves if isinstance(leaf, TensorSpec)}
    values = {
        name: load_array(name, text, dtypes.get(name)) for name, text in input_texts(texts).items()
    }
    return format_results(concrete(**values))


# --- a .mlir input: call the compiled kernel ---------------------------------------------------
def entry_function(module: ModuleOp, name: str | None) -> func.FuncOp:
    public = [
        op
        for op in module.ops
        if isinstance(op, func.FuncOp)
        and op.body.blocks
        and (op.sym_visibility is None or op.sym_visibility.data != "private")
    ]
    if name is not None:
        public = [op for op in public if op.sym_name.data == name]
        if not public:
            raise UsageError(f"--entry: no public function @{name}")
    if len(public) != 1:
        names = ", ".join("@" + op.sym_name.data for op in public) or "none"
        raise UsageError(f"--run needs one public function (found: {names}); pick with --entry")
    return public[0]


def argument_names(function: func.FuncOp) -> list[tuple[str, bool]]:
    """(name, was a tensor) of each argument of the input-stage function."""
    return [
        (arg.name_hint or f"arg{arg.index}", isinstance(arg.type, TensorType))
        for arg in function.body.blocks[0].args
    ]


class KernelCall:
    """The argument arrays of one call of a lowered function, and which are results."""

    def __init__(self, names: list[tuple[str, bool]], tensor_results: int):
        self.names = names
        self.tensor_results = tensor_results
        self.arrays: list[np.ndarray] = []
        self.results: list[tuple[str, np.ndarray]] = []

    def bind(self, signature: Any, texts: dict[str, str]) -> None:
        from tracejit.codegen import MemRefArg

        unused = set(texts)
        labels = {self.label(position)[0] for position in range(len(signature.args))}
        if unused - labels:
            raise UsageError(self.no_such_argument(sorted(unused - labels)[0]))
        for position, arg in enumerate(signature.args):
            if not isinstance(arg, MemRefArg):
                raise NotImplementedError("--run supports memref arguments only")
            name, required = self.label(position)
            if name in texts:
                unused.discard(name)
                self.arrays.append(load_array(name, texts[name], arg.dtype))
                continue
            if required:
                raise UsageError(f"--run: missing --input {name}=FILE.npy")
            if None in arg.shape:
                raise NotImplementedError(f"--run: output {name} has a dynamic shape")
            array = np.zeros(arg.shape, arg.dtype)
            self.arrays.append(array)
            self.results.append((name, array))

    def no_such_argument(self, name: str) -> str:
        """The error for `--input name=...`: the names the function's arguments go by."""
        names = [label for label, _ in self.names]
        if not names:
            return f"--input {name}: the function has no arguments"
        text = f"--input {name}: the function has no such argument; its arguments: "
        text += ", ".join(names)
        if any(re.fullmatch(r"arg\d+", label) for label in names):
            text += " (argN: argument N, counted from 0, unnamed in the IR)"
        return text + f"; e.g. --input {names[0]}=FILE.npy|LITERAL"

    def label(self, position: int) -> tuple[str, bool]:
        """Arguments past the input function's own are its tensor results' buffers."""
        if position < len(self.names):
            return self.names[position]
        index = position - len(self.names)
        return ("result" if self.tensor_results == 1 else f"result[{index}]"), False


def raise_if_out_of_bounds(check: tuple[str, str]) -> None:
    """A failed bounds check of IR run from a file: the IR's fault, reported at its op."""
    kind, text = check
    if kind != BOUNDS_ERROR:
        return
    op, _, where = text.partition(" at ")
    line = where.split(":")[-2] if where.count(":") >= 2 else ""
    raise ToolError(
        Diagnostic(
            f"the IR indexes out of bounds: this {op} reads or writes outside its buffer "
            "(the kernel stopped before the access; --run checks every load, store and copy "
            "of IR read from a file, --no-check-bounds turns the checks off)",
            where=where,
            line=int(line) if line.isdigit() else None,
        )
    )


def run_lowered(
    input_function: func.FuncOp, lowered: ModuleOp, compiled: Any, texts: list[str]
) -> str:
    """Call the lowered form of `input_function` in `compiled` and print its outputs."""
    from tracejit.compiler import driver
    from tracejit.runtime.runtime_errors import raise_for_status

    name = input_function.sym_name.data
    kernel = compiled.kernel(name)
    tensor_results = sum(isinstance(t, TensorType) for t in input_function.function_type.outputs)
    call = KernelCall(argument_names(input_function), tensor_results)
    call.bind(kernel.signature, input_texts(texts))
    status = kernel(*call.arrays)
    messages = driver.error_messages(lowered)
    if 0 < status <= len(messages):
        raise_if_out_of_bounds(split_message(messages[status - 1]))
    if status:
        try:
            raise_for_status(status, messages)
        except Exception as error:
            message = f"@{name} failed a run-time check: {type(error).__name__}: {error}"
            raise ToolError(Diagnostic(message)) from error
    return "".join(format_results(array, label) for label, array in call.results)
