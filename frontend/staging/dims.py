"""Dims unknown at trace time: where each comes from, and what must hold at run time.

A trace for `TensorSpec([None, 3])` sees a tensor of shape `(None, 3)`. Its first dim
is `DimSource(input=0, axis=0)`: the size of axis 0 of the first tensor input, known
when the kernel is called. Ops propagate these sources (an op whose result has an
operand's shape inherits its dims; broadcasts, reductions and matmul say how), so the
caller can compute every output shape from the input shapes before the call.

Shape ops derive dims the caller still computes: a slice gives a `Sliced` dim (`x[1:]`
of `TensorSpec([None])` has `Sliced(<dim 0 of input 0>, 1, None, 1)`), a flattening
reshape a `Product`, a concatenation a `Sum`. Dims the caller cannot compute (a dynamic
TensorArray's `stack()`, an `if` whose branches disagree) are `UNKNOWN`; outputs with
them are returned by the kernel itself (frontend/api/kernel_outputs.py). A size that depends
on the data (`x[mask]`, `np.nonzero`) is a `Counted` dim: unknown too, but two counts of
one mask are equal, so results selected with the same mask combine; where two different
counts meet, the kernel checks that they are equal (never broadcasting a count of 1).

A length the kernel computes from traced values -- a slice with traced bounds (`A[i, :j]`
in a staged loop), a size computed at run time (`np.zeros(n - 1)`), a loop variable under a
shape invariant -- is a `SliceLength`: it holds its `index` value, and two lengths of the same
key (dim, bounds, step) are the same size; lengths that meet otherwise are checked equal
when the kernel runs, so loop bodies that slice with the counter are traced once.

Broadcasting two different dims unknown at trace time, or one and a static size other
than 1, records a constraint (the two sizes must be equal) that the caller checks before
running the kernel, raising InvalidArgumentError. A dim unknown at trace time is never
broadcast from size 1: tracejit differs from NumPy there (pass a static 1 instead). The
exception is a slice that keeps at most one element (`x[:1]`) in an element-wise
operation, which numpy_api/one_element_broadcast.py broadcasts as NumPy does.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.dialects.builtin import FileLineColLoc
from xdsl.ir import SSAValue

from tracejit.frontend.staging.source_location import at_user_line


@dataclass(frozen=True)
class DimSource:
    """The run-time size of axis `axis` of tensor input number `input`."""

    input: int
    axis: int

    def __repr__(self) -> str:
        return f"<dim {self.axis} of input {self.input}>"


@dataclass(frozen=True)
class Unknown:
    """A dim unknown at trace time whose source tracejit cannot tell."""

    def __repr__(self) -> str:
        return "<unknown dim>"


UNKNOWN = Unknown()


@dataclass(frozen=True)
class Counted(Unknown):
    """The number of non-zero elements of the traced value `of` (the length of `x[mask]`,
    the rows of `np.argwhere(mask)`): only the kernel knows it, but two dims counting the
    same value are the same size, so `x[m] + y[m]` needs no check (numpy_api/masks.py)."""

    of: SSAValue  # the counted tensor's value (compared by identity)

    def __repr__(self) -> str:
        location = getattr(self.of.owner, "location", None)
        if not isinstance(location, FileLineColLoc):
            return "<count of non-zero elements>"
        where = f"{os.path.basename(location.filename.data)}:{location.line.data}"
        return f"<count of non-zero elements of the array made at {where}>"


class SliceLength(Unknown):
    """The length of a slice whose bounds are traced values (`A[i, :j]`, `x[lo:hi]` in a
    staged loop): only the kernel knows it (`count`, an `index` value), but it is a function
    of the sliced dim's size and the bounds, so two windows with the same `key` -- the same
    dim, the same bounds (traced values by identity, plus constant offsets: `j`, `i + 1`) and
    step -- are the same size, and `A[i, :j] * A[j, :j]` needs no check. Windows with
    different keys meet under a run-time check that their counts are equal."""

    def __init__(self, count: SSAValue, key: tuple | None) -> None:
        self.count = count
        self.key = key if key is not None else (count,)  # no key: equal only to itself

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SliceLength) and self.key == other.key

    def __hash__(self) -> int:
        return hash(("slice length", self.key))

    def __repr__(self) -> str:
        return "<slice length known at run time>"


@dataclass(frozen=True)
class Sliced:
    """`len(range(n)[start:stop:step])` where `n` is the run-time size of `base`."""

    base: DimSource | Sliced | Product | Sum
    start: int | None
    stop: int | None
    step: int

    def __repr__(self) -> str:
        bounds = ":".join("" if v is None else str(v) for v in (self.start, self.stop, self.step))
        return f"{self.base!r}[{bounds}]"


@dataclass(frozen=True)
class Product:
    """`times` times the product of `factors` (`x.reshape(-1)` of `(None, 3)` is
    `Product((<dim 0 of input 0>,), 3)`)."""

    factors: tuple[DimSource | Sliced | Product, ...]
    times: int

    def __repr__(self) -> str:
        return " * ".join([repr(f) for f in self.factors] + [str(self.times)])


@dataclass(frozen=True)
class Sum:
    """The sum of `terms` (concatenating `TensorSpec([None])` inputs `x` and `y`)."""

    terms: tuple[int | DimSource | Sliced | Product | Sum, ...]

    def __repr__(self) -> str:
        return " + ".join(repr(t) for t in self.terms)


Dim = int | DimSource | Sliced | Product | Sum | Unknown


def summed(dims: Sequence[Dim]) -> Dim:
    """The dim of dims joined end to end (an int when all are)."""
    if all(isinstance(d, int) for d in dims):
        return sum(dims)  # type: ignore[arg-type]  # all ints (checked above)
    if any(isinstance(d, Unknown) for d in dims):
        return UNKNOWN
    return Sum(tuple(dims))  # type: ignore[arg-type]  # no UNKNOWN (returned above)


def substituted(dim: Dim, source_dim: Callable[[DimSource], Dim]) -> Dim:
    """`dim` of a traced function in its caller's terms: each `DimSource` (an input's
    axis) replaced by `source_dim` of it, the caller's dim there; UNKNOWN where the result
    is not a dim tracejit follows (a slice of a caller's run-time length)."""
    if isinstance(dim, int):
        return dim
    if isinstance(dim, DimSource):
        return source_dim(dim)
    if isinstance(dim, Sliced):
        base = substituted(dim.base, source_dim)
        if isinstance(base, Unknown):
            return UNKNOWN
        return sliced(base, dim.start, dim.stop, dim.step)
    if isinstance(dim, Product):
        factors = [substituted(f, source_dim) for f in dim.factors]
        if any(isinstance(f, Unknown | Sum) for f in factors):
            return UNKNOWN
        times = dim.times * math.prod(f for f in factors if isinstance(f, int))
        kept = tuple(f for f in factors if not isinstance(f, int))
        return Product(kept, times) if kept else times  # type: ignore[arg-type]  # no Unknown, no Sum
    if isinstance(dim, Sum):
        return summed([substituted(t, source_dim) for t in dim.terms])
    return UNKNOWN


def sliced(dim: Dim, start: int | None, stop: int | None, step: int) -> Dim:
    """The dim a slice `start:stop:step` of `dim` leaves (`dim` itself for `::1`)."""
    if isinstance(dim, int):
        return len(range(dim)[start:stop:step])
    if (start, stop, step) in FULL_SLICES or (start, stop, step) == (None, None, -1):
        return dim  # the whole dim, maybe reversed: the same size, whatever it is
    if isinstance(dim, Unknown):
        return UNKNOWN
    return Sliced(dim, start, stop, step)


# (start, stop, step) of the slices that keep a whole dim (of any size).
FULL_SLICES = ((None, None, 1), (0, None, 1))


def broadcast_dims(shapes: Sequence[Sequence[Dim]], constraints: list) -> tuple[Dim, ...]:
    """NumPy broadcasting of shapes whose dims may be sources; appends run-time equality
    constraints `(source, dim)` to `constraints`."""
    rank = max((len(s) for s in shapes), default=0)
    result: list[Dim] = []
    for position in range(rank):
        column = [s[len(s) - rank + position] for s in shapes if len(s) - rank + position >= 0]
        result.append(_broadcast_one(column, constraints, shapes))
    return tuple(result)


def _broadcast_one(column: list[Dim], constraints: list, shapes) -> Dim:
    statics = {d for d in column if isinstance(d, int)} - {1}
    if len(statics) > 1:
        raise ValueError(
            at_user_line(
                "operands could not be broadcast together with shapes "
                + " and ".join(str(tuple(_show(d) for d in s)) for s in shapes)
            )
        )
    sources = [d for d in column if not isinstance(d, int)]
    if len(set(column) - {1}) > 1 and any(at_most_one(d) for d in sources):
        raise NotImplementedError(
            at_user_line(
                "a slice like x[:1] keeps at most one element along a dim unknown at trace "
                "time, and tracejit does not broadcast such dims; index with an integer and "
                "add the axis back instead (x[0][None], or x[0] where it broadcasts anyway)"
            )
        )
    if sources == [UNKNOWN] and not statics:
        return UNKNOWN  # e.g. a TensorArray's stack() times a scalar: nothing to check
    if any(isinstance(d, Counted) for d in sources):
        return _same_count(sources, bool(statics))
    if any(isinstance(d, SliceLength) for d in sources):
        return _same_slice_length(sources, statics)
    if any(isinstance(d, Unknown) for d in sources):
        raise NotImplementedError(
            at_user_line("broadcasting a dim whose size tracejit cannot follow is not supported")
        )
    if statics:
        size = statics.pop()
        constraints.extend((source, size) for source in dict.fromkeys(sources))
        return size
    if not sources:
        return 1
    first = sources[0]
    constraints.extend((first, other) for other in dict.fromkeys(sources[1:]) if other != first)
    return first


_COUNTS_DIFFER = (
    "a size that depends on the data (x[mask], np.nonzero, ...) meets a size tracejit cannot "
    "match to it here (one known before the call, or one a staged `if` chose); only such "
    "selections meet each other (x[m] + y[m]); use np.where(mask, x, fill) to keep shapes"
)


def _same_count(dims: Sequence[Dim], with_static: bool) -> Counted:
    """The one size of dims that meet, some of them `Counted`: all must be counts (with no
    static size other than 1 among them); counts of different values are checked equal
    by the kernel (`x[x > 0] + y[y > 0]`), a count of the same value needs no check."""
    counts = list(dict.fromkeys(d for d in dims if isinstance(d, Counted)))
    if with_static or len(counts) != len(set(dims)):
        raise NotImplementedError(at_user_line(_COUNTS_DIFFER))
    if len(counts) > 1:
        from tracejit.frontend.staging.primitives import assert_same_counts

        assert_same_counts([c.of for c in counts])
    return counts[0]


def _same_slice_length(dims: Sequence[Dim], statics: set[int]) -> SliceLength | int:
    """The one size of dims that meet, some of them `SliceLength`s: a static size (other than 1)
    or another kind of dim unknown at trace time is checked equal to the first window when
    the kernel runs, and so are windows of other keys (tracejit does not broadcast a window
    of length 1 as NumPy would: the check fails with NumPy's broadcasting error)."""
    windows = list(dict.fromkeys(d for d in dims if isinstance(d, SliceLength)))
    first = windows[0]
    others: list[SSAValue] = [w.count for w in windows[1:]]
    for dim in dict.fromkeys(d for d in dims if not isinstance(d, SliceLength)):
        if isinstance(dim, Unknown):
            raise NotImplementedError(
                at_user_line(
                    "a slice whose length is known only at run time meets a size tracejit "
                    "cannot follow here (a TensorArray's stack(), an `if` whose branches "
                    "disagree); make both sides slices of the same bounds"
                )
            )
        from tracejit.frontend.staging.primitives import dim_size

        others.append(dim_size(dim))
    from tracejit.frontend.staging.slice_bounds import assert_same_sizes, index_constant

    others += [index_constant(size) for size in statics]
    if others:
        assert_same_sizes(
            [first.count, *others],
            at_user_line(
                "ValueError: operands could not be broadcast together: slices whose lengths "
                "are known only at run time differ in length (tracejit does not broadcast "
                "such a slice from length 1 as NumPy would)"
            ),
        )
    return statics.pop() if statics else first  # checked equal: the static size says more


def require_equal(dims: Sequence[Dim], constraints: list) -> None:
    """Dims that must be the same size, no broadcasting (joined arrays, a Variable's
    value): appends the run-time equality constraints for the caller to check."""
    distinct = list(dict.fromkeys(dims))
    if len(distinct) < 2:
        return
    if any(isinstance(d, Counted) for d in distinct):
        _same_count(distinct, any(isinstance(d, int) for d in distinct))
        return
    if any(isinstance(d, SliceLength) for d in distinct):
        _same_slice_length(distinct, {d for d in distinct if isinstance(d, int)})
        return
    if any(isinstance(d, Unknown) for d in distinct):
        raise NotImplementedError(
            at_user_line("sizes only the kernel knows must match here: not supported")
        )
    anchor = next(d for d in distinct if not isinstance(d, int))  # two ints differ: checked before
    constraints.extend((anchor, d) for d in distinct if d != anchor)


def untracked(dim: object) -> bool:
    """A dim unknown at trace time whose source tracejit does not follow (an array a staged
    loop carries with sizes it measures, a TensorArray's stack()): not a mask's count, not a
    slice's run-time length. Two of them compare equal whatever their sizes."""
    return isinstance(dim, Unknown) and not isinstance(dim, Counted | SliceLength)


def at_most_one(dim: Dim) -> bool:
    """A slice that never keeps more than one element, whatever the size (`x[:1]`,
    `x[-1:]`): NumPy would broadcast it where it has one."""
    if not isinstance(dim, Sliced):
        return False
    sizes = (0, 1, 2, 3, 2**40)
    base = DimSource(0, 0)
    lengths = (resolve(_rebased(dim, base), [(n,)]) for n in sizes)
    return max(lengths) <= 1


def _rebased(dim: Dim, base: DimSource) -> DimSource | Sliced:
    if isinstance(dim, Sliced):
        return Sliced(_rebased(dim.base, base), dim.start, dim.stop, dim.step)
    return base


def _show(d: Dim) -> int | None:
    return d if isinstance(d, int) else None


def resolve(dim: Dim, shapes: Sequence[tuple[int, ...]]) -> int:
    """The size of `dim` given the shapes of the tensor inputs."""
    if isinstance(dim, int):
        return dim
    if isinstance(dim, Sliced):
        return len(range(resolve(dim.base, shapes))[dim.start : dim.stop : dim.step])
    if isinstance(dim, Product):
        return math.prod(resolve(f, shapes) for f in dim.factors) * dim.times
    if isinstance(dim, Sum):
        return sum(resolve(t, shapes) for t in dim.terms)
    assert isinstance(dim, DimSource), dim
    return shapes[dim.input][dim.axis]
