"""`tracejit-opt <export_dir>:<name>`: a function saved by `tj.saved_model.save` as input.

`<name>` is the attribute path of the function in the saved object (`predict`,
`dense.__call__`, or `dense` for a saved callable Module; empty or the function's own name
for a saved tj.Function). `--list` prints its saved signatures in the form the command line
takes them; otherwise `--signature` (and `--arg` for Python values) selects one of them --
or nothing when only one was saved -- and the session lowers, emits and runs its
ConcreteFunction as it does a traced Python function's.

Loading a directory runs its machine code when it matches this host (see
`tj.saved_model.load`): use it only on directories you trust.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from tracejit.frontend.api.concrete_function import ConcreteFunction

MANIFEST = "manifest.json"


def is_saved_input(target: str) -> bool:
    """`dir:name` where `dir` holds a saved model's manifest."""
    directory, colon, _ = target.rpartition(":")
    return bool(colon) and os.path.isfile(os.path.join(directory, MANIFEST))


def loaded_function(target: str) -> Any:
    """The LoadedFunction `target` names."""
    from tracejit.frontend.export.saved_model import load
    from tracejit.frontend.export.saved_model.loaded import LoadedFunction
    from tracejit.tools.opt_args import UsageError

    directory, _, name = target.rpartition(":")
    found: object = load(directory)
    if isinstance(found, LoadedFunction):
        if name not in ("", found.__name__):
            raise UsageError(f"{directory} holds one function, '{found.__name__}', not '{name}'")
        return found
    for part in [p for p in name.split(".") if p]:
        if isinstance(found, dict) and part in found:
            found = found[part]
        elif hasattr(found, part):
            found = getattr(found, part)
        else:
            raise UsageError(f"{directory} has no function '{name}'{_available(directory)}")
    if not isinstance(found, LoadedFunction):
        found = getattr(found, "__dict__", {}).get("__call__")  # a callable saved Module
    if not isinstance(found, LoadedFunction):
        raise UsageError(f"'{name}' in {directory} is not a function{_available(directory)}")
    return found


def _available(directory: str) -> str:
    names = saved_function_names(directory)
    return f"; saved functions: {', '.join(names)}" if names else ""


def saved_function_names(directory: str) -> list[str]:
    """The attribute paths of every saved function (for messages and --list)."""
    import json

    with open(os.path.join(directory, MANIFEST), encoding="utf-8") as handle:
        root = json.load(handle).get("root", {})
    names: list[str] = []

    def visit(node: dict, path: str) -> None:
        kind = node.get("kind")
        if kind == "function":
            names.append(path)
        elif kind == "object":
            for key, child in node.get("attributes", {}).items():
                visit(child, f"{path}.{key}" if path else key)
        elif kind in ("list", "tuple", "dict"):
            for key, child in node.get("items", []):
                visit(child, f"{path}.{key}")

    visit(root, "")
    return names


def saved_concrete(target: str, signature: str | None, arg_texts: list[str]) -> Any:
    """The ConcreteFunction of `target` that `--signature`/`--arg` select."""
    from tracejit.tools.opt_args import UsageError
    from tracejit.tools.python_input import bind_in_order, python_arguments
    from tracejit.tools.signature_parser import parse_signature

    function = loaded_function(target)
    concretes = function.concrete_functions
    if signature is None and not arg_texts:
        if len(concretes) == 1:
            return concretes[0]
        raise UsageError(
            f"{target} has {len(concretes)} saved signatures: choose one with --signature "
            f"(and --arg), as --list prints them:\n{list_signatures(target)}"
        )
    specs = parse_signature(signature) if signature is not None else []
    args, kwargs = bind_in_order(concretes[0].record.signature, specs, python_arguments(arg_texts))
    try:
        return function.get_concrete_function(*args, **kwargs)
    except ValueError:
        raise UsageError(
            f"{target} has no saved signature for these arguments; it has:\n"
            f"{list_signatures(target)}"
        ) from None


def list_signatures(target: str) -> str:
    """`--list`: each saved signature as the command-line flags that select it."""
    directory, _, name = target.rpartition(":")
    from tracejit.frontend.export.saved_model import load
    from tracejit.frontend.export.saved_model.loaded import LoadedFunction

    if not name and not isinstance(load(directory), LoadedFunction):
        targets = [f"{directory}:{n}" for n in saved_function_names(directory)]
    else:
        targets = [target]
    return "".join(_list_one(t) for t in targets)


def _list_one(target: str) -> str:
    function = loaded_function(target)
    count = len(function.concrete_functions)
    lines = [f"{target}: {count} saved signature{'s' if count != 1 else ''}"]
    for concrete in function.concrete_functions:
        lines.append("  " + _flags(concrete))
        lines.append(f"      returns {_describe(concrete.structured_outputs)}")
    return "\n".join(lines) + "\n"


def _flags(concrete: ConcreteFunction) -> str:
    """`--signature "f32[4,3]" --arg scale=2.0` for one concrete function."""
    from tracejit.frontend.staging.tensor_spec import TensorSpec

    specs: list[str] = []
    values: list[str] = []
    args, kwargs = concrete.structured_input_signature
    names = list(concrete.record.signature.parameters)
    for name, value in [*zip(names, args, strict=False), *kwargs.items()]:
        from tracejit.runtime.structure import flatten

        leaves, _ = flatten(value)
        if all(isinstance(leaf, TensorSpec) for leaf in leaves):
            specs += [_spec_text(leaf) for leaf in leaves]
        else:
            values.append(f"--arg {name}={value!r}")
    text = f'--signature "{", ".join(specs)}"' if specs else "(no tensor arguments)"
    return " ".join([text, *values])


def _spec_text(spec: Any) -> str:
    from tracejit.tools.signature_parser import SHORT_DTYPES

    short = {np.dtype(v): k for k, v in SHORT_DTYPES.items()}[np.dtype(spec.dtype)]
    if spec.shape is None:
        return f"{short}[*]"
    return f"{short}[{','.join('?' if d is None else str(d) for d in spec.shape)}]"


def _describe(value: object) -> str:
    from tracejit.frontend.staging.tensor_spec import TensorSpec

    if isinstance(value, TensorSpec):
        return _spec_text(value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {_describe(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_describe(v) for v in value) + "]"
    if isinstance(value, tuple):
        inner = ", ".join(_describe(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    return repr(value)
