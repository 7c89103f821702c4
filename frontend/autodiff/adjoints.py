"""Adjoints of the `tj` ops: how a cotangent of an op's result flows to its operands.

Each rule gets the op and the cotangent `g` of its result (a Tensor of the result's type)
and returns one cotangent per operand (None where no gradient flows: integer operands,
conditions, sizes). Rules stage ordinary `tj` ops through the primitives, so the backward
pass is IR like any other: it is optimised, fused with the forward pass and compiled into
the same kernel. They follow TensorFlow's gradients (`tf.maximum` gives a tie to its first
operand; `max` reductions split among ties), which JAX's agree with where both define one.

    y = tj.mul %a, %b      ->   ga = g * b,  gb = g * a
    y = tj.broadcast_in_dim %x, dims = [1]   ->   gx = sum of g over the new dim 0
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from types import SimpleNamespace

import numpy as np
from xdsl.dialects.builtin import DYNAMIC_INDEX
from xdsl.ir import Operation, SSAValue

from tracejit.frontend.staging import primitives as P
from tracejit.frontend.staging.tensor import Tensor, dispatched
from tracejit.ir import elementwise_binary as B
from tracejit.ir import elementwise_unary as U
from tracejit.ir.compare import CompareOp
from tracejit.ir.complex_parts import ConjOp, ImagOp, RealOp, ReciprocalOp
from tracejit.ir.cumulative import CumulativeOp
from tracejit.ir.elementwise import CastOp
from tracejit.ir.matmul import MatmulOp
from tracejit.ir.reduce import ReduceOp
from tracejit.ir.select import SelectOp
from tracejit.ir.shape_ops import (
    BroadcastInDimOp,
    ConcatOp,
    PadOp,
    ReshapeOp,
    SliceOp,
    TransposeOp,
)

Rule = Callable[[Operation, Tensor], Sequence[Tensor | None]]
ADJOINTS: dict[type[Operation], Rule] = {}

# Ops through which no gradient flows (piecewise constant, or not real-valued): the
# cotangent stops there, as TensorFlow's `tf.floor`, `tf.sign`, comparisons do.
PIECEWISE_CONSTANT = (U.SignOp, U.FloorOp, U.CeilOp, U.RintOp, U.TruncOp)

# Element-wise ops declared without an adjoint, on purpose (tests/ir/test_op_tables.py
# checks that every element-wise op has a rule or is declared here or above). Integer and
# bool ops never receive a cotangent; the others raise NotDifferentiableError when one
# reaches them, as any op without a rule does.
NON_DIFFERENTIABLE: frozenset[type[Operation]] = frozenset({
    # integers and bools only, or a bool result
    U.BitwiseNotOp, B.BitwiseAndOp, B.BitwiseOrOp, B.BitwiseXorOp, B.LeftShiftOp,
    B.RightShiftOp, CompareOp,
    # float ops without a rule (yet)
    B.FloorDivideOp, B.CopysignOp,
    # complex: gradients are taken of real floats only
    RealOp, ImagOp, ConjOp, ReciprocalOp,
})  # fmt: skip


def adjoint(*op_types: type[Operation]) -> Callable[[Rule], Rule]:
    def register(rule: Rule) -> Rule:
        for op_type in op_types:
            ADJOINTS[op_type] = rule
        return rule

    return register


# --- small helpers (all of one dtype: the op's) ------------------------------------------
def _operand(op: Operation, index: int = 0) -> Tensor:
    return Tensor(op.operands[index])


def _result(op: Operation) -> Tensor:
    return Tensor(op.results[0])


def broadcast_like(x: Tensor, like: Tensor) -> Tensor:
    """`x` broadcast to `like`'s shape (a dim only the kernel knows is read from `like`)."""
    witnesses = {
        d: (like.value, d) for d, size in enumerate(like.dims) if not isinstance(size, int)
    }
    return P.broadcast_to(x, like.dims, witnesses)


