"""`tj.saved_model.load(export_dir, use_object_code=True)`: the saved object, runnable
without the Python source that defined it.

Every file is checked before use: the manifest's format and version (`manifest.py`), each
IR file against its SHA-256 and then parsed and verified, each function record against its
IR's arguments (`concrete_record.py`), each Variable's `.npy` against its saved shape and
dtype. Anything wrong raises `LoadError` (a ValueError) naming the file.

Object code runs only when its key matches the IR and this process's compiler and CPU
(`object_code.py`); otherwise, and always with `use_object_code=False`, a function compiles
from its IR on first use. Trust: a saved directory is code -- whoever could write it can run
machine code in the process that loads it, as with pickle. Load only directories you trust.
"""

from __future__ import annotations

import hashlib
import io
import os
from pathlib import Path
from typing import Any

import numpy as np

from tracejit.frontend.export.saved_model import concrete_record, manifest, object_code
from tracejit.frontend.export.saved_model.errors import LoadError
from tracejit.frontend.export.saved_model.loaded import (
    LoadedFunction,
    LoadedObject,
    callable_object,
)
from tracejit.frontend.staging.variable import Variable


def load(export_dir: str | os.PathLike[str], use_object_code: bool = True) -> Any:
    """Load what `tj.saved_model.save` wrote to `export_dir`: a loaded function (for a saved
    Function) or an object with the saved attributes; `loaded.signatures` holds the named
    entry points given to `save(..., signatures={...})`.

    Loading runs the directory's machine code when it was compiled for this CPU and
    compiler: load only directories you trust. `use_object_code=False` ignores the saved
    machine code and compiles every function from its saved IR.

    Parameters
    ----------
    export_dir : str or os.PathLike
        A directory `tj.saved_model.save` wrote.
    use_object_code : bool, default True
        Run the saved machine code when it was compiled for this CPU and compiler (else the
        saved IR is compiled, as with False).

    Returns
    -------
    A loaded function (callable with arrays that match one of its saved traces), or an
    object with the saved attributes (Variables, loaded functions, nested objects).

    Raises
    ------
    LoadError
        The directory is missing, truncated or corrupt, of a newer format, or its IR fails
        verification.

    Examples
    --------
    >>> import tempfile
    >>> @tj.function
    ... def add_one(x):
    ...     return x + 1.0
    >>> _ = add_one(np.ones(2))  # the trace that is saved
    >>> with tempfile.TemporaryDirectory() as directory:
    ...     tj.saved_model.save(add_one, directory)
    ...     loaded = tj.saved_model.load(directory)
    >>> loaded
    <loaded tj.Function add_one (1 signatures)>
    >>> loaded(np.array([1.0, 2.0]))
    array([2., 3.])
    """
    directory = Path(export_dir)
    contents = manifest.read_manifest(directory)
    try:
        return _Loader(directory, contents, use_object_code).root()
    except LoadError:
        raise
    except Exception as error:  # a well-formed manifest with wrong contents: never a crash
        raise LoadError(
            f"{directory / manifest.FILENAME} is malformed ({type(error).__name__}: {error})"
        ) from None


