"""Finding the user's source line, so IR locations and errors point at user code."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from types import FrameType

import numpy as np

# tracejit's own code (its subpackages; the root also holds tests/ and examples/) and NumPy's.
_PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_SKIPPED_DIRS = tuple(
    os.path.join(_PACKAGE_ROOT, sub) + os.sep
    for sub in ("frontend", "ir", "passes", "codegen", "runtime", "compiler", "tools")
) + (os.path.dirname(os.path.abspath(np.__file__)) + os.sep,)
_SKIPPED_FILES = (os.path.join(_PACKAGE_ROOT, "__init__.py"),)


@dataclass(frozen=True)
class SourceLocation:
    filename: str
    line: int
    column: int = 0

    def __str__(self) -> str:
        return f"{os.path.basename(self.filename)}:{self.line}"


def user_frame() -> FrameType | None:
    """The innermost stack frame that is not in tracejit or NumPy."""
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        filename = os.path.abspath(frame.f_code.co_filename)
        internal = filename.startswith(_SKIPPED_DIRS) or filename in _SKIPPED_FILES
        if not internal and "<frozen" not in filename:
            return frame
        frame = frame.f_back
    return None


def user_location() -> SourceLocation | None:
    """Where the innermost stack frame that is not in tracejit or NumPy is."""
    frame = user_frame()
    return None if frame is None else SourceLocation(frame.f_code.co_filename, frame.f_lineno)


def at_user_line(message: str) -> str:
    """`message` followed by ` (file.py:12)` when the user's line is known."""
    location = user_location()
    return f"{message} ({location})" if location else message