def _full(like: Tensor, value: float) -> Tensor:
    """`value` in `like`'s dtype, broadcast to `like`'s shape."""
    return broadcast_like(P.constant(np.asarray(value, like.dtype)), like)


def add(a: Tensor, b: Tensor) -> Tensor:
    return P.binary(B.AddOp, a, b)


def sub(a: Tensor, b: Tensor) -> Tensor:
    return P.binary(B.SubOp, a, b)


def mul(a: Tensor, b: Tensor) -> Tensor:
    return P.binary(B.MulOp, a, b)


def div(a: Tensor, b: Tensor) -> Tensor:
    return P.binary(B.DivOp, a, b)


def neg(a: Tensor) -> Tensor:
    return P.unary(U.NegOp, a)


def scale(a: Tensor, factor: float) -> Tensor:
    return mul(a, _full(a, factor))


def square(a: Tensor) -> Tensor:
    return mul(a, a)


def where(condition: Tensor, a: Tensor, b: Tensor) -> Tensor:
    return P.select(condition, a, b)


def zeros_like(a: Tensor) -> Tensor:
    return _full(a, 0)


# --- element-wise ------------------------------------------------------------------------
@adjoint(B.AddOp)
def _add(op, g):
    return g, g


@adjoint(B.SubOp)
def _sub(op, g):
    return g, neg(g)


@adjoint(B.MulOp)
def _mul(op, g):
    return mul(g, _operand(op, 1)), mul(g, _operand(op, 0))


@adjoint(B.DivOp)
def _div(op, g):
    y = _operand(op, 1)
    gx = div(g, y)
    return gx, neg(mul(gx, _result(op)))  # d(x/y)/dy = -(x/y)/y


@adjoint(B.PowOp)
def _pow(op, g):
    x, y, r = _operand(op, 0), _operand(op, 1), _result(op)
    gx = mul(g, mul(y, P.binary(B.PowOp, x, sub(y, _full(y, 1)))))
    positive = P.compare("gt", x, zeros_like(x))  # log(x) where x > 0, else 0 (TF's rule)
    log_x = where(positive, P.unary(U.LogOp, where(positive, x, _full(x, 1))), zeros_like(x))
    return gx, mul(g, mul(r, log_x))


def _tie_to_first(predicate: str):
    """maximum/minimum: the first operand takes the gradient where it is chosen, ties
    included (TF's `x >= y` / `x <= y` masks)."""

    def rule(op, g):
        x, y = _operand(op, 0), _operand(op, 1)
        first = P.compare(predicate, x, y)
        zero = zeros_like(g)
        return where(first, g, zero), where(first, zero, g)

    return rule


ADJOINTS[B.MaximumOp] = ADJOINTS[B.FmaxOp] = _tie_to_first("ge")
ADJOINTS[B.MinimumOp] = ADJOINTS[B.FminOp] = _tie_to_first("le")


@adjoint(B.HypotOp)
def _hypot(op, g):
    r = _result(op)
    return mul(g, div(_operand(op, 0), r)), mul(g, div(_operand(op, 1), r))


@adjoint(B.Arctan2Op)
def _arctan2(op, g):
    y, x = _operand(op, 0), _operand(op, 1)
    denominator = add(square(x), square(y))
    return mul(g, div(x, denominator)), neg(mul(g, div(y, denominator)))


@adjoint(B.RemainderOp)
def _remainder(op, g):  # x - floor(x / y) * y
    x, y = _operand(op, 0), _operand(op, 1)
    return g, neg(mul(g, P.unary(U.FloorOp, div(x, y))))


@adjoint(B.FmodOp)
def _fmod(op, g):  # x - trunc(x / y) * y
    x, y = _operand(op, 0), _operand(op, 1)
    return g, neg(mul(g, P.unary(U.TruncOp, div(x, y))))


@adjoint(U.NegOp)
def _neg(op, g):
    return (neg(g),)


