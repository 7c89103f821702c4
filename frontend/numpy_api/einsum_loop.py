"""Which labels NumPy's `np.einsum` sums before it multiplies, for C-ordered operands.

NumPy's einsum (with `optimize=False`, its default) runs one `nditer` over the output's
labels followed by the summed labels in alphabetical order, and picks its inner loop by
the strides along the innermost axis. With two operands, when that loop runs along labels
of one operand only (the other operand and the output stay put), it computes
`out += a * sum(b[...])`: those labels are summed before the product. The result differs
from multiplying first only in rounding and where a product meets inf * 0:
`inf * (0 + 1)` is inf, `inf * 0 + inf * 1` NaN. Three or more operands always multiply
first.

Which axis is innermost depends on the operands' memory layout. tracejit answers as NumPy
does for C-ordered operands (the layout a trace assumes), so this module replays the
iterator's choices for them:

1. the axes are ordered by an insertion sort on their strides (`nditer`'s
   `find_best_axis_ordering`: an axis moves inwards past one with larger strides in every
   operand where both move; ties keep the C order);
2. the output is allocated in that order, and adjacent axes whose strides chain in every
   operand are coalesced;
3. without buffering (no operand cast to another dtype, at most three coalesced axes), the
   inner loop is the innermost coalesced axis;
4. with buffering, the inner loop (the "core") extends outwards while the output's strides
   still chain; an operand is read from a contiguous buffer there unless it stays put or
   is a single stride over the core without a cast.

Checked against NumPy 2.4 on 80,000 random einsums of one to three operands with infinities
and zeros (tests/numpy/test_einsum_loop.py). Step 4 is the buffered iterator of NumPy 2.3
and later; NumPy 2.0-2.2 chose other inner loops there (66 of 12,000 random einsums with
an infinity differ, none with finite values beyond rounding).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass
class _Axis:
    """An axis of the iteration: its labels (several once coalesced), its size, and its
    stride in each operand and then the output, in elements (0 where it does not move)."""

    labels: str
    size: int
    strides: list[int]


def summed_first(
    terms: Sequence[str],
    shapes: Sequence[Sequence[int]],
    output: str,
    casts: Sequence[bool],
) -> tuple[int, str] | None:
    """(the operand, its labels) that NumPy's einsum of two C-ordered operands sums before
    multiplying, or None. `terms`: each operand's labels (a label repeated within one is a
    diagonal); `casts`: whether NumPy casts the operand to the common dtype."""
    if len(terms) != 2:
        return None
    sizes = _label_sizes(terms, shapes)
    if 0 in sizes.values():
        return None  # no products at all
    labels = list(output) + sorted(set("".join(terms)) - set(output))
    operands = list(zip(terms, shapes, strict=True))
    axes = [
        _Axis(label, sizes[label], [_stride(t, s, label, sizes) for t, s in operands])
        for label in labels
    ]
    if not axes:
        return None  # two 0-d operands
    ordered = _best_order(axes)
    _allocate_output(ordered, output)
    coalesced = _coalesce(ordered)
    buffered = any(casts) or len(coalesced) > 3
    inner = _buffered_core(coalesced, casts) if buffered else coalesced[0]
    summed = "".join(c for c in inner.labels if sizes[c] > 1)
    a, b, out = inner.strides
    if not summed or out != 0:
        return None
    if a == 0 and b == 1:
        return 1, summed
    if b == 0 and a == 1:
        return 0, summed
    return None


def _label_sizes(terms: Sequence[str], shapes: Sequence[Sequence[int]]) -> dict[str, int]:
    sizes: dict[str, int] = {}
    for term, shape in zip(terms, shapes, strict=True):
        for label, size in zip(term, shape, strict=True):
            sizes[label] = size if sizes.get(label, 1) == 1 else sizes[label]
    return sizes


def _stride(term: str, shape: Sequence[int], label: str, sizes: dict[str, int]) -> int:
    """The operand's stride along `label` (C order; a diagonal's strides add up); 0 where
    the operand lacks the label or broadcasts it, and along an axis of size 1."""
    if sizes[label] == 1:
        return 0
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= size
    strides.reverse()
    return sum(s for c, n, s in zip(term, shape, strides, strict=True) if c == label and n > 1)


def _best_order(axes: list[_Axis]) -> list[_Axis]:
    """The axes innermost first, as nditer sorts them."""
    order = axes[::-1]  # C order: the last axis innermost
    for i in range(1, len(order)):
        position = i
        for j in range(i - 1, -1, -1):
            decided, swap = False, False
            for outer, inner in zip(order[i].strides, order[j].strides, strict=True):
                if outer and inner:
                    # every operand must agree to move the axis inwards: C order wins ties
                    swap = (abs(inner) > abs(outer)) and (swap or not decided)
                    decided = True
            if not decided:
                continue
            if not swap:
                break
            position = j
        order.insert(position, order.pop(i))
    return order


def _allocate_output(order: list[_Axis], output: str) -> None:
    """Append the output's strides: NumPy allocates it in the iteration's axis order."""
    step = 1
    for axis in order:
        moves = axis.labels in output and axis.size > 1
        axis.strides.append(step if moves else 0)
        step *= axis.size if moves else 1


def _coalesce(order: list[_Axis]) -> list[_Axis]:
    """Merge each axis into the one inside it where all strides chain (or either is 1)."""
    merged = [order[0]]
    for axis in order[1:]:
        inner = merged[-1]
        chains = all(o == i * inner.size for i, o in zip(inner.strides, axis.strides, strict=True))
        if axis.size == 1 or inner.size == 1 or chains:
            strides = axis.strides if inner.size == 1 else inner.strides
            merged[-1] = _Axis(inner.labels + axis.labels, inner.size * axis.size, strides)
        else:
            merged.append(axis)
    return merged


def _buffered_core(coalesced: list[_Axis], casts: Sequence[bool]) -> _Axis:
    """The buffered iterator's inner loop: the axes, from the innermost, along which the
    output's strides chain, with each operand's stride there."""
    core = [coalesced[0]]
    for axis in coalesced[1:]:
        if axis.strides[-1] != core[0].strides[-1] * math.prod(a.size for a in core):
            break
        core.append(axis)
    strides = []
    for k, cast in enumerate(casts):
        if all(axis.strides[k] == 0 for axis in core):
            strides.append(0)
        elif cast or not _single_stride(core, k):
            strides.append(1)  # read from a contiguous buffer
        else:
            strides.append(core[0].strides[k])
    strides.append(core[0].strides[-1])
    size = math.prod(axis.size for axis in core)
    return _Axis("".join(axis.labels for axis in core), size, strides)


def _single_stride(core: list[_Axis], k: int) -> bool:
    step = core[0].strides[k] * core[0].size
    for axis in core[1:]:
        if axis.strides[k] != step:
            return False
        step = axis.strides[k] * axis.size
    return True
