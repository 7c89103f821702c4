"""The retracing warning: five traces within the last five calls of one Function.

Like TensorFlow's, it says how many calls retraced and what most likely caused it
(the argument whose key differed from the closest earlier trace), once per Function.
"""

from __future__ import annotations

import collections
import warnings
from collections.abc import Iterable
from typing import Any

from tracejit.frontend.api.cache_key import describe_leaf_change
from tracejit.runtime.structure import leaf_owner

THRESHOLD = 5


class RetracingWarning(UserWarning):
    """A tj.Function keeps tracing: pass arrays, use input_signature or reduce_retracing.

    Warned once per Function, when 5 of its last 5 calls traced, with what most likely
    caused it (the argument whose key changed).

    >>> import warnings
    >>> @tj.function
    ... def square(x):
    ...     return x * x
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     for n in range(1, 6):
    ...         _ = square(float(n))  # a Python number: one trace per value
    >>> print(caught[-1].message)  # doctest: +ELLIPSIS
    5 out of the last 5 calls to square triggered tj.function retracing (the last one
    because of a new Python value (4.0 -> 5.0) in argument 'x')...
    """


class RetracingMonitor:
    def __init__(self, function_name: str):
        self.function_name = function_name
        self.recent_calls: collections.deque[bool] = collections.deque(maxlen=THRESHOLD)
        self.last_reason = "its first call"
        self.warned = False

    def record_trace(self, key: object, earlier: Iterable[object], names: list[str]) -> None:
        self.last_reason = _reason(key, list(earlier), names)

    def record_call(self, traced: bool) -> None:
        self.recent_calls.append(traced)
        if self.warned or len(self.recent_calls) < THRESHOLD or not all(self.recent_calls):
            return
        self.warned = True
        warnings.warn(
            f"{THRESHOLD} out of the last {THRESHOLD} calls to {self.function_name} triggered "
            f"tj.function retracing (the last one because of {self.last_reason}). Tracing is "
            "expensive: pass NumPy arrays instead of Python values, use input_signature= or "
            "reduce_retracing=True, and do not create tj.function objects in a loop.",
            RetracingWarning,
            stacklevel=4,
        )


def _reason(key: Any, earlier: list[Any], names: list[str]) -> str:
    treedef, leaves = key[0], key[1]
    candidates = [k for k in earlier if k[0] == treedef and len(k[1]) == len(leaves)]
    if not candidates:
        return "a new argument structure" if earlier else "its first call"
    # among equally close traces, the most recent one explains the retrace best
    closest = min(
        reversed(candidates),
        key=lambda k: sum(a != b for a, b in zip(k[1], leaves, strict=True)),
    )
    position = next(i for i, (a, b) in enumerate(zip(closest[1], leaves, strict=True)) if a != b)
    name = leaf_owner(treedef, names, position, names[-1] if names else "?")
    return f"{describe_leaf_change(closest[1][position], leaves[position])} in argument '{name}'"
