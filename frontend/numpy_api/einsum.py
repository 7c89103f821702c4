"""`np.einsum`, `np.outer` and `np.inner` by composing shape ops, multiply and sum.

An einsum is planned in three steps, each a few `tj` ops:

1. a label repeated within one operand takes a diagonal (`ii->i`): the two dims are
   moved last, flattened, and every (n+1)-th element is sliced out;
2. two operands whose labels form a (batched) matrix product become one `np.matmul`
   on operands transposed and reshaped to (batch, m, k) and (batch, k, n);
3. anything else is the general contraction: every operand is transposed and
   broadcast to the joint shape (output labels, then summed labels), multiplied, and
   summed over the trailing summed labels.

The result dtype is the one NumPy's einsum gives for the operand dtypes (asked of
NumPy itself on tiny arrays). Bool einsums compute in int64 and cast back, which is
NumPy's "any product true".

A float16 einsum multiplies and sums in float32 and rounds to float16 once: step 2's
matmul does (bufferize sums a float16 matmul as NumPy's `HALF_dot` does), step 3 casts
its operands to float32. NumPy's own float16 einsum multiplies in float32 too, but with
`optimize=False` it adds into the float16 output as its iterator goes, rounding after
each step where the summed axis is not the innermost loop (an 8x1000 @ 1000x8 einsum of
[0, 1) values is off by up to 4.8, NumPy's matmul by 0.12): tracejit's result is the
float32-accumulated one, that of `optimize=True` and `np.matmul` for matrix products.
"""

from __future__ import annotations

import string
from collections.abc import Sequence
from typing import Any

import numpy as np

from tracejit.frontend.numpy_api.einsum_loop import summed_first
from tracejit.frontend.numpy_api.registry import implements
from tracejit.frontend.numpy_api.shapes import static_tensor, tensor_of
from tracejit.frontend.staging import primitives
from tracejit.frontend.staging.source_location import at_user_line
from tracejit.frontend.staging.tensor import Tensor, dispatched

# Labels standing for the dims covered by `...` (right-aligned across operands).
_ELLIPSIS_LABELS = "".join(chr(0x400 + i) for i in range(32))


def _parse(subscripts: str, ndims: Sequence[int]) -> tuple[list[str], str]:
    """Input label strings (with `...` expanded) and the output labels."""
    subscripts = subscripts.replace(" ", "")
    inputs_text, arrow, output = subscripts.partition("->")
    inputs = inputs_text.split(",")
    if len(inputs) != len(ndims):
        raise ValueError(at_user_line("einsum: more operands provided than subscripts, or fewer"))
    expanded = [_expand_ellipsis(labels, ndim) for labels, ndim in zip(inputs, ndims, strict=True)]
    for labels in (*expanded, output.replace("...", "")):
        if any(c not in string.ascii_letters + _ELLIPSIS_LABELS for c in labels):
            raise ValueError(at_user_line(f"einsum: invalid subscript in '{subscripts}'"))
    broadcast = max((len(_ellipsis_part(labels)) for labels in expanded), default=0)
    ellipsis = _ELLIPSIS_LABELS[32 - broadcast :]
    if not arrow:  # implicit output: broadcast dims, then labels seen once, sorted
        counts = "".join(expanded)
        output = ellipsis + "".join(
            sorted(c for c in set(counts) if counts.count(c) == 1 and c not in _ELLIPSIS_LABELS)
        )
    else:
        output = output.replace("...", ellipsis)
    if len(set(output)) != len(output) or not set(output) <= set("".join(expanded)):
        raise ValueError(at_user_line(f"einsum: invalid output subscripts in '{subscripts}'"))
    return expanded, output


def _expand_ellipsis(labels: str, ndim: int) -> str:
    named = len(labels.replace("...", ""))
    if "..." not in labels:
        if named != ndim:
            raise ValueError(
                at_user_line(
                    f"einsum: operand has {ndim} dimensions but subscripts '{labels}' name {named}"
                )
            )
        return labels
    extra = ndim - named
    if extra < 0:
        raise ValueError(at_user_line(f"einsum: operand has too few dimensions for '{labels}'"))
    return labels.replace("...", _ELLIPSIS_LABELS[32 - extra :])


def _ellipsis_part(labels: str) -> str:
    return "".join(c for c in labels if c in _ELLIPSIS_LABELS)


def _static(shape: Sequence[int | None]) -> list[int]:
    """The dims of a static tensor (einsum's operands are static)."""
    assert all(d is not None for d in shape)
    return [d for d in shape if d is not None]