def _unary(derivative: Callable[[Tensor, Tensor], Tensor]) -> Rule:
    """A rule `g * derivative(x, result)`."""
    return lambda op, g: (mul(g, derivative(_operand(op), _result(op))),)


def _unary_over(denominator: Callable[[Tensor, Tensor], Tensor]) -> Rule:
    """A rule `g / denominator(x, result)`."""
    return lambda op, g: (div(g, denominator(_operand(op), _result(op))),)


def _sqrt_of(a: Tensor) -> Tensor:
    return P.unary(U.SqrtOp, a)


def _one_minus(a: Tensor) -> Tensor:
    return sub(_full(a, 1), a)


ADJOINTS.update({
    U.ExpOp: _unary(lambda x, r: r),
    U.Expm1Op: _unary(lambda x, r: add(r, _full(r, 1))),
    U.Exp2Op: _unary(lambda x, r: scale(r, math.log(2))),
    U.LogOp: _unary_over(lambda x, r: x),
    U.Log1pOp: _unary_over(lambda x, r: add(x, _full(x, 1))),
    U.Log2Op: _unary_over(lambda x, r: scale(x, math.log(2))),
    U.Log10Op: _unary_over(lambda x, r: scale(x, math.log(10))),
    U.SqrtOp: _unary_over(lambda x, r: scale(r, 2)),
    U.CbrtOp: _unary_over(lambda x, r: scale(square(r), 3)),
    U.ErfOp: _unary(lambda x, r: scale(P.unary(U.ExpOp, neg(square(x))), 2 / math.sqrt(math.pi))),
    U.AbsOp: _unary(lambda x, r: P.unary(U.SignOp, x)),
    U.SinOp: _unary(lambda x, r: P.unary(U.CosOp, x)),
    U.CosOp: _unary(lambda x, r: neg(P.unary(U.SinOp, x))),
    U.TanOp: _unary(lambda x, r: add(_full(r, 1), square(r))),
    U.ArcsinOp: _unary_over(lambda x, r: _sqrt_of(_one_minus(square(x)))),
    U.ArccosOp: _unary_over(lambda x, r: neg(_sqrt_of(_one_minus(square(x))))),
    U.ArctanOp: _unary_over(lambda x, r: add(_full(x, 1), square(x))),
    U.SinhOp: _unary(lambda x, r: P.unary(U.CoshOp, x)),
    U.CoshOp: _unary(lambda x, r: P.unary(U.SinhOp, x)),
    U.TanhOp: _unary(lambda x, r: _one_minus(square(r))),
    U.ArcsinhOp: _unary_over(lambda x, r: _sqrt_of(add(square(x), _full(x, 1)))),
    U.ArccoshOp: _unary_over(lambda x, r: _sqrt_of(sub(square(x), _full(x, 1)))),
    U.ArctanhOp: _unary_over(lambda x, r: _one_minus(square(x))),
})


@adjoint(CastOp)
def _cast(op, g):
    source = _operand(op)
    if source.dtype.kind != "f":
        return (None,)  # no gradient into integers or bools
    return (P.cast(g, source.dtype),)


@adjoint(SelectOp)
def _select(op, g):
    condition, zero = _operand(op, 0), zeros_like(g)
    return None, where(condition, g, zero), where(condition, zero, g)


# --- shapes ------------------------------------------------------------------------------
def sum_to(g: Tensor, dims: Sequence) -> Tensor:
    """`g` summed over the dims NumPy broadcasting added or stretched to reach its shape
    from `dims` (right-aligned), reshaped to `dims`."""
    lead = g.ndim - len(dims)
    stretched = [lead + i for i, d in enumerate(dims) if d == 1 and g.dims[lead + i] != 1]
    axes = list(range(lead)) + stretched
    if axes:
        g = P.reduce("sum", g, axes)
    return P.reshape(g, tuple(dims))


