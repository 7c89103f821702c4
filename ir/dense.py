"""NumPy arrays <-> `DenseIntOrFPElementsAttr`, without boxing every element.

Two xDSL details are handled here so no other module has to know them:
* xDSL stores i1 `true` as the byte 0xFF, NumPy stores it as 0x01;
* small float literals holding NaN/Inf print as hex integers that the parser reads
  back as large finite floats, so such constants are printed as one hex string.
"""

from __future__ import annotations

import numpy as np
from tracejit.ir.dtypes import numpy_dtype, tensor_type
from xdsl.dialects.builtin import BytesAttr, DenseIntOrFPElementsAttr, TensorType
from xdsl.printer import Printer


def dense_from_array(array: np.ndarray) -> DenseIntOrFPElementsAttr:
    """A dense attribute holding `array`; an array of equal elements is stored as a splat."""
    array = np.asarray(array, order="C")  # (ascontiguousarray would make 0-d arrays 1-d)
    ttype = tensor_type(array.shape, array.dtype)
    if array.size > 1 and _is_splat(array):
        array = array.reshape(-1)[:1]
    if array.dtype == np.bool_:
        array = array.astype(np.int8) * np.int8(-1)
    data = array.astype(array.dtype.newbyteorder("<"), copy=False).tobytes()
    return DenseIntOrFPElementsAttr(ttype, BytesAttr(data))


def _is_splat(array: np.ndarray) -> bool:
    """All elements bit-identical (so NaN splats count, and -0.0 differs from 0.0)."""
    raw = array.reshape(-1).view(np.uint8).reshape(array.size, array.dtype.itemsize)
    return bool((raw == raw[0]).all())


def array_from_dense(attr: DenseIntOrFPElementsAttr) -> np.ndarray:
    """The NumPy array an attribute holds (a fresh, writable copy)."""
    ttype = attr.get_type()
    assert isinstance(ttype, TensorType)
    dtype = numpy_dtype(ttype.get_element_type())
    shape = ttype.get_shape()
    raw = attr.data.data
    if dtype == np.bool_:
        flat = np.frombuffer(raw, np.int8) != 0
    else:
        flat = np.frombuffer(raw, dtype.newbyteorder("<")).astype(dtype)
    count = int(np.prod(shape, dtype=np.int64))
    if flat.size == 1 and count != 1:  # a splat
        return np.full(shape, flat[0], dtype)
    return flat.reshape(shape).copy()


def print_dense(printer: Printer, attr: DenseIntOrFPElementsAttr) -> None:
    """Print `attr` so that the parser reads back exactly the same bits."""
    array = array_from_dense(attr)
    if array.dtype.kind != "f" or np.isfinite(array).all():
        printer.print_attribute(attr)
        return
    hex_data = attr.data.data.hex().upper()
    printer.print_string(f'dense<"0x{hex_data}"> : ')
    printer.print_attribute(attr.get_type())
