"""JSON codecs for what a trace records besides its IR: argument and result structures
(`TreeDef`), the Python values baked into a trace, tensor specs and run-time dims.

Only what JSON can hold is saved: a trace keyed on an arbitrary Python object (not a number,
string, bool or None) cannot be rebuilt without that object's code, so it raises `SaveError`.
Namedtuples come back as `collections.namedtuple`s of the same name and fields (their
defining module may be missing where the function is loaded).
"""

from __future__ import annotations

import collections
import functools
from typing import Any

import numpy as np

from tracejit.frontend.export.saved_model.errors import LoadError, SaveError
from tracejit.frontend.staging.dims import DimSource, Product, Sliced, Sum
from tracejit.frontend.staging.tensor_spec import TensorSpec
from tracejit.runtime.structure import LEAF, TreeDef

_VALUE_TYPES = {"none": type(None), "bool": bool, "int": int, "float": float, "str": str}


# --- Python values -------------------------------------------------------------------------
def encode_value(value: object, what: str) -> dict[str, object]:
    """`{"type": "int", "value": 3}`; floats as their repr so NaN/inf round-trip."""
    for name, kind in _VALUE_TYPES.items():
        if type(value) is kind:
            if kind is float:
                return {"type": name, "value": repr(value)}
            return {"type": name, "value": value}
    if type(value) is complex:
        return {"type": "complex", "value": [repr(value.real), repr(value.imag)]}
    raise SaveError(
        f"{what} is the Python value {value!r} of type {type(value).__name__}, which was "
        "baked into the trace and cannot be saved (only None, bool, int, float, complex and "
        "str can): pass it as an array, or make it a tj.Variable"
    )


def decode_value(data: Any) -> Any:
    kind = data["type"]
    if kind == "float":
        return float(data["value"])
    if kind == "complex":
        return complex(float(data["value"][0]), float(data["value"][1]))
    expected = _VALUE_TYPES[kind]
    value = data["value"]
    if type(value) is not expected:
        raise LoadError(f"a saved value of type {kind} holds {value!r}")
    return value


# --- tensor specs --------------------------------------------------------------------------
def encode_spec(spec: TensorSpec) -> dict[str, object]:
    shape = None if spec.shape is None else list(spec.shape)
    return {"shape": shape, "dtype": np.dtype(spec.dtype).str}


def decode_spec(data: dict[str, Any]) -> TensorSpec:
    shape = data["shape"]
    if shape is not None and not all(d is None or (type(d) is int and d >= 0) for d in shape):
        raise LoadError(f"a saved tensor spec has the invalid shape {shape!r}")
    return TensorSpec(None if shape is None else tuple(shape), np.dtype(data["dtype"]))


# --- structures ----------------------------------------------------------------------------
def encode_treedef(treedef: TreeDef, what: str) -> dict[str, object]:
    children = [encode_treedef(c, what) for c in treedef.children]
    if treedef.kind == "leaf":
        return {"kind": "leaf"}
    if treedef.kind in ("list", "tuple"):
        return {"kind": treedef.kind, "children": children}
    if treedef.kind == "dict":
        keys = [encode_value(k, f"a dict key of {what}") for k in treedef.keys]
        return {"kind": "dict", "keys": keys, "children": children}
    if treedef.kind == "namedtuple":
        name = getattr(treedef.node_type, "__name__", "namedtuple")
        fields = list(treedef.keys)
        return {"kind": "namedtuple", "name": name, "fields": fields, "children": children}
    raise SaveError(
        f"{what} holds a {getattr(treedef.node_type, '__name__', treedef.kind)} "
        "(e.g. a tj.TensorArray), which cannot be saved: return its stack() instead"
    )


def decode_treedef(data: dict[str, Any]) -> TreeDef:
    kind = data["kind"]
    if kind == "leaf":
        return LEAF
    children = tuple(decode_treedef(c) for c in data["children"])
    if kind in ("list", "tuple"):
        return TreeDef(kind, None, (), children)
    if kind == "dict":
        keys = tuple(decode_value(k) for k in data["keys"])
        if len(keys) != len(children) or len(set(keys)) != len(keys):
            raise LoadError("a saved dict structure has keys that do not match its values")
        return TreeDef("dict", None, keys, children)
    if kind == "namedtuple":
        fields = tuple(str(f) for f in data["fields"])
        if len(fields) != len(children):
            raise LoadError("a saved namedtuple structure has fields that do not match it")
        return TreeDef("namedtuple", _namedtuple(data["name"], fields), fields, children)
    raise LoadError(f"unknown structure kind {kind!r}")


@functools.cache
def _namedtuple(name: str, fields: tuple[str, ...]) -> type:
    """One class per name and fields, so equal structures compare equal."""
    return collections.namedtuple(name, fields)


def same_structure(a: TreeDef, b: TreeDef) -> bool:
    """Equal structures, namedtuples compared by their fields (not their class)."""
    if a.kind != b.kind or a.keys != b.keys or len(a.children) != len(b.children):
        return False
    if a.kind == "custom" and a.node_type is not b.node_type:
        return False
    return all(same_structure(x, y) for x, y in zip(a.children, b.children, strict=True))


# --- run-time dims (frontend/staging/dims.py) ---------------------------------------------------
def encode_dim(dim: object) -> Any:
    if type(dim) is int:
        return dim
    if isinstance(dim, DimSource):
        return {"source": [dim.input, dim.axis]}
    if isinstance(dim, Sliced):
        return {"sliced": [encode_dim(dim.base), dim.start, dim.stop, dim.step]}
    if isinstance(dim, Product):
        return {"product": [[encode_dim(f) for f in dim.factors], dim.times]}
    if isinstance(dim, Sum):
        return {"sum": [encode_dim(t) for t in dim.terms]}
    raise SaveError(f"a dim known only to the kernel ({dim!r}) cannot be saved")


def decode_dim(data: object) -> Any:
    if type(data) is int:
        return data
    if not isinstance(data, dict) or len(data) != 1:
        raise LoadError(f"invalid saved dim {data!r}")
    (kind, value), = data.items()
    if kind == "source":
        return DimSource(int(value[0]), int(value[1]))
    if kind == "sliced":
        return Sliced(decode_dim(value[0]), value[1], value[2], int(value[3]))
    if kind == "product":
        return Product(tuple(decode_dim(f) for f in value[0]), int(value[1]))
    if kind == "sum":
        return Sum(tuple(decode_dim(t) for t in value))
    raise LoadError(f"invalid saved dim {data!r}")