@adjoint(BroadcastInDimOp)
def _broadcast(op, g):
    source = _operand(op)
    kept = tuple(op.get_dims())
    dropped = [d for d in range(g.ndim) if d not in kept]
    stretched = [d for i, d in enumerate(kept) if source.dims[i] == 1 and g.dims[d] != 1]
    axes = sorted(dropped + stretched)
    total = P.reduce("sum", g, axes) if axes else g
    return (P.reshape(total, source.dims), *([None] * len(op.sizes)))


@adjoint(ReshapeOp)
def _reshape(op, g):
    return (P.reshape(g, _operand(op).dims), *([None] * len(op.sizes)))


@adjoint(TransposeOp)
def _transpose(op, g):
    permutation = list(op.permutation.get_values())
    inverse = [permutation.index(i) for i in range(len(permutation))]
    return (P.transpose(g, inverse),)


def window_start(op: Operation) -> list:
    """A slice's or insert_slice's start per dim: an int, or its run-time `index` operand."""
    starts = iter(op.starts)  # type: ignore[attr-defined]  # slice ops both have starts
    return [next(starts) if s == DYNAMIC_INDEX else int(s) for s in op.start.get_values()]  # type: ignore[attr-defined]  # slice ops both have start


@adjoint(SliceOp)
def _slice(op, g):
    """The window's cotangent written into zeros of the operand's shape."""
    source = _operand(op)
    window = SimpleNamespace(start=window_start(op), step=list(op.step.get_values()))
    gx = P.insert_slice(zeros_like(source), g, window)
    return (gx, *([None] * (len(op.starts) + len(op.sizes))))


@adjoint(ConcatOp)
def _concat(op, g):
    """Each part's window of the cotangent; a part's length only the kernel knows (a dim
    unknown at trace time) is read from the part, and so are the windows' starts."""
    axis = op.axis.value.data
    pieces: list[Tensor] = []
    offset: int | SSAValue = 0
    for value in op.inputs:
        part = Tensor(value)
        start: list[int | SSAValue] = [0] * g.ndim
        start[axis] = offset
        counts = [
            d if isinstance(d, int) else P.dim_size(d, (value, a)) for a, d in enumerate(part.dims)
        ]
        pieces.append(P.strided_slice(g, start, [1] * g.ndim, counts, part.dims))
        offset = _index_sum(offset, counts[axis])
    return pieces


def _index_sum(a: int | SSAValue, b: int | SSAValue) -> int | SSAValue:
    if isinstance(a, int) and isinstance(b, int):
        return a + b
    from xdsl.dialects import arith

    from tracejit.frontend.staging.slice_bounds import index_constant
    from tracejit.frontend.staging.tracing import emit

    left, right = (index_constant(v) if isinstance(v, int) else v for v in (a, b))
    return emit(arith.AddiOp(left, right)).result


@adjoint(PadOp)
def _pad(op, g):
    source = _operand(op)
    low = list(op.low.get_values())
    inner = P.strided_slice(g, low, [1] * g.ndim, list(source.dims), source.dims)
    padding = sub(P.reduce("sum", g, range(g.ndim)), P.reduce("sum", inner, range(g.ndim)))
    return inner, padding  # the pad value appears in every padded element


# --- reductions and contractions ---------------------------------------------------------
def _expand(g: Tensor, source: Tensor, axes: Sequence[int]) -> Tensor:
    """A reduction's cotangent (the axes dropped) broadcast back over `source`'s shape."""
    kept = [d for i, d in enumerate(source.dims) if i not in axes]
    keep_dims = [1 if i in axes else d for i, d in enumerate(source.dims)]
    assert list(g.dims) == kept, (g.dims, kept)
    return broadcast_like(P.reshape(g, tuple(keep_dims)), source)


