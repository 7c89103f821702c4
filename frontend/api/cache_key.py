"""The trace cache key of one call: what about the arguments forces a new trace.

DESIGN §2: arrays and NumPy scalars are keyed by (shape, dtype) and become symbolic
tensors; Python primitives by (type, value) and are baked into the trace; containers
are flattened and their structure is part of the key; any other object by identity,
held weakly, so a dead object's traces can be dropped.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

from tracejit.frontend.staging.tensor import Tensor
from tracejit.frontend.staging.tensor_spec import TensorSpec

_PRIMITIVES = (bool, int, float, complex, str, bytes, type(None))


class IdentityKey:
    """Equal only to a key of the very same (live) object; holds it weakly if possible."""

    __slots__ = ("object_id", "ref", "strong", "__weakref__")

    def __init__(self, obj: object, on_death: Callable[[IdentityKey], None] | None = None):
        self.object_id = id(obj)
        self.strong = None
        try:
            callback = (lambda _ref, key=self: on_death(key)) if on_death else None
            self.ref: Any = weakref.ref(obj, callback)
        except TypeError:  # not weak-referenceable: keep it alive instead
            self.ref, self.strong = None, obj

    @property
    def alive(self) -> bool:
        return self.ref is None or self.ref() is not None

    def __hash__(self) -> int:
        return self.object_id

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, IdentityKey)
            and self.object_id == other.object_id
            and self.alive
            and other.alive
        )

    def __repr__(self) -> str:
        target = self.ref() if self.ref is not None else self.strong
        return f"<{type(target).__name__} object at {self.object_id:#x}>"


def native(dtype: np.dtype) -> np.dtype:
    """`>f4` keys and computes like `float32`: inputs are converted before the call."""
    return dtype if dtype.isnative else dtype.newbyteorder("=")


def is_tensor_leaf(leaf: object) -> bool:
    """Leaves that become inputs of the compiled kernel (or of a nested call)."""
    return isinstance(leaf, np.ndarray | np.generic | TensorSpec | Tensor)


def tensor_key(shape: tuple | None, dtype: np.dtype) -> tuple:
    return ("tensor", tuple(shape) if shape is not None else None, dtype)


def scalar_key(dtype: np.dtype) -> tuple:
    """The key of a NumPy scalar argument: immutable, unlike a 0-d array (`y = x; y += 1`
    writes a 0-d array x, not a scalar x), so the two never share a trace."""
    return ("numpy scalar", dtype)


def _is_scalar_key(key: object) -> bool:
    return isinstance(key, tuple) and key[:1] == ("numpy scalar",)


def leaf_key(leaf: Any, on_death: Callable[[IdentityKey], None] | None = None) -> Any:
    if isinstance(leaf, np.generic):
        return scalar_key(native(leaf.dtype))
    if isinstance(leaf, np.ndarray):
        return tensor_key(leaf.shape, native(leaf.dtype))
    if isinstance(leaf, Tensor) and traced_scalar(leaf):
        return scalar_key(leaf.dtype)  # a caller's NumPy scalar: not written in place
    if isinstance(leaf, TensorSpec | Tensor):
        return tensor_key(leaf.shape, leaf.dtype)
    if isinstance(leaf, _PRIMITIVES):
        if isinstance(leaf, float) and math.isnan(leaf):
            return (float, "nan")  # NaN != NaN would make every call a cache miss
        if isinstance(leaf, float | complex) and _has_negative_zero(leaf):
            return (type(leaf), leaf, repr(leaf))  # -0.0 == 0.0, but `x / s` tells them apart
        return (type(leaf), leaf)
    return IdentityKey(leaf, on_death)


def traced_scalar(leaf: Tensor) -> bool:
    """Whether a traced value a calling trace passes is a NumPy scalar there (`x -= 1`
    rebinds it), not a 0-d array (which `x -= 1` writes in place)."""
    from tracejit.frontend.staging.views import updates_in_place

    return not updates_in_place(leaf)


def _has_negative_zero(number: float | complex) -> bool:
    parts = (number.real, number.imag) if isinstance(number, complex) else (number,)
    return any(part == 0 and math.copysign(1.0, part) < 0 for part in parts)


def is_tensor_key(key: object) -> bool:
    return isinstance(key, tuple) and len(key) == 3 and key[0] == "tensor"


def _same_kind(a: Any, b: Any) -> bool:
    """Two tensor keys of one dtype and rank (shapes may differ)."""
    return (
        is_tensor_key(a)
        and is_tensor_key(b)
        and a[2] == b[2]
        and a[1] is not None
        and b[1] is not None
        and len(a[1]) == len(b[1])
    )


def accepts(traced: tuple, call: tuple) -> bool:
    """Whether a trace keyed `traced` (dims may be None) serves a call keyed `call`."""
    if len(traced) != len(call):
        return False
    for t, c in zip(traced, call, strict=True):
        if _same_kind(t, c):
            if any(d is not None and d != e for d, e in zip(t[1], c[1], strict=True)):
                return False
        elif t != c:
            return False
    return True


def generalize(old: tuple, new: tuple) -> tuple | None:
    """`new` with every tensor dim that differs from `old` replaced by None (what
    reduce_retracing traces), or None when the keys differ in more than dims."""
    if len(old) != len(new) or old == new:
        return None
    relaxed = []
    for o, n in zip(old, new, strict=True):
        if _same_kind(o, n):
            shape = tuple(a if a == b else None for a, b in zip(o[1], n[1], strict=True))
            relaxed.append(("tensor", shape, n[2]))
        elif o == n:
            relaxed.append(n)
        else:
            return None
    return tuple(relaxed)


def spec_of(leaf: Any) -> TensorSpec:
    if isinstance(leaf, TensorSpec):
        return leaf
    if isinstance(leaf, Tensor):
        return TensorSpec(leaf.shape, leaf.dtype)
    return TensorSpec(np.shape(leaf), native(leaf.dtype))


def describe_leaf_change(old: Any, new: Any) -> str:
    """Why two keys of one argument differ, for the retracing warning."""
    if _is_scalar_key(old) and _is_scalar_key(new):
        return f"a new dtype ({old[1]} -> {new[1]})"
    if _is_scalar_key(old) and is_tensor_key(new):
        return "an array where a NumPy scalar was (a 0-d array can be written in place)"
    if is_tensor_key(old) and _is_scalar_key(new):
        return "a NumPy scalar where an array was (a scalar cannot be written in place)"
    if is_tensor_key(old) and is_tensor_key(new):
        if old[2] != new[2]:
            return f"a new dtype ({old[2]} -> {new[2]})"
        return f"a new shape ({old[1]} -> {new[1]})"
    if isinstance(old, IdentityKey) or isinstance(new, IdentityKey):
        return "a different Python object"
    if isinstance(old, int) and isinstance(new, int):  # input_signature rank keys
        return f"a new rank ({old} -> {new})"
    return f"a new Python value ({old[1]!r} -> {new[1]!r})"
