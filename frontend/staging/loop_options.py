"""`tj.autograph.experimental.set_loop_options`: options of the staged loop being traced.

As in TensorFlow, the call goes first in a loop's body and applies to the innermost staged
loop around it; in a loop run by Python (and eagerly) it does nothing:

    v = np.zeros(1)
    for i in tj.range(n):
        tj.autograph.experimental.set_loop_options(shape_invariants=[(v, tj.TensorSpec([None]))])
        v = np.concatenate([v, x[i : i + 1]])

- `shape_invariants`: (loop variable, TensorSpec or shape) pairs; a `None` dim may change
  from one iteration to the next (without it, a loop variable's shape must stay the same:
  the ValueError TensorFlow raises too). The loop is traced again with those dims unknown.
- `maximum_iterations`: the loop stops after that many iterations (an int or a 0-d tensor).
- `parallel_iterations`, `swap_memory`: accepted and ignored (hints for TensorFlow's executor;
  a tracejit loop runs its iterations in order on one thread).

The body records its options while it is traced (`recording`); `control_flow._staged_while`
then traces the loop again with them applied.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

UNSPECIFIED = object()


@dataclass
class LoopOptions:
    """What one staged loop's body asked for."""

    shape_invariants: list[tuple[Any, tuple[int | None, ...]]] = field(default_factory=list)
    maximum_iterations: Any = None  # an int or a 0-d tensor

    def changes_trace(self) -> bool:
        return bool(self.shape_invariants) or self.maximum_iterations is not None


_recording: list[LoopOptions | None] = []  # one slot per staged loop body being traced


@contextmanager
def recording() -> Iterator[list[LoopOptions | None]]:
    """While a staged loop's body is traced: the slot its `set_loop_options` fills."""
    _recording.append(None)
    slot: list[LoopOptions | None] = [None]
    try:
        yield slot
    finally:
        slot[0] = _recording.pop()


def set_loop_options(
    parallel_iterations: Any = UNSPECIFIED,
    swap_memory: Any = UNSPECIFIED,
    maximum_iterations: Any = UNSPECIFIED,
    shape_invariants: Any = UNSPECIFIED,
) -> None:
    """Options for the staged loop whose body this call opens (as TensorFlow's
    `tf.autograph.experimental.set_loop_options`).

    The call goes first in a loop's body and applies to the innermost staged loop around
    it; in a loop Python runs (and eagerly) it does nothing.

    Parameters
    ----------
    parallel_iterations, swap_memory
        Accepted and ignored (hints for TensorFlow's executor; a tracejit loop runs its
        iterations in order).
    maximum_iterations : int or 0-d integer tensor, optional
        Stop the loop after that many iterations.
    shape_invariants : list of (loop variable, tj.TensorSpec or shape), optional
        Let a loop variable's `None` dims change from one iteration to the next (without
        it, a loop variable must keep its shape: a ValueError). The loop is traced again
        with those dims unknown.

    Raises
    ------
    TypeError
        A shape invariant is not a (variable, spec) pair.
    NotImplementedError
        A shape invariant of unknown rank.

    Examples
    --------
    >>> @tj.function
    ... def prefixes(x, n):
    ...     v = np.zeros(1)
    ...     for i in tj.range(n):
    ...         tj.autograph.experimental.set_loop_options(
    ...             shape_invariants=[(v, tj.TensorSpec([None]))]
    ...         )
    ...         v = np.concatenate([v, x[i : i + 1]])  # one longer every iteration
    ...     return v
    >>> prefixes(np.array([1.0, 2.0, 3.0]), np.int64(3))
    array([0., 1., 2., 3.])
    >>> @tj.function
    ... def doubled(x):
    ...     while x < 100.0:
    ...         tj.autograph.experimental.set_loop_options(maximum_iterations=3)
    ...         x = x * 2.0
    ...     return x
    >>> doubled(np.float64(1.0))
    np.float64(8.0)
    """
    del parallel_iterations, swap_memory  # TensorFlow's executor hints: nothing to do here
    if not _recording:
        return  # a loop run by Python: nothing to stage
    options = LoopOptions()
    if shape_invariants is not UNSPECIFIED:
        options.shape_invariants = [_invariant(pair) for pair in shape_invariants]
    if maximum_iterations is not UNSPECIFIED:
        options.maximum_iterations = maximum_iterations
    _recording[-1] = options


def _invariant(pair: Any) -> tuple[Any, tuple[int | None, ...]]:
    from tracejit.frontend.staging.source_location import at_user_line

    try:
        value, spec = pair
    except (TypeError, ValueError):
        raise TypeError(
            at_user_line(
                "shape_invariants takes (loop variable, shape) pairs, e.g. "
                f"[(v, tj.TensorSpec([None]))], got {pair!r}"
            )
        ) from None
    shape = getattr(spec, "shape", spec)
    if shape is None:
        raise NotImplementedError(
            at_user_line("a shape invariant of unknown rank is not supported: give its rank")
        )
    return value, tuple(None if d is None else int(d) for d in shape)