@adjoint(ReduceOp)
def _reduce(op, g):
    kind, source, axes = op.kind.data, _operand(op), op.get_axes()
    if kind == "sum":
        return (_expand(g, source, axes),)
    if kind in ("max", "min"):
        # Ties share the cotangent equally (TF and JAX): mask / count of the maxima.
        chosen = P.compare("eq", source, _expand(_result(op), source, axes))
        ones = P.cast(chosen, source.dtype)
        count = _expand(P.reduce("sum", ones, axes), source, axes)
        return (mul(_expand(g, source, axes), div(ones, count)),)
    if kind == "prod":
        return (_prod_adjoint(g, source, axes, _result(op)),)
    return (None,)  # any, all, argmax, argmin: integer or bool results


@adjoint(CumulativeOp)
def _cumulative(op, g):
    """np.cumsum: element i adds into every running sum from i on, so its cotangent is the
    sum of g from i to the end (a cumulative sum of g reversed, reversed back). The other
    scans (cumprod, running extrema) have no rule yet."""
    if op.kind.data != "sum":
        return _no_rule(op)
    axis = op.axis.value.data
    # __array_function__: NumPy functions of Tensors are Tensors (stubs say ndarray)
    reversed_g = dispatched(np.flip(g, axis))
    return (dispatched(np.flip(P.cumulative("sum", reversed_g, axis), axis)),)


def _no_rule(op: CumulativeOp) -> Sequence[Tensor | None]:
    """Refuse as backprop does for an op without a rule, naming the op's kind too."""
    from tracejit.frontend.autodiff.backprop import NotDifferentiableError, location_of

    raise NotDifferentiableError(
        f"{location_of(op)}no gradient is defined for {op.name} {op.kind.data}; compute the "
        "gradient from code before or after it, or stop it with tape.stop_recording()"
    )


def _prod_adjoint(g: Tensor, source: Tensor, axes: Sequence[int], product: Tensor) -> Tensor:
    """d prod / d x_i = the product of the others: `product / x_i` where x_i != 0; with one
    zero in a reduction, its element gets the product of the rest; with two, all get 0."""
    zero = P.compare("eq", source, zeros_like(source))
    safe = where(zero, _full(source, 1), source)
    rest = _expand(P.reduce("prod", safe, axes), source, axes)  # product of the non-zeros
    zeros = _expand(P.reduce("sum", P.cast(zero, source.dtype), axes), source, axes)
    none = P.compare("eq", zeros, zeros_like(zeros))
    one = P.compare("eq", zeros, _full(zeros, 1))
    others = where(none, div(rest, safe), where(one, where(zero, rest, zeros_like(rest)),
                                                 zeros_like(rest)))
    return mul(_expand(g, source, axes), others)


def _swap_last(x: Tensor) -> Tensor:
    permutation = list(range(x.ndim))
    permutation[-2:] = permutation[-1], permutation[-2]
    return P.transpose(x, permutation)


def _as_matrix(x: Tensor, vector_axis: int) -> Tensor:
    """A 1-D matmul operand as a matrix: a row (`vector_axis` -2) or a column (-1)."""
    shape = (1, x.dims[0]) if vector_axis == -2 else (x.dims[0], 1)
    return P.reshape(x, shape)


@adjoint(MatmulOp)
def _matmul(op, g):
    a, b = _operand(op, 0), _operand(op, 1)
    a2 = _as_matrix(a, -2) if a.ndim == 1 else a
    b2 = _as_matrix(b, -1) if b.ndim == 1 else b
    g_dims = list(g.dims)
    if a.ndim == 1:
        g_dims.insert(len(g_dims) - (0 if b.ndim == 1 else 1), 1)
    if b.ndim == 1:
        g_dims.append(1)
    g2 = P.reshape(g, tuple(g_dims))
    ga = P.matmul(g2, _swap_last(b2))
    gb = P.matmul(_swap_last(a2), g2)
    return P.reshape(sum_to(ga, a2.dims), a.dims), P.reshape(sum_to(gb, b2.dims), b.dims)