# --- step 1: diagonals of repeated labels --------------------------------------------
def _take_diagonals(x: Tensor, labels: str) -> tuple[Tensor, str]:
    """Reduce every label repeated in `labels` to one dim holding the diagonal."""
    while len(set(labels)) != len(labels):
        label = next(c for c in labels if labels.count(c) > 1)
        first, second = [i for i, c in enumerate(labels) if c == label][:2]
        n = x.shape[first]
        assert n is not None  # einsum's operands are static tensors
        if x.shape[second] != n:
            raise ValueError(
                at_user_line(f"einsum: dimensions in operand for collapsing index '{label}' differ")
            )
        rest = [d for d in range(x.ndim) if d not in (first, second)]
        moved = primitives.transpose(x, [*rest, first, second])
        flat = primitives.reshape(moved, [*moved.shape[:-2], n * n])
        rank = flat.ndim
        x = primitives.strided_slice(
            flat, [0] * rank, [1] * (rank - 1) + [n + 1], [*_static(flat.shape[:-1]), n]
        )
        labels = "".join(labels[d] for d in rest) + label
    return x, labels


# --- step 3: the general contraction ---------------------------------------------------
def _label_sizes(tensors: Sequence[Tensor], labels: Sequence[str]) -> dict[str, int]:
    sizes: dict[str, int] = {}
    for x, names in zip(tensors, labels, strict=True):
        for size, label in zip(x.shape, names, strict=True):
            known = sizes.get(label, 1)
            if size != known and 1 not in (size, known):
                raise ValueError(
                    at_user_line(
                        f"einsum: operands could not be broadcast together for label "
                        f"'{label}': {known} and {size}"
                    )
                )
            sizes[label] = size if known == 1 else known  # type: ignore[assignment]  # a Tensor size when unknown
    return sizes


def _align(x: Tensor, labels: str, order: str, sizes: dict[str, int]) -> Tensor:
    """`x` transposed to `order`'s label order and broadcast to the joint shape."""
    present = [c for c in order if c in labels]
    moved = primitives.transpose(x, [labels.index(c) for c in present])
    with_units = [moved.shape[present.index(c)] if c in present else 1 for c in order]
    return primitives.broadcast_to(
        primitives.reshape(moved, with_units),
        [sizes[c] for c in order],
    )


def _contract(tensors: Sequence[Tensor], labels: Sequence[str], output: str) -> Tensor:
    sizes = _label_sizes(tensors, labels)
    summed = "".join(c for c in dict.fromkeys("".join(labels)) if c not in output)
    order = output + summed
    product = _align(tensors[0], labels[0], order, sizes)
    for x, names in zip(tensors[1:], labels[1:], strict=True):
        # __array_function__: np.multiply of Tensors is a Tensor (NumPy's stubs say ndarray)
        product = dispatched(np.multiply(product, _align(x, names, order, sizes)))
    if not summed:
        return product
    return primitives.reduce("sum", product, range(len(output), len(order)))


# --- step 2: matrix products ----------------------------------------------------------
def _as_matmul(tensors: Sequence[Tensor], labels: Sequence[str], output: str) -> Tensor | None:
    """A two-operand einsum of the form batch/left/right/contracted labels as matmul."""
    if len(tensors) != 2:
        return None
    (a, b), (la, lb) = tensors, labels
    sizes = dict(zip(la, _static(a.shape), strict=True))
    if any(sizes.get(c, s) != s for c, s in zip(lb, _static(b.shape), strict=True)):
        return None  # broadcasting labels: leave it to the general contraction
    sizes.update(zip(lb, _static(b.shape), strict=True))
    batch = [c for c in output if c in la and c in lb]
    left = [c for c in output if c in la and c not in lb]
    right = [c for c in output if c in lb and c not in la]
    inner = [c for c in la if c in lb and c not in output]
    if set(la) | set(lb) != set(output) | set(inner) or not inner:
        return None  # a label summed within one operand only, or an outer product

    def size(group: Sequence[str]) -> int:
        return int(np.prod([sizes[c] for c in group], dtype=np.int64))

    lhs = primitives.transpose(a, [la.index(c) for c in batch + left + inner])
    rhs = primitives.transpose(b, [lb.index(c) for c in batch + inner + right])
    lhs = primitives.reshape(lhs, [size(batch), size(left), size(inner)])
    rhs = primitives.reshape(rhs, [size(batch), size(inner), size(right)])
    product = np.matmul(lhs, rhs)
    grouped = "".join(batch + left + right)
    product = primitives.reshape(product, [sizes[c] for c in grouped])
    return primitives.transpose(product, [grouped.index(c) for c in output])


