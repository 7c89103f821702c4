"""Run-time callbacks: the Python side of `tj.print` and `tj.py_function` in a kernel.

A lowered module declares one function per callback site (`__tj_callback_<n>`,
see `passes/bufferize/state.py`), taking buffer addresses and the dynamic dims
(the kernel ABI) and returning an i32 status. `CallbackSet` builds a ctypes function
for each from its description (`CallbackSite`, which the compiled-code cache can
store as JSON) and hands their addresses to the JIT. An exception raised inside a
callback is kept (per thread) and re-raised by the caller as itself.
"""

from __future__ import annotations

import ctypes
import sys
import threading
from dataclasses import dataclass
from typing import Any

import numpy as np

from tracejit.ir.runtime_contract import PRINT_ATTR


def format_value(value: Any) -> str:
    """NumPy's text for arrays and NumPy scalars (`[1 2 3]`, `0.5`); str() otherwise."""
    if hasattr(value, "numpy") and not isinstance(value, np.ndarray | np.generic):
        value = value.numpy()
    if isinstance(value, np.ndarray | np.generic):
        return str(np.asarray(value)) if np.ndim(value) else str(np.asarray(value)[()])
    return str(value)


@dataclass(frozen=True)
class CallbackSite:
    name: str
    kind: str  # PRINT_ATTR or PY_FUNCTION_ATTR (ir/runtime_contract.py)
    payload: Any  # the print's text pieces, or the py_function's registered name
    dtypes: tuple[str, ...]
    shapes: tuple[tuple[int | None, ...], ...]

    def to_json(self) -> dict:
        return {
            "name": self.name,
            "kind": self.kind,
            "payload": self.payload,
            "dtypes": list(self.dtypes),
            "shapes": [list(s) for s in self.shapes],
        }

    @staticmethod
    def from_json(data: dict) -> CallbackSite:
        return CallbackSite(
            data["name"],
            data["kind"],
            data["payload"],
            tuple(data["dtypes"]),
            tuple(tuple(s) for s in data["shapes"]),
        )


def _view(address: int, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    """The kernel's buffer at `address` as a NumPy array (no copy)."""
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    if nbytes == 0:
        return np.empty(shape, dtype)
    raw = (ctypes.c_char * nbytes).from_address(address)
    # ctypes arrays export the buffer protocol, which typeshed's ctypes.Array does not declare
    return np.frombuffer(raw, dtype=dtype).reshape(shape)  # type: ignore[call-overload]  # a ctypes array is a buffer


class CallbackSet:
    """The ctypes functions of one compiled module's callback sites."""

    def __init__(self, sites: list[CallbackSite], py_functions: dict[str, Any]):
        self.sites = sites
        self._py_functions = py_functions
        self._keep_alive: list[Any] = []
        self._errors = threading.local()
        self.addresses = {site.name: self._make(site) for site in sites}

    def take_error(self) -> BaseException | None:
        error = getattr(self._errors, "value", None)
        self._errors.value = None
        return error

    def _make(self, site: CallbackSite) -> int:
        dtypes = [np.dtype(d) for d in site.dtypes]
        dynamic = sum(d is None for shape in site.shapes for d in shape)
        prototype = ctypes.CFUNCTYPE(
            ctypes.c_int32, *([ctypes.c_void_p] * len(dtypes)), *([ctypes.c_int64] * dynamic)
        )
        action = self._printer(site) if site.kind == PRINT_ATTR else self._caller(site)

        def callback(*raw: object) -> int:
            try:
                action(self._arrays(site, dtypes, raw))
                return 0
            except BaseException as error:  # noqa: BLE001 - handed back to the caller
                self._errors.value = error
                return 1

        function = prototype(callback)
        self._keep_alive.append(function)
        return ctypes.cast(function, ctypes.c_void_p).value or 0

    @staticmethod
    def _arrays(site: CallbackSite, dtypes: list[np.dtype], raw: tuple) -> list[np.ndarray]:
        addresses, dims = raw[: len(dtypes)], iter(raw[len(dtypes) :])
        arrays = []
        for address, dtype, shape in zip(addresses, dtypes, site.shapes, strict=True):
            concrete = tuple(next(dims) if d is None else d for d in shape)
            arrays.append(_view(address or 0, concrete, dtype))
        return arrays

    @staticmethod
    def _printer(site: CallbackSite):
        pieces = list(site.payload)

        def print_values(arrays: list[np.ndarray]) -> None:
            text = pieces[0]
            for array, piece in zip(arrays, pieces[1:], strict=True):
                text += format_value(array) + piece
            sys.stdout.write(text)

        return print_values

    def _caller(self, site: CallbackSite):
        spec = self._py_functions[site.payload]
        count = len(spec.outputs)

        def call(arrays: list[np.ndarray]) -> None:
            inputs = arrays[: len(arrays) - count]
            outputs = arrays[len(arrays) - count :]
            result = spec.func(*(a.copy() for a in inputs))
            values = [] if count == 0 else [result] if count == 1 else list(result)
            if len(values) != count:
                raise ValueError(f"py_function returned {len(values)} values, expected {count}")
            for out, value, out_spec in zip(outputs, values, spec.outputs, strict=True):
                array = np.asarray(value, dtype=out_spec.dtype)
                if array.shape != out.shape:
                    raise ValueError(
                        f"py_function output has shape {array.shape}, declared {out.shape}"
                    )
                out[...] = array

        return call
