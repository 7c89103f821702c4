"""Which code objects AutoGraph converted, and which user functions it could not.

AutoGraph (frontend/autograph/, a floor up) marks them here; an error raised while tracing
(`Tensor.__bool__` in Python control flow, frontend/staging/tensor.py) reads the marks to
say what the user should write instead, without importing AutoGraph.
"""

from __future__ import annotations

import types

CONVERTED: set[types.CodeType] = set()  # code objects AutoGraph produced (never re-converted)
NO_SOURCE: set[types.CodeType] = set()  # user functions AutoGraph could not convert


def conversion_state(code: types.CodeType) -> str:
    """ "converted" for code AutoGraph produced, "no source" for a user function it could not
    convert, else "unconverted" (autograph=False, or a function it never saw)."""
    if code in CONVERTED:
        return "converted"
    if code in NO_SOURCE:
        return "no source"
    return "unconverted"
