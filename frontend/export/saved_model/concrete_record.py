"""A ConcreteFunction as data and back: its traced IR as text plus a JSON record of how
arguments map into the kernel and results out of it.

This is the one serialisation of a trace: `tj.saved_model` writes it to a directory and
`ConcreteFunction.__reduce__` pickles it. The record holds the Python signature (names,
kinds, defaults that are plain values), the argument structure with the Python values baked
into the trace, the tensor specs, the result structure, the run-time dim rules and which
Variables the kernel reads and writes (as indices into a table the caller keeps, so two
functions sharing a Variable share it again after loading).

A trace of a method (`bound=True`) is saved without its instance argument: the loaded
function is called without `self`, as TensorFlow's loaded methods are.
"""

from __future__ import annotations

import contextlib
import inspect
import weakref
from typing import TYPE_CHECKING, Any

from xdsl.dialects.builtin import ModuleOp

from tracejit.compiler import driver
from tracejit.frontend.api.cache_key import IdentityKey
from tracejit.frontend.api.trace_function import TracedProgram
from tracejit.frontend.export.saved_model import encoding
from tracejit.frontend.export.saved_model.errors import LoadError, SaveError
from tracejit.runtime.structure import TreeDef

if TYPE_CHECKING:
    import numpy as np

_KINDS = {
    kind.name: kind
    for kind in (
        inspect.Parameter.POSITIONAL_ONLY,
        inspect.Parameter.POSITIONAL_OR_KEYWORD,
        inspect.Parameter.VAR_POSITIONAL,
        inspect.Parameter.KEYWORD_ONLY,
        inspect.Parameter.VAR_KEYWORD,
    )
}


def to_record(concrete: Any, variable_index: Any, bound: bool = False) -> tuple[dict, str]:
    """(record, IR text) of `concrete`; `variable_index(variable)` gives each captured
    Variable's number in the caller's table."""
    program: TracedProgram = concrete.record.program
    what = f"ConcreteFunction {concrete.record.call_name()}"
    if program.py_functions:
        raise SaveError(
            f"{what} calls tj.py_function, which runs Python: a saved function cannot hold "
            "Python code (TensorFlow's SavedModel cannot either); compute it with NumPy "
            "inside the function, or call the Python part outside it"
        )
    names = list(concrete.record.names)
    parameters = list(concrete.record.signature.parameters.values())
    treedef: TreeDef = concrete.record.arg_treedef
    leaves = concrete.record.input_leaves()
    positions = list(program.input_positions)
    if bound:  # drop the instance, the first argument
        if not treedef.children or treedef.children[0].kind != "leaf":
            raise SaveError(f"{what}: a method's first argument must be its instance")
        names, parameters, leaves = names[1:], parameters[1:], leaves[1:]
        treedef = TreeDef(treedef.kind, treedef.node_type, treedef.keys, treedef.children[1:])
        positions = [p - 1 for p in positions]
    tensor_positions = set(positions)
    arg_leaves: list[dict[str, object] | None] = []
    for i, leaf in enumerate(leaves):
        if i in tensor_positions:
            arg_leaves.append(None)
        elif isinstance(leaf, IdentityKey):
            raise SaveError(
                f"{what} was traced with a Python object as argument {i + 1} (keyed by its "
                "identity), which cannot be saved: pass arrays or plain Python values"
            )
        else:
            arg_leaves.append(encoding.encode_value(leaf, f"{what}: argument leaf {i + 1}"))
    record = {
        "name": program.function_name,
        "pipeline": _pipeline_spec(concrete.record.pipeline),
        "parameters": [_encode_parameter(p) for p in parameters],
        "arg_treedef": encoding.encode_treedef(treedef, f"the arguments of {what}"),
        "arg_leaves": arg_leaves,
        "input_positions": positions,
        "input_specs": [encoding.encode_spec(s) for s in program.input_specs],
        "output_treedef": encoding.encode_treedef(program.output_treedef, f"the results of {what}"),
        "output_leaves": [
            encoding.encode_value(v, f"{what}: result {i + 1}")
            for i, v in enumerate(program.output_leaves)
        ],
        "output_positions": list(program.output_positions),
        "output_specs": [encoding.encode_spec(s) for s in program.output_specs],
        "output_dims": [[encoding.encode_dim(d) for d in dims] for dims in program.output_dims],
        "dim_constraints": [
            [encoding.encode_dim(a), encoding.encode_dim(b)] for a, b in program.dim_constraints
        ],
        "exported": {str(k): dtype.str for k, dtype in program.exported.items()},
        "written_inputs": list(program.written_inputs),
        "layout_dependent_inputs": {str(k): v for k, v in program.layout_dependent_inputs.items()},
        "variables": [variable_index(_alive(ref, what)) for ref in program.variables],
    }
    return record, str(program.module)


def _alive(ref: Any, what: str) -> Any:
    variable = ref()
    if variable is None:
        raise SaveError(f"{what} captured a tj.Variable that was garbage-collected")
    return variable


