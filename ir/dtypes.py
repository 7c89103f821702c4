"""NumPy dtypes <-> xDSL element types, and tensor types built from NumPy shapes.

The `tj` dialect keeps NumPy's dtype in its tensor types: signed integers are the
builtin signless `iN` (as in MLIR's arith), unsigned integers are `uiN`, bool is `i1`,
complex64/complex128 are `complex<f32>`/`complex<f64>` (two floats, real part first, as
NumPy stores them). Lowering passes map `uiN` to signless `iN` and pick the unsigned
arith ops.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeGuard

import numpy as np
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ComplexType,
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerType,
    Signedness,
    TensorType,
    f16,
    f32,
    f64,
    i1,
)
from xdsl.ir import Attribute, SSAValue

_SIGNED = {np.dtype(f"int{n}"): IntegerType(n) for n in (8, 16, 32, 64)}
_UNSIGNED = {np.dtype(f"uint{n}"): IntegerType(n, Signedness.UNSIGNED) for n in (8, 16, 32, 64)}
_FLOATS: dict[np.dtype, Attribute] = {
    np.dtype(np.float16): f16,
    np.dtype(np.float32): f32,
    np.dtype(np.float64): f64,
}

_COMPLEX: dict[np.dtype, Attribute] = {
    np.dtype(np.complex64): ComplexType(f32),
    np.dtype(np.complex128): ComplexType(f64),
}

DTYPE_TO_ELEMENT: dict[np.dtype, Attribute] = {
    np.dtype(np.bool_): i1,
    **_SIGNED,
    **_UNSIGNED,
    **_FLOATS,
    **_COMPLEX,
}
ELEMENT_TO_DTYPE: dict[Attribute, np.dtype] = {t: d for d, t in DTYPE_TO_ELEMENT.items()}

SUPPORTED_DTYPES = tuple(DTYPE_TO_ELEMENT)


class UnsupportedDtypeError(TypeError):
    """A NumPy dtype that tracejit cannot trace (the frontend names the value and line)."""

    def __init__(self, dtype: Any, message: str | None = None):
        self.dtype = dtype
        self.named = message is not None  # the frontend said which value has it, and where
        names = ", ".join(str(d) for d in SUPPORTED_DTYPES)
        super().__init__(
            message or f"dtype {dtype} is not supported by tracejit (supported: {names})"
        )


def element_type(dtype: np.dtype | type) -> Attribute:
    """The xDSL element type for a NumPy dtype; UnsupportedDtypeError if tracejit does not
    support it."""
    try:
        return DTYPE_TO_ELEMENT[np.dtype(dtype)]
    except (KeyError, TypeError):
        raise UnsupportedDtypeError(np.dtype(dtype)) from None


def numpy_dtype(element: Attribute) -> np.dtype:
    """The NumPy dtype of an xDSL element type (inverse of `element_type`)."""
    try:
        return ELEMENT_TO_DTYPE[element]
    except KeyError:
        raise TypeError(f"element type {element} has no NumPy dtype") from None


def element_of(value: SSAValue) -> Attribute:
    """The element type of a tensor value (`ui8` stays unsigned: NumPy's dtype)."""
    assert isinstance(value.type, TensorType), value.type
    return value.type.get_element_type()


def is_float(element: Attribute) -> TypeGuard[Float16Type | Float32Type | Float64Type]:
    return isinstance(element, Float16Type | Float32Type | Float64Type)


def is_complex(element: Attribute) -> TypeGuard[ComplexType]:
    return isinstance(element, ComplexType)


def is_inexact(element: Attribute) -> bool:
    """Float or complex: the element types with NaN, Inf and signed zeros."""
    return is_float(element) or is_complex(element)


def component_type(element: Attribute) -> Attribute:
    """The float type of a complex element's two parts (`complex<f32>` -> `f32`); a real
    element type is its own."""
    return element.get_element_type() if isinstance(element, ComplexType) else element


def is_integer(element: Attribute) -> bool:
    """True for iN and uiN with N > 1 (bool is i1 and is not an integer here)."""
    return isinstance(element, IntegerType) and element.width.data > 1


def is_unsigned(element: Attribute) -> bool:
    return isinstance(element, IntegerType) and element.signedness.data == Signedness.UNSIGNED


def is_bool(element: Attribute) -> bool:
    return element == i1


# Element kinds: what decides which scalar instructions an element-wise op lowers to
# (`arith` integers are signless, so signed and unsigned are told apart here).
FLOAT, SIGNED, UNSIGNED, BOOL = "float", "signed", "unsigned", "bool"
COMPLEX = "complex"


def element_kind(element: Attribute) -> str:
    """float, complex, signed, unsigned or bool."""
    if is_float(element):
        return FLOAT
    if is_complex(element):
        return COMPLEX
    if is_bool(element):
        return BOOL
    return UNSIGNED if is_unsigned(element) else SIGNED


def tensor_type(shape: Sequence[int | None], dtype: np.dtype | type | Attribute) -> TensorType:
    """`tensor<...>` for a NumPy-style shape; `None` entries become dynamic (`?`) dims."""
    element = dtype if isinstance(dtype, Attribute) else element_type(dtype)
    dims = [DYNAMIC_INDEX if d is None else int(d) for d in shape]
    return TensorType(element, dims)


def static_shape(ttype: TensorType) -> tuple[int | None, ...]:
    """The shape of a tensor type with `None` for dynamic dims."""
    return tuple(None if d == DYNAMIC_INDEX else d for d in ttype.get_shape())
