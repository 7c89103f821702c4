"""Index loops: when a Python `for` over `range(n)` becomes a compiled loop.

TensorFlow's AutoGraph unrolls every loop over a Python iterable: the program gets one copy
of the body per iteration. That is right for a few iterations over Python values, and
hopeless for the index loops NumPy and numba users write:

    for i in range(x.shape[0]):
        for j in range(x.shape[0]):
            d[i, j] = np.sqrt(np.sum((x[i] - x[j]) ** 2))

The rule here: a `for` over a `range`, a 1-d NumPy array, or `enumerate(tensor)` is staged
(compiled as `tj.while`, like `tj.range`) when it has more iterations than
`tj.config.loop_unroll_limit()` (8 by default) and its body uses a traced value (reads a
name holding a tensor, or changes one). Otherwise it is unrolled. Inside unrolled loops the
count is of copies: the trip counts multiply, so an 8-by-8 nest stages its inner loop (8
copies of a loop, not 64 of the body); such a short loop whose body cannot be staged is
unrolled without a warning, as it would be on its own. A short loop of two or more trips
whose body holds a loop statement is staged too when the first copy of its body, traced
and thrown away, stages a loop (`for _ in range(steps):` around a sweep of a grid: one
loop nest to compile instead of `steps` copies of it); not when the body prints, breaks
or returns. `tj.range` always
stages; `for i in list(range(n))` always unrolls; `tj.config.set_loop_unroll_limit(None)`
turns the rule off.

What staging means for the body: it is traced once, with the loop counter a tensor (weakly
typed, as the Python int it stands for), so Python side effects in it (`print`, appending
to a list) happen once, while tracing: a `print` in the body warns (`StagedPrintWarning`).
A body that cannot be traced that way (it indexes a Python list with the counter, say) is
unrolled instead, with a `LoopUnrolledWarning` saying why, since unrolling is slow for
long loops. A body that changes a variable's shape (`z = z[keep]`) is staged again with the
dims that change unknown at trace time (operators._staged_with_relaxed_shapes).
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

import numpy as np

from tracejit.frontend.staging.source_location import user_location
from tracejit.frontend.staging.tensor import Tensor
from tracejit.runtime.structure import flatten

DEFAULT_LOOP_UNROLL_LIMIT = 8
UNROLL_LIMIT: int | None = DEFAULT_LOOP_UNROLL_LIMIT
"""Loops of more iterations than this are staged (`tj.config.set_loop_unroll_limit`)."""


class LoopUnrolledWarning(UserWarning):
    """A long Python loop over traced values was unrolled, not compiled as a loop.

    A `for` over `range(...)` longer than `tj.config.loop_unroll_limit()` is compiled as a
    loop when its body can be traced once for every iteration; when it cannot (it indexes
    a Python list with the counter, say), it is unrolled and this warns, since unrolling
    traces one copy of the body per iteration.

    >>> import warnings
    >>> weights = [float(w) for w in range(20)]
    >>> @tj.function
    ... def weighted(x):
    ...     total = x * 0.0
    ...     for i in range(20):
    ...         total = total + x * weights[i]  # a Python list indexed by the counter
    ...     return total
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     weighted(np.float64(1.0))
    np.float64(190.0)
    >>> caught[0].category.__name__
    'LoopUnrolledWarning'
    """


class Enumerated:
    """`enumerate(values, start)` in converted code, for a tensor or a 1-d NumPy array of
    `values`: a loop over it may be staged with the index (a plain `enumerate` object
    would be unrolled). Iterated by Python, it is `enumerate` itself."""

    def __init__(self, values: Tensor | np.ndarray, start: int = 0):
        self.values, self.start = values, start

    def __iter__(self):
        return enumerate(self.values, self.start)


class Zipped:
    """`zip(x, y, ...)` in converted code, of tensors (at least one) and NumPy arrays: a loop
    over it is staged over the rows of all, as many as the shortest has (Python's `zip`),
    when a first dim is known only at run time (one trace serves every size) or the loop is
    long (the rule above). Iterated by Python, it is `zip` itself."""

    def __init__(self, values: tuple[Tensor | np.ndarray, ...], strict: bool = False):
        self.values, self.strict = values, strict

    def __iter__(self):
        return zip(*self.values, strict=self.strict)


def zip_(*iterables: Any, strict: bool = False) -> Any:
    arrays = all(isinstance(i, Tensor | np.ndarray) and i.ndim > 0 for i in iterables)
    if iterables and arrays and any(isinstance(i, Tensor) for i in iterables):
        return Zipped(iterables, strict)
    return zip(*iterables, strict=strict)


def enumerate_(iterable: Any, start: int = 0) -> Any:
    rows = isinstance(iterable, Tensor) and iterable.ndim > 0  # an unknown dim: a run-time size
    if rows or trip_count(iterable) is not None and isinstance(iterable, np.ndarray):
        return Enumerated(iterable, start)
    return enumerate(iterable, start)


def trip_count(iterable: object) -> int | None:
    if isinstance(iterable, Enumerated):
        return trip_count(iterable.values)
    if isinstance(iterable, Zipped):
        lengths = [v.shape[0] for v in iterable.values]
        known = [n for n in lengths if isinstance(n, int)]
        return min(known) if len(known) == len(lengths) else None
    if isinstance(iterable, range):
        return len(iterable)
    if isinstance(iterable, np.ndarray) and iterable.ndim == 1 and iterable.dtype.kind in "biuf":
        return len(iterable)
    return None


def _traced(value: object) -> bool:
    try:
        leaves = flatten(value)[0]
    except Exception:  # not a structure flatten knows: a plain Python object
        return False
    return any(isinstance(leaf, Tensor) for leaf in leaves)


# How many copies of the current code unrolled Python loops make (the product of their trip
# counts, per thread): a short loop inside one is unrolled only while the copies of its body
# stay within the limit (8 by 8 nested loops would trace 64 bodies, each compiled).
_copies = threading.local()


def unrolled_copies() -> int:
    return getattr(_copies, "count", 1)


@contextmanager
def unrolling(iterable: Any):
    """The body of an unrolled loop over `iterable` runs in here."""
    before = unrolled_copies()
    _copies.count = before * max(trip_count(iterable) or 1, 1)
    try:
        yield
    finally:
        _copies.count = before


def should_stage(iterable: Any, loop: Any, reads: tuple[str, ...], frame: FrameType) -> bool:
    """Stage this loop (see the module docstring)?"""
    limit = UNROLL_LIMIT
    count = trip_count(iterable)
    if limit is None or count is None or count * unrolled_copies() <= limit:
        return False
    names = frame.f_locals
    used = [names.get(n, frame.f_globals.get(n)) for n in reads]
    return any(_traced(v) for v in used) or any(_traced(v) for v in loop.get_state())


def may_wrap_a_loop(iterable: Any, body: Callable[..., None], reads: tuple[str, ...]) -> bool:
    """A short index loop (not staged by `should_stage`) whose converted body runs a loop
    statement: staged too when its first trip stages that loop (operators.for_stmt), so the
    inner loop is compiled once rather than once per copy. Not with a `print` in it (an
    unrolled loop prints on every copy while tracing, as the user may expect)."""
    count = trip_count(iterable)
    if UNROLL_LIMIT is None or count is None or count < 2 or "print" in reads:
        return False
    code = getattr(body, "__code__", None)
    return code is not None and not _LOOP_STATEMENTS.isdisjoint(code.co_names)


_LOOP_STATEMENTS = frozenset({"for_stmt", "while_stmt"})  # a converted loop's `ag__.` call


class StagedPrintWarning(UserWarning):
    """`print` in the body of a Python loop that is compiled as a loop runs once."""


def stage_or_unroll(
    iterable: Any,
    stage: Callable[[], None],
    unroll: Callable[[], None],
    loop: Any,
    reads: tuple[str, ...] = (),
    retry: Callable[[str], bool] = lambda reason: False,
) -> None:
    """Stage the loop; if its body cannot be staged, `retry(why)` may stage it another way
    (True when it did); else unroll it (with a warning)."""
    if "print" in reads:
        warnings.warn(
            f"the loop at {user_location()} is compiled as a loop (an index loop of "
            f"{trip_count(iterable)} iterations), so the `print` in its body runs once, "
            "while tracing; use tj.print to print every iteration when the function runs",
            StagedPrintWarning,
            stacklevel=3,
        )
    where = str(user_location())
    reason = staged(stage, loop)
    if reason is None or retry(reason):
        return
    if UNROLL_LIMIT is not None and (trip_count(iterable) or 0) <= UNROLL_LIMIT:
        unroll()  # a short loop, staged only for the copies around it: as it was
        return
    warn_unrolled(
        f"the loop at {where} ({trip_count(iterable)} iterations) was unrolled, not "
        f"compiled as a loop, because its body cannot be traced once for every "
        f"iteration: {reason}. Unrolling traces one copy of the body per iteration; "
        "rewrite the body so that it works with a tensor index (or use tj.range to get "
        "this error), or iterate a list to unroll on purpose"
    )
    unroll()


def staged(stage: Callable[[], None], loop: Any) -> str | None:
    """Run `stage()`; when the body cannot be staged, undo what it traced and return why
    (None when it was staged)."""
    from tracejit.frontend.staging.control_flow import _TraceMark
    from tracejit.frontend.staging.tracing import current_trace

    state = loop.get_state()
    mark = _TraceMark(current_trace())
    try:
        stage()
    except (TypeError, ValueError, IndexError, NotImplementedError, KeyError) as error:
        loop.set_state(state)
        mark.rewind([], [])
        if isinstance(error, KeyError):  # a dict indexed with the counter (a tensor)
            return "a dict (or other mapping) is indexed with a traced value"
        return str(error).split("\n")[0]
    return None


# --- warnings of attempts that may be thrown away ----------------------------------------------
_held = threading.local()


def warn_unrolled(message: str) -> None:
    """Issue a `LoopUnrolledWarning` at the user's line, or hold it while an attempt that
    may be thrown away is traced (`holding_warnings`)."""
    held = getattr(_held, "messages", None)
    if held is not None:
        held.append(message)
        return
    from tracejit.frontend.staging.trace_warnings import warn_at_user_line

    warn_at_user_line(message, LoopUnrolledWarning)


@contextmanager
def holding_warnings() -> Iterator[list[str]]:
    """Hold the `LoopUnrolledWarning`s of what is traced inside (an inner loop unrolled in a
    trial of an outer one): the caller issues them (`warn_unrolled`) if the trial is kept."""
    outer = getattr(_held, "messages", None)
    held: list[str] = []
    _held.messages = held
    try:
        yield held
    finally:
        _held.messages = outer
