"""Finding the user's source line, so IR locations and errors point at user code."""

from __future__ import annotations

import os
import sys
import sysconfig
from collections.abc import Iterator
from dataclasses import dataclass
from types import CodeType, FrameType

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


def _is_internal(filename: str) -> bool:
    """A frame of tracejit, NumPy or the import machinery (asked for every frame of every
    staged op's location: the answer for an absolute path is kept)."""
    known = _INTERNAL.get(filename)
    if known is not None:
        return known
    path = os.path.abspath(filename)
    internal = path.startswith(_SKIPPED_DIRS) or path in _SKIPPED_FILES or "<frozen" in path
    if os.path.isabs(filename):  # a relative one depends on the working directory
        _INTERNAL[filename] = internal
    return internal


_INTERNAL: dict[str, bool] = {}


def user_frame() -> FrameType | None:
    """The innermost stack frame that is not in tracejit or NumPy."""
    return next(user_frames(), None)


def user_frames(stop: CodeType | None = None) -> Iterator[FrameType]:
    """The stack frames that are not in tracejit or NumPy, innermost first (up to the
    first frame running `stop`)."""
    frame: FrameType | None = sys._getframe(1)
    while frame is not None and frame.f_code is not stop:
        if not _is_internal(frame.f_code.co_filename):
            yield frame
        frame = frame.f_back


def user_location() -> SourceLocation | None:
    """Where the innermost stack frame that is not in tracejit or NumPy is."""
    frame = user_frame()
    return None if frame is None else SourceLocation(frame.f_code.co_filename, frame.f_lineno)


def at_user_line(message: str) -> str:
    """`message` followed by ` (file.py:12)` when the user's line is known."""
    location = user_location()
    return f"{message} ({location})" if location else message


# Where installed libraries live (site-packages, and the standard library): a frame there
# that is not tracejit's or NumPy's belongs to a library the user called (SciPy, ...).
_LIBRARY_DIRS = tuple(
    os.path.abspath(p) + os.sep
    for p in {sysconfig.get_paths()[k] for k in ("purelib", "platlib", "stdlib")}
)


def _is_library(filename: str) -> bool:
    path = os.path.abspath(filename)
    return path.startswith(_LIBRARY_DIRS) and not path.startswith(_SKIPPED_DIRS)


def library_call() -> tuple[str, SourceLocation | None] | None:
    """When tracejit was reached from inside a library the user's code called (SciPy
    converting a traced array with np.asarray, say): that library function's public name
    (`scipy.linalg.expm`) and the user's line that called it. None when the innermost
    frame outside tracejit and NumPy is the user's own."""
    frame = user_frame()
    if frame is None or not _is_library(frame.f_code.co_filename):
        return None
    outermost = frame
    while frame is not None and _is_library(frame.f_code.co_filename):
        outermost = frame
        frame = frame.f_back
    while frame is not None and _is_internal(frame.f_code.co_filename):  # AutoGraph's call
        frame = frame.f_back
    module = str(outermost.f_globals.get("__name__", "?"))
    public = ".".join(part for part in module.split(".") if not part.startswith("_"))
    name = f"{public}.{outermost.f_code.co_name}"
    where = None if frame is None else SourceLocation(frame.f_code.co_filename, frame.f_lineno)
    return name, where


def py_function_hint(name: str) -> str:
    """What to write instead of a call tracejit cannot compile."""
    return (
        f"wrap the call in tj.py_function, which runs it on the arrays' values when the "
        f"kernel runs: `y = tj.py_function({name}, [x], Tout=tj.TensorSpec(shape, dtype))` "
        "with the result's shape and dtype"
    )
