"""Arguments a traced function writes (`x[0] = v`, `x += 1`, `np.add(a, b, out=x)`).

NumPy functions change their argument arrays in place, and the caller sees it. A kernel
reads its inputs only, so a trace whose function writes an argument returns the
argument's final value as one more output (`TracedProgram.written_inputs` says which
input each such output belongs to), and the call copies it into the caller's array.
Before the kernel runs, the call refuses what NumPy could not do either (a read-only
array) and what it cannot do like NumPy (the written array sharing memory with another
argument: NumPy would see each write through the other name).
"""

from __future__ import annotations

from typing import Any

import numpy as np


def check_writable(program: Any, leaves: list[Any], name: str) -> None:
    """Raise before the call if a written argument cannot be written as NumPy would."""
    arrays = [leaves[i] for i in program.input_positions]
    for k in program.written_inputs:
        target = arrays[k]
        if isinstance(target, np.ndarray) and not target.flags.writeable:
            raise ValueError(
                f"{name}: argument {k + 1} is written by the function, but the array is "
                "read-only (assignment destination is read-only); pass a writable copy"
            )
        for j, other in enumerate(arrays):
            shared = j != k and isinstance(other, np.ndarray) and isinstance(target, np.ndarray)
            if shared and np.may_share_memory(target, other):
                raise ValueError(
                    f"{name}: argument {k + 1} is written by the function and shares memory "
                    f"with argument {j + 1}; NumPy would see the writes through both, which "
                    "tracejit does not reproduce. Pass a copy of one of them"
                )


def copy_back(program: Any, leaves: list[Any], written: list[np.ndarray]) -> None:
    """Copy the written arguments' final values into the caller's arrays (a value that
    was not an array, e.g. a list converted for the call, is left as it was)."""
    for k, value in zip(program.written_inputs, written, strict=True):
        target = leaves[program.input_positions[k]]
        if isinstance(target, np.ndarray):
            np.copyto(target, value, casting="unsafe")
