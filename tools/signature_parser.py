"""Parse `--signature "f32[4,?], i64[]"` into TensorSpecs (`?` unknown dim, `*` unknown rank)."""

from __future__ import annotations

import re

import numpy as np

from tracejit.frontend.staging.tensor_spec import TensorSpec

SHORT_DTYPES = {
    "bool": np.bool_,
    "i8": np.int8,
    "i16": np.int16,
    "i32": np.int32,
    "i64": np.int64,
    "u8": np.uint8,
    "u16": np.uint16,
    "u32": np.uint32,
    "u64": np.uint64,
    "f16": np.float16,
    "f32": np.float32,
    "f64": np.float64,
    "c64": np.complex64,
    "c128": np.complex128,
}

_SPEC = re.compile(r"\s*(\w+)\s*\[([^\]]*)\]\s*")


def parse_signature(text: str) -> list[TensorSpec]:
    """`"f32[4,?], i64[]"` -> [TensorSpec((4, None), float32), TensorSpec((), int64)]."""
    specs, position = [], 0
    text = text.strip()
    while position < len(text):
        match = _SPEC.match(text, position)
        if not match or match.group(1) not in SHORT_DTYPES:
            raise ValueError(
                f"bad --signature entry at {text[position:]!r}; expected e.g. f32[4,?]"
            )
        specs.append(_spec(match.group(1), match.group(2)))
        position = match.end()
        if position < len(text):
            if text[position] != ",":
                raise ValueError(f"expected ',' in --signature at {text[position:]!r}")
            position += 1
    return specs


def _spec(dtype: str, dims: str) -> TensorSpec:
    dims = dims.strip()
    if dims == "*":
        return TensorSpec(None, SHORT_DTYPES[dtype])
    shape = [] if not dims else [d.strip() for d in dims.split(",")]
    return TensorSpec([None if d == "?" else int(d) for d in shape], SHORT_DTYPES[dtype])