def _encode_parameter(parameter: inspect.Parameter) -> dict[str, object]:
    data: dict[str, object] = {"name": parameter.name, "kind": parameter.kind.name}
    if parameter.default is not inspect.Parameter.empty:
        # a default that is not a plain value is dropped: callers then pass it
        with contextlib.suppress(SaveError):
            data["default"] = encoding.encode_value(parameter.default, parameter.name)
    return data


def from_record(record: dict, ir_text: str, variables: list[Any]) -> Any:
    """A ConcreteFunction from `to_record`'s output; `variables` is the caller's table of
    loaded `tj.Variable`s. Raises LoadError for anything malformed."""
    try:
        return _build(record, ir_text, variables)
    except LoadError:
        raise
    except Exception as error:  # whatever a wrong record makes fail: a LoadError
        raise LoadError(
            f"a saved function record is malformed ({type(error).__name__}: {error})"
        ) from None


def _build(record: dict, ir_text: str, variables: list[Any]) -> Any:
    from tracejit.frontend.api.concrete_function import ConcreteFunction

    module = parse_verified(ir_text, record["name"])
    specs = [encoding.decode_spec(s) for s in record["input_specs"]]
    positions = [int(p) for p in record["input_positions"]]
    captured = [variables[int(i)] for i in record["variables"]]
    program = TracedProgram(
        module=module,
        function_name=str(record["name"]),
        input_specs=specs,
        input_positions=positions,
        output_treedef=encoding.decode_treedef(record["output_treedef"]),
        output_leaves=[encoding.decode_value(v) for v in record["output_leaves"]],
        output_positions=[int(p) for p in record["output_positions"]],
        output_specs=[encoding.decode_spec(s) for s in record["output_specs"]],
        variables=[weakref.ref(v) for v in captured],
        output_dims=[tuple(encoding.decode_dim(d) for d in dims) for dims in record["output_dims"]],
        dim_constraints=[
            (encoding.decode_dim(a), encoding.decode_dim(b)) for a, b in record["dim_constraints"]
        ],
        exported={int(k): _dtype(v) for k, v in record["exported"].items()},
        written_inputs=[int(k) for k in record["written_inputs"]],
        layout_dependent_inputs={
            int(k): str(v) for k, v in record.get("layout_dependent_inputs", {}).items()
        },
    )
    _check_consistent(program, captured)
    _check_mappings(program)
    if record["pipeline"] is not None and not driver.is_valid_pipeline(str(record["pipeline"])):
        raise LoadError(f"@{program.function_name} names an unknown pass pipeline")
    parameters = [_decode_parameter(p) for p in record["parameters"]]
    signature = inspect.Signature(parameters)
    treedef = encoding.decode_treedef(record["arg_treedef"])
    leaves: list[Any] = [None] * treedef.num_leaves
    if (
        treedef.kind != "tuple"
        or len(treedef.children) != len(parameters)
        or len(record["arg_leaves"]) != treedef.num_leaves
        or len(positions) != len(specs)
        or positions != sorted(set(positions))
        or any(not 0 <= p < treedef.num_leaves for p in positions)
    ):
        raise LoadError("a saved function's argument leaves do not match its structure")
    specs_iter, tensor_positions = iter(specs), set(positions)
    for i, data in enumerate(record["arg_leaves"]):
        leaves[i] = next(specs_iter) if i in tensor_positions else encoding.decode_value(data)
    concrete = ConcreteFunction(
        program,
        signature,
        [p.name for p in parameters],
        treedef,
        leaves,
        *_pipeline(record["pipeline"]),
    )
    concrete.record.owned_variables = captured  # the loaded Variables live as long as it
    return concrete


def _pipeline_spec(pipeline: str | tuple) -> str | None:
    """None for the default pipeline, else its text (`experimental_pipeline`)."""
    from tracejit.compiler.driver import DEFAULT_PIPELINE

    if pipeline == DEFAULT_PIPELINE:
        return None
    return pipeline if isinstance(pipeline, str) else ",".join(pipeline)


def _pipeline(spec: str | None) -> tuple:
    """ConcreteFunction's optional `pipeline` argument for a saved spec."""
    return () if spec is None else (str(spec),)


def _dtype(text: str) -> np.dtype:
    import numpy as np

    return np.dtype(text)


def _decode_parameter(data: dict) -> inspect.Parameter:
    kind = _KINDS[data["kind"]]
    default = (
        encoding.decode_value(data["default"]) if "default" in data else inspect.Parameter.empty
    )
    return inspect.Parameter(data["name"], kind, default=default)


