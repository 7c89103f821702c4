"""Tracing `path/to/file.py:function` for `--signature` (or its own `input_signature`),
with Python-valued arguments from `--arg name=value`.

The result is the function's `ConcreteFunction`: the CLI lowers its `graph.module` through
`compiler/driver.py` exactly as the ConcreteFunction does, so both show the same IR.
"""

from __future__ import annotations

import ast
import importlib.util
import inspect
import pathlib
import sys
from typing import Any

from tracejit.frontend.api.concrete_function import ConcreteFunction
from tracejit.frontend.api.function import Function
from tracejit.tools.opt_args import UsageError, split_assignment
from tracejit.tools.signature_parser import parse_signature


def load_function(target: str) -> Function:
    """Import `path/to/file.py` (its directory on sys.path meanwhile) and get `function`."""
    path, _, name = target.rpartition(":")
    spec = importlib.util.spec_from_file_location("_tracejit_opt_input", path)
    if spec is None or spec.loader is None:
        raise UsageError(f"cannot import {path}")
    user_module = importlib.util.module_from_spec(spec)
    directory = str(pathlib.Path(path).resolve().parent)
    sys.path.insert(0, directory)
    try:
        spec.loader.exec_module(user_module)
    except FileNotFoundError as error:
        raise UsageError(f"cannot read {path}: {error.strerror}") from None
    finally:
        sys.path.remove(directory)
    found = getattr(user_module, name, None)
    if found is None:
        raise UsageError(f"{path} has no function '{name}'")
    return found if isinstance(found, Function) else Function(found)


def python_arguments(texts: list[str]) -> dict[str, object]:
    """`--arg n=3 --arg axis=(0,1)` -> {"n": 3, "axis": (0, 1)} (Python literals only)."""
    values = {}
    for text in texts:
        name, value = split_assignment(text, "--arg")
        try:
            values[name] = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            raise UsageError(
                f"--arg {name}: {value!r} is not a Python literal (quote strings: "
                f"--arg {name}=\"'{value}'\")"
            ) from None
    return values


def trace_python_input(
    target: str, signature: str | None, arg_texts: list[str]
) -> ConcreteFunction:
    """The ConcreteFunction of `target` for the tensor specs and Python values given."""
    function = load_function(target)
    values = python_arguments(arg_texts)
    if signature is not None:
        specs = parse_signature(signature)
    elif function.input_signature is not None:
        specs = list(function.input_signature)
    else:
        raise UsageError("a Python input needs --signature (or a function with input_signature)")
    args, kwargs = bind_in_order(inspect.signature(function.python_function), specs, values)
    concrete = function.get_concrete_function(*args, **kwargs)
    if isinstance(concrete, ConcreteFunction):  # not rank-polymorphic
        return concrete
    # A function whose input_signature has an unknown rank: one module per rank.
    if any(getattr(spec, "shape", ()) is None for spec in [*args, *kwargs.values()]):
        raise ValueError(
            "an input of unknown rank (`*`) has no single module to show; give its rank "
            "with `?` dims instead, e.g. f32[?,?]"
        )
    return concrete.concrete_for(*args, **kwargs)


def bind_in_order(
    signature: inspect.Signature, specs: list[Any], values: dict[str, Any]
) -> tuple[list[object], dict[str, object]]:
    """Give the tensor specs, in order, to the parameters that have no `--arg` value."""
    unknown = sorted(set(values) - set(signature.parameters))
    if unknown:
        raise UsageError(f"--arg {unknown[0]}: the function has no parameter '{unknown[0]}'")
    args: list[Any] = []
    kwargs = dict(values)
    remaining = list(specs)
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    for name, parameter in signature.parameters.items():
        if parameter.kind not in positional or (name not in values and not remaining):
            break
        args.append(kwargs.pop(name) if name in values else remaining.pop(0))
    if remaining:
        raise UsageError(f"--signature has {len(specs)} entries but the function takes fewer")
    return args, kwargs
