"""The loops of a forward mixed-radix FFT on split buffers (used by passes/bufferize/fft.py).

A batch of `batch` lines of length N is held in two float buffers, the real parts and the
imaginary parts, element t of line b at t * batch + b. A Stockham stage of radix r
(fft_plan.Stage: m = what is left of the length / r, s = stride * batch) reads one buffer
pair and writes the other (the self-sorting, "autosort" form: no bit reversal):

    for p in range(m):                  (q innermost when s is large enough, else p)
        for q in range(s):
            a[k] = src[q + s * (p + k * m)]                       k in [0, r)
            b = the r-point DFT of a                              (the butterfly)
            dst[q + s * (r * p + j)] = b[j] * W_N^(j * p * step)   j in [0, r)

Every access is contiguous in q and in p when s is 1, so LLVM vectorises the innermost
loop; the twiddles come from a table (`Twiddles`) laid out stage by stage, contiguous in p.
Butterflies: radix 2 and 4 as sums and differences, an odd radix p by the symmetric pairs
a[k] +- a[p - k] (its cosines and sines are compile-time constants).

Float additions and products carry `fastmath<contract>`, so LLVM fuses them into FMAs.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects.builtin import AnyFloat, FloatAttr
from xdsl.dialects.utils import FastMathFlag
from xdsl.ir import SSAValue

from tracejit.passes.support.build import add, load, mul, store
from tracejit.passes.support.fft_plan import Stage
from tracejit.passes.support.indices import index_constant
from tracejit.passes.support.loops import for_loop

CONTRACT = arith.FastMathFlagsAttr([FastMathFlag.ALLOW_CONTRACT])
# A stage walks q innermost when its stride s is at least this (else p): a shorter q loop
# is not worth a vector.
MIN_INNER_STRIDE = 8


@dataclass(frozen=True)
class Split:
    """A complex buffer as two float buffers: the real parts and the imaginary parts."""

    re: SSAValue
    im: SSAValue


Pair = tuple[SSAValue, SSAValue]  # one complex value: (real part, imaginary part)


class Floats:
    """Float arithmetic of one element type, each op appended to the current builder."""

    def __init__(self, b: Builder, ftype: AnyFloat):
        self.b, self.ftype = b, ftype

    def const(self, value: float) -> SSAValue:
        return self.b.insert(arith.ConstantOp(FloatAttr(value, self.ftype))).result

    def add(self, x: SSAValue, y: SSAValue) -> SSAValue:
        return self.b.insert(arith.AddfOp(x, y, CONTRACT)).result

    def sub(self, x: SSAValue, y: SSAValue) -> SSAValue:
        return self.b.insert(arith.SubfOp(x, y, CONTRACT)).result

    def mul(self, x: SSAValue, y: SSAValue) -> SSAValue:
        return self.b.insert(arith.MulfOp(x, y, CONTRACT)).result

    def neg(self, x: SSAValue) -> SSAValue:
        return self.b.insert(arith.NegfOp(x)).result

    def cadd(self, x: Pair, y: Pair) -> Pair:
        return self.add(x[0], y[0]), self.add(x[1], y[1])

    def csub(self, x: Pair, y: Pair) -> Pair:
        return self.sub(x[0], y[0]), self.sub(x[1], y[1])

    def cmul(self, x: Pair, w: Pair) -> Pair:
        """x * w."""
        re = self.sub(self.mul(x[0], w[0]), self.mul(x[1], w[1]))
        im = self.add(self.mul(x[0], w[1]), self.mul(x[1], w[0]))
        return re, im

    def load(self, buffer: Split, index: SSAValue) -> Pair:
        return load(self.b, buffer.re, [index]), load(self.b, buffer.im, [index])

    def store(self, value: Pair, buffer: Split, index: SSAValue) -> None:
        store(self.b, value[0], buffer.re, [index])
        store(self.b, value[1], buffer.im, [index])


def butterfly(f: Floats, a: Sequence[Pair]) -> list[Pair]:
    """The forward DFT of the len(a) values `a`: b[j] = sum_k a[k] * exp(-2 pi i j k / r)."""
    r = len(a)
    if r == 1:
        return list(a)
    if r == 2:
        return [f.cadd(a[0], a[1]), f.csub(a[0], a[1])]
    if r == 4:
        t0, t1 = f.cadd(a[0], a[2]), f.csub(a[0], a[2])
        t2, t3 = f.cadd(a[1], a[3]), f.csub(a[1], a[3])
        # b1 = t1 - i t3, b3 = t1 + i t3
        b1 = f.add(t1[0], t3[1]), f.sub(t1[1], t3[0])
        b3 = f.sub(t1[0], t3[1]), f.add(t1[1], t3[0])
        return [f.cadd(t0, t2), b1, f.csub(t0, t2), b3]
    assert r % 2 == 1, r
    return _odd_butterfly(f, a)


def _odd_butterfly(f: Floats, a: Sequence[Pair]) -> list[Pair]:
    """b[j] = T1 - i T2 and b[r - j] = T1 + i T2, with T1 = a0 + sum_k s_k cos(2 pi j k / r)
    and T2 = sum_k d_k sin(2 pi j k / r) over the pairs s_k = a_k + a_(r-k),
    d_k = a_k - a_(r-k), k in [1, r / 2)."""
    r, half = len(a), len(a) // 2
    sums = [f.cadd(a[k], a[r - k]) for k in range(1, half + 1)]
    diffs = [f.csub(a[k], a[r - k]) for k in range(1, half + 1)]
    b0 = a[0]
    for pair in sums:
        b0 = f.cadd(b0, pair)
    result: list[Pair] = [b0] + [a[0]] * (r - 1)
    for j in range(1, half + 1):
        t1: Pair = a[0]
        t2: Pair | None = None
        for k in range(1, half + 1):
            angle = 2 * math.pi * ((j * k) % r) / r
            c, s = f.const(math.cos(angle)), f.const(math.sin(angle))
            s_k, d_k = sums[k - 1], diffs[k - 1]
            t1 = f.add(t1[0], f.mul(s_k[0], c)), f.add(t1[1], f.mul(s_k[1], c))
            term = f.mul(d_k[0], s), f.mul(d_k[1], s)
            t2 = term if t2 is None else f.cadd(t2, term)
        assert t2 is not None
        result[j] = f.add(t1[0], t2[1]), f.sub(t1[1], t2[0])
        result[r - j] = f.sub(t1[0], t2[1]), f.add(t1[1], t2[0])
    return result


def emit_stage(
    b: Builder,
    stage: Stage,
    batch: SSAValue,
    source: Split,
    target: Split,
    twiddles: Split | None,
    ftype: AnyFloat,
    batch_hint: int | None,
) -> None:
    """One Stockham stage from `source` to `target` (module docstring). `batch_hint` is the
    batch when known at compile time (it picks the loop order)."""
    r, m = stage.radix, stage.m
    stride = mul(b, index_constant(b, stage.stride), batch)
    zero, one = index_constant(b, 0), index_constant(b, 1)

    def body(b: Builder, p: SSAValue, q: SSAValue, weights: list[Pair] | None) -> None:
        f = Floats(b, ftype)
        if weights is None:
            weights = _weights(f, stage, twiddles, p)
        start = add(b, q, mul(b, stride, p))
        a = [f.load(source, add(b, start, mul(b, stride, index_constant(b, k * m))))
             for k in range(r)]  # fmt: skip
        out = add(b, q, mul(b, stride, mul(b, p, index_constant(b, r))))
        for j, value in enumerate(butterfly(f, a)):
            if j and m > 1:
                value = f.cmul(value, weights[j - 1])
            f.store(value, target, add(b, out, mul(b, stride, index_constant(b, j))))

    q_inner = batch_hint is None or stage.stride * batch_hint >= MIN_INNER_STRIDE
    upper_m = index_constant(b, m)
    if q_inner:

        def over_p(b: Builder, p: SSAValue, _: Sequence[SSAValue]) -> Sequence[SSAValue]:
            weights = _weights(Floats(b, ftype), stage, twiddles, p)

            def over_q(b: Builder, q: SSAValue, _: Sequence[SSAValue]) -> Sequence[SSAValue]:
                body(b, p, q, weights)
                return []

            for_loop(b, zero, stride, one, [], over_q)
            return []

        for_loop(b, zero, upper_m, one, [], over_p)
        return

    def outer_q(b: Builder, q: SSAValue, _: Sequence[SSAValue]) -> Sequence[SSAValue]:
        def inner_p(b: Builder, p: SSAValue, _: Sequence[SSAValue]) -> Sequence[SSAValue]:
            body(b, p, q, None)
            return []

        for_loop(b, zero, upper_m, one, [], inner_p)
        return []

    for_loop(b, zero, stride, one, [], outer_q)


def _weights(f: Floats, stage: Stage, twiddles: Split | None, p: SSAValue) -> list[Pair]:
    """W_N^(j * p * step) for j in [1, radix), from the table (none when m is 1: all 1)."""
    if stage.m == 1 or twiddles is None:
        return []
    weights = []
    for j in range(1, stage.radix):
        at = index_constant(f.b, stage.offset + (j - 1) * stage.m)
        weights.append(f.load(twiddles, add(f.b, at, p)))
    return weights
