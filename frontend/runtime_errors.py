"""Turning a kernel's non-zero status into the Python exception its message names.

Compiled kernels return 0 or the 1-based index of the failed check's message (see
`passes/lower_asserts.py`); messages look like "IndexError: index 3 is out of bounds".
"""

from __future__ import annotations

from collections.abc import Sequence

from tracejit.frontend.errors import FailedPreconditionError, InvalidArgumentError

ERROR_TYPES: dict[str, type[Exception]] = {
    "IndexError": IndexError,
    "ValueError": ValueError,
    "AssertionError": AssertionError,
    "InvalidArgumentError": InvalidArgumentError,
    "FailedPreconditionError": FailedPreconditionError,
}


def raise_for_status(status: int, messages: Sequence[str]) -> None:
    if not 0 < status <= len(messages):
        raise RuntimeError(f"compiled kernel returned an unknown status {status}")
    name, _, text = messages[status - 1].partition(": ")
    raise ERROR_TYPES.get(name, InvalidArgumentError)(text)
