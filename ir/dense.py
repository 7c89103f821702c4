"""NumPy arrays <-> `DenseIntOrFPElementsAttr`, without boxing every element.

Two xDSL details are handled here so no other module has to know them:
* xDSL stores i1 `true` as the byte 0xFF, NumPy stores it as 0x01;
* xDSL's float literals do not always read back as the same bits: elements printed
  in hex (NaN, Inf, 1000001.0) are parsed as integers converted to float, and
  `[-0.0, 0.0]` prints as a splat. Float constants whose text does not read back
  exactly are printed as one hex string of their bytes instead.
"""

from __future__ import annotations

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import BytesAttr, DenseIntOrFPElementsAttr, TensorType
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import ParseError

from tracejit.ir.dtypes import is_inexact, numpy_dtype, tensor_type


def dense_from_array(array: np.ndarray) -> DenseIntOrFPElementsAttr:
    """A dense attribute holding `array`; an array of equal elements is stored as a splat
    (found without reading the elements for a broadcast of one value, whose strides are 0)."""
    ttype = tensor_type(np.shape(array), np.asarray(array).dtype)
    if array.size > 1 and all(stride == 0 for stride in array.strides):
        array = np.asarray(array[(0,) * array.ndim]).reshape(1)  # np.broadcast_to of one value
    array = np.asarray(array, order="C")  # (ascontiguousarray would make 0-d arrays 1-d)
    if array.size > 1 and _is_splat(array):
        array = array.reshape(-1)[:1]
    if array.dtype == np.bool_:
        array = array.astype(np.int8) * np.int8(-1)
    # xDSL wants a TensorType parameterised by an int/float element type; tensor_type's is one
    return DenseIntOrFPElementsAttr(ttype, BytesAttr(_little_endian_bytes(array)))  # type: ignore[arg-type]  # tensor_type's element is an int/float


def _little_endian_bytes(array: np.ndarray) -> bytes:
    return array.astype(array.dtype.newbyteorder("<"), copy=False).tobytes()


def _is_splat(array: np.ndarray) -> bool:
    """All elements bit-identical (so NaN splats count, and -0.0 differs from 0.0)."""
    raw = array.reshape(-1).view(np.uint8).reshape(array.size, array.dtype.itemsize)
    return bool((raw == raw[0]).all())


def _stored_elements(attr: DenseIntOrFPElementsAttr) -> tuple[np.ndarray, tuple[int, ...]]:
    """(the elements as stored, flat: one for a splat; the attribute's shape)."""
    ttype = attr.get_type()
    assert isinstance(ttype, TensorType)
    dtype = numpy_dtype(ttype.get_element_type())
    raw = attr.data.data
    if dtype == np.bool_:
        flat = np.frombuffer(raw, np.int8) != 0
    else:
        flat = np.frombuffer(raw, dtype.newbyteorder("<")).astype(dtype)
    return flat, tuple(ttype.get_shape())


def array_from_dense(attr: DenseIntOrFPElementsAttr) -> np.ndarray:
    """The NumPy array an attribute holds (a fresh, writable copy)."""
    flat, shape = _stored_elements(attr)
    count = int(np.prod(shape, dtype=np.int64))
    if flat.size == 1 and count != 1:  # a splat
        return np.full(shape, flat[0], flat.dtype)
    return flat.reshape(shape).copy()


def splat_from_dense(attr: DenseIntOrFPElementsAttr) -> np.generic | None:
    """The value of every element if all are bit-identical (a NaN splat is one, -0.0 and
    0.0 differ), else None; zero for an attribute with no elements (see ConstantOp.splat).
    A splat stored as one element is not expanded."""
    flat, shape = _stored_elements(attr)
    # NumPy's stubs type `[()]` as giving an array; on a 0-d array it gives a scalar
    if 0 in shape:
        return np.zeros((), flat.dtype)[()]  # type: ignore[return-value]  # a NumPy scalar
    return flat[0] if flat.size == 1 or _is_splat(flat) else None


def _is_inexact(attr: DenseIntOrFPElementsAttr) -> bool:
    ttype = attr.get_type()
    return isinstance(ttype, TensorType) and is_inexact(ttype.get_element_type())


def _reads_back(text: str, attr: DenseIntOrFPElementsAttr) -> bool:
    try:  # xDSL cannot parse its own hex parts of complex numbers ("(0x7ff8..., 1.0)")
        parsed = Parser(Context(), text).parse_attribute()
    except ParseError:
        return False
    if not isinstance(parsed, DenseIntOrFPElementsAttr):
        return False
    return array_from_dense(parsed).tobytes() == array_from_dense(attr).tobytes()


def print_dense(printer: Printer, attr: DenseIntOrFPElementsAttr) -> None:
    """Print `attr` so that the parser reads back exactly the same bits."""
    text = str(attr)
    if not _is_inexact(attr) or text.startswith('dense<"0x') or _reads_back(text, attr):
        printer.print_string(text)
        return
    hex_data = _little_endian_bytes(array_from_dense(attr)).hex().upper()
    printer.print_string(f'dense<"0x{hex_data}"> : ')
    printer.print_attribute(attr.get_type())