def _check_consistent(program: TracedProgram, variables: list[Any]) -> None:
    """The record must describe the IR's function: its arguments are the tensor inputs, then
    the Variables; its results the outputs (else the kernel would read the wrong buffers)."""
    from xdsl.dialects import func

    from tracejit.ir.dtypes import tensor_type
    from tracejit.ir.state import VarType

    function = _find_function(program.module, program.function_name)
    inputs = list(function.function_type.inputs)
    expected = [tensor_type(s.shape, s.dtype) for s in program.input_specs]  # type: ignore[arg-type]  # spec shapes are known (no None rank)
    var_types = inputs[len(expected) :]
    if inputs[: len(expected)] != expected or len(var_types) != len(variables):
        raise LoadError(
            f"the saved IR of @{program.function_name} takes {len(inputs)} arguments that do "
            "not match its saved signature"
        )
    for variable, var_type in zip(variables, var_types, strict=True):
        wanted = tensor_type(variable.shape, variable.dtype)
        if not isinstance(var_type, VarType) or var_type.value_type != wanted:
            raise LoadError(
                f"a Variable of @{program.function_name} has shape {variable.shape} and dtype "
                f"{variable.dtype}, but its IR expects {var_type}"
            )
    if len(function.function_type.outputs) != len(program.output_specs):
        raise LoadError(f"the saved IR of @{program.function_name} has the wrong result count")
    assert isinstance(function, func.FuncOp)


def _check_mappings(program: TracedProgram) -> None:
    """The record's maps between Python values and kernel buffers must agree with each other
    and with the IR's result types: a wrong output size would let the kernel write past a
    buffer, so it is refused here, before anything runs."""
    name = f"@{program.function_name}"
    outputs = program.output_positions
    counts_agree = (
        program.output_treedef.num_leaves == len(program.output_leaves)
        and len(set(outputs)) == len(outputs)
        and all(0 <= p < len(program.output_leaves) for p in outputs)
        and len(outputs) + len(program.written_inputs) == len(program.output_specs)
        and len(program.output_dims) == len(program.output_specs)
        and all(0 <= k < len(program.input_specs) for k in program.written_inputs)
        and all(0 <= k < len(outputs) for k in program.exported)
    )
    if not counts_agree:
        raise LoadError(f"the saved record of {name} does not match its outputs")
    function = _find_function(program.module, program.function_name)
    for k, (dims, spec, result_type) in enumerate(
        zip(program.output_dims, program.output_specs, function.function_type.outputs, strict=True)
    ):
        expected = tensor_type_of(spec)
        if k in program.exported:
            continue  # the kernel allocates it: its size comes from the kernel
        if result_type != expected or len(dims) != len(spec.shape or ()):
            raise LoadError(f"output {k} of {name} does not match its saved IR type")
        for dim, size in zip(dims, spec.shape or (), strict=True):
            if (size is None) == isinstance(dim, int) or (size is not None and dim != size):
                raise LoadError(f"output {k} of {name} has a saved size that its IR refutes")
            _check_dim(dim, program, name)
    for pair in program.dim_constraints:
        for dim in pair:
            _check_dim(dim, program, name)


def tensor_type_of(spec: Any) -> Any:
    from tracejit.ir.dtypes import tensor_type

    return tensor_type(spec.shape, spec.dtype)


def _check_dim(dim: object, program: TracedProgram, name: str) -> None:
    """A run-time dim may only read an axis of an input that is unknown at trace time."""
    from tracejit.frontend.staging.dims import DimSource, Product, Sliced, Sum

    if isinstance(dim, int):
        if dim < 0:
            raise LoadError(f"{name} has a negative saved size")
    elif isinstance(dim, DimSource):
        specs = program.input_specs
        if not 0 <= dim.input < len(specs) or not 0 <= dim.axis < len(specs[dim.input].shape or ()):
            raise LoadError(f"{name} has a saved dim of an input axis it does not have")
        if (specs[dim.input].shape or ())[dim.axis] is not None:
            raise LoadError(f"{name} has a saved run-time dim of an axis known at trace time")
    elif isinstance(dim, Sliced):
        if dim.step == 0:
            raise LoadError(f"{name} has a saved slice with step 0")
        _check_dim(dim.base, program, name)
    elif isinstance(dim, Product):
        if dim.times < 0:
            raise LoadError(f"{name} has a negative saved size")
        for factor in dim.factors:
            _check_dim(factor, program, name)
    elif isinstance(dim, Sum):
        for term in dim.terms:
            _check_dim(term, program, name)


def _find_function(module: ModuleOp, name: str) -> Any:
    from xdsl.dialects import func

    for op in module.ops:
        if isinstance(op, func.FuncOp) and op.sym_name.data == name:
            return op
    raise LoadError(f"the saved IR has no function @{name}")


def parse_verified(text: str, name: str) -> ModuleOp:
    """Parse and verify saved IR text; every failure is a LoadError naming the function."""
    from xdsl.parser import Parser
    from xdsl.utils.exceptions import DiagnosticException, ParseError

    from tracejit.ir.dialect import make_context

    try:
        module = Parser(make_context(), text).parse_module()
    except ParseError as error:
        raise LoadError(f"the saved IR of @{name} does not parse:\n{error}") from None
    except Exception as error:  # xDSL's parser may fail otherwise on garbage: never a crash
        raise LoadError(f"the saved IR of @{name} does not parse: {error!r}") from None
    try:
        module.verify()
    except (DiagnosticException, ValueError) as error:
        raise LoadError(f"the saved IR of @{name} fails verification:\n{error}") from None
    return module