class _Loader:
    def __init__(self, directory: Path, contents: dict, use_object_code: bool):
        self.directory = directory
        self.contents = contents
        self.use_object_code = use_object_code
        self.variables = [self._variable(e) for e in contents["variables"]]
        self.concretes: dict[int, tuple[Any, bool]] = {}

    def root(self) -> Any:
        root = self._node(self.contents["root"], "")
        signatures = {
            str(name): self._function([int(i) for i in indices], str(name))
            for name, indices in self.contents.get("signatures", {}).items()
        }
        if isinstance(root, LoadedObject):
            root.signatures = signatures
        elif isinstance(root, LoadedFunction):
            root.signatures = signatures  # type: ignore[attr-defined]  # set on the instance, as for LoadedObject
        return root

    def _node(self, node: dict, path: str) -> object:
        kind = node["kind"]
        if kind == "variable":
            return self.variables[int(node["index"])]
        if kind == "function":
            name = str(node.get("name") or path.rpartition(".")[2] or "function")
            return self._function([int(i) for i in node["functions"]], name)
        if kind == "object":
            attributes = {
                str(name): self._node(child, f"{path}.{name}" if path else str(name))
                for name, child in node["attributes"].items()
            }
            call = attributes.pop("__call__", None)
            obj = callable_object(call) if isinstance(call, LoadedFunction) else LoadedObject()
            if call is not None:
                attributes["__call__"] = call  # `loaded.__call__` is the loaded function too
            for name, value in attributes.items():
                setattr(obj, name, value)
            return obj
        if kind in ("list", "tuple"):
            items = [self._node(child, f"{path}.{key}") for key, child in node["items"]]
            return items if kind == "list" else tuple(items)
        if kind == "dict":
            return {key: self._node(child, f"{path}.{key}") for key, child in node["items"]}
        raise LoadError(f"unknown object kind {kind!r} in {self.directory / manifest.FILENAME}")

    def _function(self, indices: list[int], name: str) -> LoadedFunction:
        loaded = [self._concrete(i) for i in indices]
        return LoadedFunction(name, [c for c, _ in loaded], [used for _, used in loaded])

    def _concrete(self, index: int) -> tuple[Any, bool]:
        if index in self.concretes:
            return self.concretes[index]
        record = self.contents["functions"][index]
        text = self._ir_text(record)
        concrete = concrete_record.from_record(record, text, self.variables)
        used = False
        saved_code = record.get("object_code")
        if self.use_object_code and isinstance(saved_code, dict):
            data = self._read(saved_code["file"], required=False)
            if data is not None:
                used = object_code.install(
                    concrete, object_code.ObjectCode(str(saved_code["key"]), data)
                )
        self.concretes[index] = (concrete, used)
        return concrete, used

    def _ir_text(self, record: dict) -> str:
        name = record["ir_file"]
        data = self._read(name)
        assert data is not None
        if hashlib.sha256(data).hexdigest() != record["ir_sha256"]:
            raise LoadError(
                f"{self.directory / name} does not match its checksum in the manifest: it "
                "was truncated or changed after saving"
            )
        try:
            return data.decode()
        except UnicodeDecodeError:
            raise LoadError(f"{self.directory / name} is not IR text") from None

    def _read(self, name: str, required: bool = True) -> bytes | None:
        path = self._inside(name)
        try:
            return path.read_bytes()
        except OSError as error:
            if not required:
                return None
            raise LoadError(f"cannot read {path}: {error.strerror}") from None

    def _inside(self, name: str) -> Path:
        """`name` under the directory (a manifest naming files elsewhere is refused)."""
        path = (self.directory / name).resolve()
        if self.directory.resolve() not in path.parents:
            raise LoadError(f"the manifest names a file outside {self.directory}: {name!r}")
        return path

    def _variable(self, entry: dict) -> Variable:
        path = self._inside(entry["file"])
        data = self._read(entry["file"])
        assert data is not None
        if hashlib.sha256(data).hexdigest() != entry["sha256"]:
            raise LoadError(
                f"the Variable {path} does not match its checksum in the manifest: it was "
                "damaged or changed after saving"
            )
        try:
            value = np.load(io.BytesIO(data), allow_pickle=False)
        except (OSError, ValueError, EOFError) as error:
            raise LoadError(f"cannot read the Variable {path}: {error}") from None
        shape, dtype = tuple(entry["shape"]), np.dtype(entry["dtype"])
        if not isinstance(value, np.ndarray) or value.shape != shape or value.dtype != dtype:
            got = f"shape {getattr(value, 'shape', '?')} and dtype {getattr(value, 'dtype', '?')}"
            raise LoadError(
                f"the Variable {path} has {got}, but the saved functions expect shape "
                f"{shape} and dtype {dtype}"
            )
        return Variable(value, name=str(entry["name"]), trainable=bool(entry["trainable"]))
