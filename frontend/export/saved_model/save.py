"""`tj.saved_model.save(obj, export_dir, signatures=None)`: write a directory that runs
`obj`'s compiled functions without their Python source.

    export_dir/            (mode 0700; every file 0600)
      manifest.json        manifest.py: structure, signatures, records, versions
      functions/<i>.mlir   the traced tj IR of concrete function i
      object_code/<i>.tjo  its machine code for this host (object_code.py)
      variables/<i>.npy    the value of Variable i

What is saved: for a `tj.Function`, every trace it has (or its input_signature's, traced
now if it was never called), or the ConcreteFunctions given as `signatures`; for any other
object, the Functions and Variables its attributes hold (`object_graph.py`), and
`signatures={name: function}` adds named entry points. A Function with nothing to save, a
trace calling `tj.py_function`, or an object holding nothing raises `SaveError` before
anything is written.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

import numpy as np

from tracejit.frontend.api import object_graph
from tracejit.frontend.api.concrete_function import ConcreteFunction
from tracejit.frontend.api.function import BoundConcreteFunction, BoundFunction, Function
from tracejit.frontend.api.rank_polymorphic import RankPolymorphicConcreteFunction
from tracejit.frontend.export.saved_model import concrete_record, manifest, object_code
from tracejit.frontend.export.saved_model.errors import SaveError
from tracejit.frontend.staging.variable import Variable


class _Writer:
    """Collects the functions and Variables of one save, numbering each once."""

    def __init__(self) -> None:
        self.functions: list[dict] = []
        self.texts: list[str] = []
        self.codes: list[object_code.ObjectCode | None] = []
        self.function_index: dict[tuple[int, bool], int] = {}
        self.variables: list[Variable] = []
        self.variable_paths: list[str] = []
        self.variable_index: dict[int, int] = {}
        # the concretes numbered, so no id is reused meanwhile
        self.keep: list[ConcreteFunction] = []

    def variable(self, variable: Variable, path: str = "") -> int:
        index = self.variable_index.get(id(variable))
        if index is None:
            index = self.variable_index[id(variable)] = len(self.variables)
            self.variables.append(variable)
            self.variable_paths.append(path)
        return index

    def concrete(self, concrete: ConcreteFunction, bound: bool) -> int:
        index = self.function_index.get((id(concrete), bound))
        if index is not None:
            return index
        record, text = concrete_record.to_record(concrete, self.variable, bound)
        index = self.function_index[(id(concrete), bound)] = len(self.functions)
        self.keep.append(concrete)
        self.functions.append(record)
        self.texts.append(text)
        self.codes.append(None)
        return index


def save(obj: object, export_dir: str | os.PathLike[str], signatures: object = None) -> None:
    """Save `obj` (a `tj.Function`, a `tj.ConcreteFunction`, or an object such as a
    `tj.Module` holding them and `tj.Variable`s) to the directory `export_dir`.

    `signatures`: for a Function, a ConcreteFunction or a list of them (only those traces are
    saved); for any object, a dict {name: Function or ConcreteFunction} of named entry
    points, loaded as `loaded.signatures[name]`. The directory holds machine code: like a
    pickle, load only directories you trust (`tj.saved_model.load` explains).

    What is saved: each Function's traces (its IR, and the machine code compiled for this
    CPU), the Variables' values, and the object's attributes that hold them, so that
    `load` gives an object with the same attributes and calls, without the Python source.
    A Function is saved with the traces it has: call it, or get its concrete functions,
    first (a Function with an `input_signature` is traced for it when it has no trace).

    Parameters
    ----------
    obj : tj.Function, tj.ConcreteFunction or object
        What to save: a function, or an object (a `tj.Module`, ...) whose attributes hold
        Functions, Variables and other such objects.
    export_dir : str or os.PathLike
        The directory to write (created if need be).
    signatures : optional
        For a Function: a ConcreteFunction or a list of them, the only traces saved. For
        any object: a dict {name: Function or ConcreteFunction} of named entry points,
        loaded as `loaded.signatures[name]`.

    Raises
    ------
    SaveError
        `obj` holds no Function and no Variable, or something a SavedModel cannot hold.

    Examples
    --------
    >>> import tempfile
    >>> class Scaler(tj.Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.factor = tj.Variable(2.0, name="factor")
    ...     @tj.function(input_signature=[tj.TensorSpec([None], tj.float64)])
    ...     def __call__(self, x):
    ...         return x * self.factor
    >>> with tempfile.TemporaryDirectory() as directory:
    ...     tj.saved_model.save(Scaler(), directory)
    ...     loaded = tj.saved_model.load(directory)
    >>> loaded(np.array([1.0, 2.0])), loaded.factor
    (array([2., 4.]), <tj.Variable 'factor:0' shape=() dtype=float64, numpy=2.0>)
    """
    from tracejit.frontend.export.saved_model.loaded import LoadedObject

    writer = _Writer()
    if signatures is None and isinstance(obj, LoadedObject):
        signatures = obj.signatures  # a loaded object saved again keeps its entry points
    named = signatures if isinstance(signatures, dict) else {}
    only = None if signatures is None or isinstance(signatures, dict) else signatures
    root = _root_node(obj, writer, only)
    signature_table = {
        node.path: _function_indices(node, writer, None) for node in _named_functions(named)
    }
    if not writer.functions and not writer.variables:
        raise SaveError(
            f"{type(obj).__name__} object holds no tj.Function and no tj.Variable: nothing to "
            "save (tj.saved_model.save saves Functions, and objects such as tj.Module "
            "holding them as attributes)"
        )
    for i, concrete in enumerate(writer.keep):
        writer.codes[i] = object_code.export(concrete)
    _write(Path(export_dir), writer, root, signature_table)


def _named_functions(named: dict) -> list[object_graph.FunctionNode]:
    found = []
    for name, function in named.items():
        node = object_graph.walk(function, str(name))
        if not isinstance(node, object_graph.FunctionNode):
            raise SaveError(
                f"signatures[{name!r}] is a {type(function).__name__}, not a tj.Function or "
                "ConcreteFunction"
            )
        found.append(node)
    return found


def _root_node(obj: object, writer: _Writer, only: object) -> dict:
    if only is not None and not isinstance(obj, Function | BoundFunction):
        raise SaveError(
            "signatures= as a ConcreteFunction or list selects traces of a tj.Function; for "
            "other objects give a dict {name: function}"
        )
    node = object_graph.walk(obj)
    if node is None:  # a Function, ConcreteFunction and any object give a node
        raise SaveError(f"cannot save a {type(obj).__name__}")
    return _encode(node, writer, only)


def _encode(node: object_graph.Node, writer: _Writer, only: object) -> dict:
    if isinstance(node, object_graph.VariableNode):
        return {"kind": "variable", "index": writer.variable(node.variable, node.path)}
    if isinstance(node, object_graph.FunctionNode):
        name = node.path.rpartition(".")[2] or getattr(node.function, "__name__", "function")
        if isinstance(node.function, ConcreteFunction):
            name = node.path.rpartition(".")[2] or node.function.graph.function_name
        indices = _function_indices(node, writer, only)
        return {"kind": "function", "name": name, "functions": indices}
    if isinstance(node, object_graph.ObjectNode):
        attributes = {name: _encode(c, writer, only) for name, c in node.attributes.items()}
        return {"kind": "object", "attributes": attributes}
    items = [[key, _encode(c, writer, only)] for key, c in node.items]
    return {"kind": node.kind, "items": items}


def _function_indices(node: object_graph.FunctionNode, writer: _Writer, only: object) -> list[int]:
    concretes = _concretes(node, only)
    bound = node.instance is not None
    return [writer.concrete(c, bound) for c in concretes]


def _concretes(node: object_graph.FunctionNode, only: Any) -> list[ConcreteFunction]:
    """The traces of a Function to save (for a method: those of `node.instance`)."""
    from tracejit.frontend.export.saved_model.loaded import LoadedFunction

    function = node.function
    what = f"tj.Function '{node.path or getattr(function, '__name__', '?')}'"
    if isinstance(function, ConcreteFunction):
        return [function]
    if isinstance(function, LoadedFunction):  # saved again: its traces are already unbound
        return list(function.concrete_functions)
    if isinstance(function, RankPolymorphicConcreteFunction):
        found = [c for c in function.concrete_functions() if isinstance(c, ConcreteFunction)]
        if not found:
            raise SaveError(f"{what}: {_NO_RANK}")
        return found
    if only is not None:
        return _selected(function, only, what)
    found = _traces(function, node.instance)
    if not found and function.input_signature is not None:
        target = function if node.instance is None else function.__get__(node.instance)
        traced = target.get_concrete_function()
        if isinstance(traced, BoundConcreteFunction):
            traced = traced.unbound
        found = _traces(function, node.instance)
        if not found and isinstance(traced, ConcreteFunction):
            found = [traced]
    if not found and function.input_signature is not None:
        raise SaveError(f"{what}: {_NO_RANK}")
    if not found:
        raise SaveError(
            f"{what} was never traced and has no input_signature, so it has no concrete "
            "function to save: call it (or its get_concrete_function(tj.TensorSpec(...))) "
            "before saving, or give it an input_signature"
        )
    return found


_NO_RANK = (
    "its input_signature has an unknown rank (TensorSpec(shape=None)) and it was never "
    "called, so no trace exists to save (machine code needs ranks): call it with arrays of "
    "each rank to save first"
)


def _traces(function: Function, instance: object) -> list[ConcreteFunction]:
    concretes = function.concrete_functions()
    if instance is None:
        return concretes
    return [c for c in concretes if _traced_for(c, instance)]


def _traced_for(concrete: ConcreteFunction, instance: object) -> bool:
    from tracejit.frontend.api.cache_key import IdentityKey

    key = concrete.record.static_leaves.get(0)
    if not isinstance(key, IdentityKey):
        return False
    return (key.ref() if key.ref is not None else key.strong) is instance


def _selected(function: Function, only: Any, what: str) -> list[ConcreteFunction]:
    chosen = list(only) if isinstance(only, list | tuple) else [only]
    chosen = [c.unbound if isinstance(c, BoundConcreteFunction) else c for c in chosen]
    own = {id(c) for c in _traces(function, None)}
    for concrete in chosen:
        if not isinstance(concrete, ConcreteFunction) or id(concrete) not in own:
            raise SaveError(
                f"signatures= must hold ConcreteFunctions of {what} (from its "
                f"get_concrete_function), not {concrete!r}"
            )
    return chosen


def _write(export_dir: Path, writer: _Writer, root: dict, signatures: dict) -> None:
    for sub in ("", "functions", "object_code", "variables"):
        directory = export_dir / sub
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.chmod(directory, 0o700)  # also when it existed: it will hold machine code
    for i, (record, text, code) in enumerate(
        zip(writer.functions, writer.texts, writer.codes, strict=True)
    ):
        data = text.encode()
        record["ir_file"] = f"functions/{i}.mlir"
        record["ir_sha256"] = hashlib.sha256(data).hexdigest()
        manifest.write_private(export_dir / record["ir_file"], data)
        record["object_code"] = None
        if code is not None:
            record["object_code"] = {"file": f"object_code/{i}.tjo", "key": code.key}
            manifest.write_private(export_dir / record["object_code"]["file"], code.data)
    variables = []
    for i, (variable, path) in enumerate(
        zip(writer.variables, writer.variable_paths, strict=True)
    ):
        entry: dict[str, Any] = {
            "file": f"variables/{i}.npy",
            "path": path,
            "name": variable.name,
            "trainable": bool(variable.trainable),
            "shape": list(variable.shape),
            "dtype": variable.dtype.str,
        }
        entry["sha256"] = _write_npy(export_dir / entry["file"], np.asarray(variable.numpy()))
        variables.append(entry)
    # The manifest last: a directory without one is visibly incomplete.
    contents = manifest.new_manifest(root, writer.functions, variables, signatures)
    manifest.write_json(export_dir / manifest.FILENAME, contents)


def _write_npy(path: Path, value: np.ndarray) -> str:
    """Write `value` as a private `.npy` file; the file's SHA-256 (a flipped bit in the data
    would otherwise load as a silently different value)."""
    import io

    buffer = io.BytesIO()
    np.save(buffer, value, allow_pickle=False)
    data = buffer.getvalue()
    manifest.write_private(path, data)
    return hashlib.sha256(data).hexdigest()