def _result_dtype(subscripts: str, tensors: Sequence[Tensor], dtype: Any) -> np.dtype:
    """NumPy's einsum result dtype, asked of NumPy on size-1 arrays of the same dtypes."""
    samples = [np.zeros((1,) * t.ndim, t.dtype) for t in tensors]
    return np.einsum(subscripts, *samples, dtype=dtype).dtype


@implements(np.einsum)
def einsum(
    *operands: object, out: object = None, optimize: object = False, **kwargs: object,
) -> Tensor:
    if out is not None or not operands or not isinstance(operands[0], str):
        raise NotImplementedError(
            at_user_line("np.einsum is supported with a subscripts string and no out=")
        )
    dtype = kwargs.pop("dtype", None)
    if kwargs.pop("casting", "safe") != "safe" or kwargs.pop("order", "K") != "K" or kwargs:
        raise NotImplementedError(at_user_line("np.einsum: only the dtype= keyword is supported"))
    subscripts, arrays = operands[0], operands[1:]
    tensors = [static_tensor(np.einsum, a) for a in arrays]
    labels, output = _parse(subscripts, [t.ndim for t in tensors])
    result_dtype = _result_dtype(subscripts, tensors, dtype)
    compute = np.dtype(np.int64) if result_dtype == np.bool_ else result_dtype
    casts = [t.dtype != result_dtype for t in tensors]
    first = summed_first(labels, [_static(t.shape) for t in tensors], output, casts)
    tensors = [primitives.cast(t, compute) for t in tensors]
    diagonals = [_take_diagonals(t, names) for t, names in zip(tensors, labels, strict=True)]
    tensors, labels = [t for t, _ in diagonals], [names for _, names in diagonals]
    # float16 sums of labels summed first go through the general contraction, in float32
    # (NumPy sums them and multiplies in float32 there)
    widen = compute == np.float16 and first is not None
    if widen:
        tensors = [primitives.cast(t, np.dtype(np.float32)) for t in tensors]
    if first is not None:
        k, summed = first
        tensors[k], labels[k] = _sum_labels(tensors[k], labels[k], summed)
    result = None if widen else _as_matmul(tensors, labels, output)
    if result is None:
        if compute == np.float16:  # products and sums in float32, rounded once at the end
            tensors = [primitives.cast(t, np.dtype(np.float32)) for t in tensors]
        result = _contract(tensors, labels, output)
    return primitives.cast(result, result_dtype)


def _sum_labels(x: Tensor, labels: str, summed: str) -> tuple[Tensor, str]:
    """`x` summed over the dims of `summed` (labels of this operand only), as NumPy's
    einsum does before multiplying where its inner loop runs along them (einsum_loop.py)."""
    axes = [labels.index(c) for c in summed]
    kept = "".join(c for c in labels if c not in summed)
    return primitives.reduce("sum", x, axes), kept


@implements(np.outer)
def outer(a: object, b: object, out: object = None) -> Tensor:
    if out is not None:
        raise NotImplementedError(at_user_line("np.outer(..., out=...) is not supported"))
    # np.ravel of a Tensor is a Tensor (NumPy's stubs say ndarray); dims may be unknown
    x, y = dispatched(np.ravel(tensor_of(a))), dispatched(np.ravel(tensor_of(b)))
    column = primitives.reshape(x, [x.dims[0], 1])
    row = primitives.reshape(y, [1, y.dims[0]])
    return dispatched(np.multiply(column, row))


@implements(np.inner)
def inner(a: object, b: object, /) -> Tensor:
    x, y = static_tensor(np.inner, a), static_tensor(np.inner, b)
    if x.ndim == 0 or y.ndim == 0:
        return dispatched(np.multiply(x, y))
    if x.shape[-1] != y.shape[-1]:
        raise ValueError(
            at_user_line(
                f"shapes {x.shape} and {y.shape} not aligned: "
                f"{x.shape[-1]} (dim {x.ndim - 1}) != {y.shape[-1]} (dim {y.ndim - 1})"
            )
        )
    left = string.ascii_lowercase[: x.ndim - 1]
    right = string.ascii_lowercase[x.ndim - 1 : x.ndim + y.ndim - 2]
    return einsum(f"{left}z,{right}z->{left}{right}", x, y)
