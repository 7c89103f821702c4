"""How `tj.fft`'s lines come into its scratch buffers and go out to its result
(passes/bufferize/fft.py): element t of line b of a batch at t * batch + b of the split
buffers, for every direction.

Complex transforms copy a line in (conjugated for the inverse: the inverse is
conj(fft(conj(x)))) and out (scaled, conjugated again for the inverse). Real transforms of
an even length n pack the line into half as many complex values, so that the transform
that does the work is of length h = n / 2:

    real_forward:   z[t] = x[2t] + i x[2t+1]; Z = fft_h(z); with Zc[k] = conj(Z[(h - k) % h])
                    X[k] = (Z[k % h] + Zc[k]) / 2 - i W_n^k (Z[k % h] - Zc[k]) / 2, k <= h
    real_inverse:   E[k] = X[k] + conj(X[h - k]), O[k] = (X[k] - conj(X[h - k])) W_n^-k
                    z = ifft_h(E + i O) (unscaled), x[2t] = Re z[t], x[2t+1] = Im z[t]

(the imaginary parts of X[0] and X[h] are dropped first, as NumPy's c2r does). An odd n
transforms the whole line: the real line with zero imaginary parts, or the Hermitian
spectrum X[n - k] = conj(X[k]) rebuilt from the half.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.dialects import arith, complex
from xdsl.dialects.builtin import AnyFloat, ComplexType
from xdsl.ir import SSAValue

from tracejit.passes.bufferize.fft_tables import Roots
from tracejit.passes.support.build import add, load, mul, store
from tracejit.passes.support.fft_stages import Floats, Pair, Split
from tracejit.passes.support.indices import index_constant
from tracejit.passes.support.loops import loop_nest

# body(builder, t, positions of the dims after the axis, t * batch + lane)
LineBody = Callable[[Builder, SSAValue, list[SSAValue], SSAValue], None]


@dataclass
class Lines:
    """The lines of one position of the dims before the axis (`outer`)."""

    source: SSAValue
    output: SSAValue
    outer: list[SSAValue]
    after: list[SSAValue]  # the sizes of the dims after the axis
    batch: SSAValue  # their product
    ftype: AnyFloat

    def each(self, b: Builder, count: int, body: LineBody) -> None:
        """body(b, t, inner, position) for t in [0, count) and every lane."""

        def element(b: Builder, ks: list[SSAValue]) -> None:
            t, inner = ks[0], ks[1:]
            lane = index_constant(b, 0)
            for index, size in zip(inner, self.after, strict=True):
                lane = add(b, mul(b, lane, size), index)
            body(b, t, inner, add(b, mul(b, t, self.batch), lane))

        loop_nest(b, [index_constant(b, count), *self.after], element)

    def read(self, b: Builder, t: SSAValue, inner: list[SSAValue]) -> SSAValue:
        return load(b, self.source, [*self.outer, t, *inner])

    def read_complex(self, b: Builder, t: SSAValue, inner: list[SSAValue]) -> Pair:
        z = self.read(b, t, inner)
        return b.insert(complex.ReOp(z)).result, b.insert(complex.ImOp(z)).result

    def write(self, b: Builder, value: SSAValue, t: SSAValue, inner: list[SSAValue]) -> None:
        store(b, value, self.output, [*self.outer, t, *inner])

    def write_complex(self, b: Builder, value: Pair, t: SSAValue, inner: list[SSAValue]) -> None:
        z = b.insert(complex.CreateOp(value[0], value[1], ComplexType(self.ftype))).complex
        self.write(b, z, t, inner)

    # --- complex transforms ----------------------------------------------------------------
    def complex_in(self, b: Builder, n: int, data: Split, conjugate: bool) -> None:
        """data = x (conj(x) for the inverse)."""

        def body(b: Builder, t: SSAValue, inner: list[SSAValue], at: SSAValue) -> None:
            f = Floats(b, self.ftype)
            re, im = self.read_complex(b, t, inner)
            f.store((re, f.neg(im) if conjugate else im), data, at)

        self.each(b, n, body)

    def complex_out(
        self, b: Builder, count: int, result: Split, scale: float, conjugate: bool
    ) -> None:
        """out[t] = scale * result[t] (conjugated for the inverse), t < count."""

        def body(b: Builder, t: SSAValue, inner: list[SSAValue], at: SSAValue) -> None:
            f = Floats(b, self.ftype)
            re, im = _scaled(f, f.load(result, at), scale)
            self.write_complex(b, (re, f.neg(im) if conjugate else im), t, inner)

        self.each(b, count, body)

    # --- real forward ----------------------------------------------------------------------
    def real_in(self, b: Builder, n: int, data: Split) -> None:
        """data = x + 0i (an odd length)."""

        def body(b: Builder, t: SSAValue, inner: list[SSAValue], at: SSAValue) -> None:
            f = Floats(b, self.ftype)
            f.store((self.read(b, t, inner), f.const(0.0)), data, at)

        self.each(b, n, body)

    def packed_in(self, b: Builder, h: int, data: Split) -> None:
        """data[t] = x[2t] + i x[2t+1] (an even length 2h)."""

        def body(b: Builder, t: SSAValue, inner: list[SSAValue], at: SSAValue) -> None:
            even = mul(b, t, index_constant(b, 2))
            odd = add(b, even, index_constant(b, 1))
            pair = self.read(b, even, inner), self.read(b, odd, inner)
            Floats(b, self.ftype).store(pair, data, at)

        self.each(b, h, body)

    def packed_spectrum_out(
        self, b: Builder, h: int, result: Split, scale: float, roots: Roots
    ) -> None:
        """X[k] for k in [0, h] from the transform Z of the packed line (module docstring)."""

        def body(b: Builder, k: SSAValue, inner: list[SSAValue], at: SSAValue) -> None:
            f = Floats(b, self.ftype)
            size = index_constant(b, h)
            first = _select(b, _equal(b, k, size), index_constant(b, 0), k)  # k % h
            mirror = b.insert(arith.SubiOp(size, k)).result
            second = _select(b, _equal(b, k, index_constant(b, 0)), k, mirror)  # (h - k) % h
            z = f.load(result, _position(self, b, first, at, k))
            zc_re, zc_im = f.load(result, _position(self, b, second, at, k))
            zc = zc_re, f.neg(zc_im)
            even, odd = f.cadd(z, zc), f.csub(z, zc)
            turned = f.cmul(roots.root(b, k, self.ftype), (odd[1], f.neg(odd[0])))  # W (-i odd)
            self.write_complex(b, _scaled(f, f.cadd(even, turned), scale / 2), k, inner)

        self.each(b, h + 1, body)

    # --- real inverse ----------------------------------------------------------------------
    def hermitian_in(self, b: Builder, n: int, data: Split) -> None:
        """data = conj of the whole spectrum X[k] (k <= n // 2), conj(X[n - k]) (above), with
        the imaginary part of X[0] dropped (an odd length: there is no Nyquist term)."""

        def body(b: Builder, k: SSAValue, inner: list[SSAValue], at: SSAValue) -> None:
            f = Floats(b, self.ftype)
            lower = b.insert(arith.CmpiOp(k, index_constant(b, n // 2), "ule")).result
            mirror = b.insert(arith.SubiOp(index_constant(b, n), k)).result
            re, im = self.read_complex(b, _select(b, lower, k, mirror), inner)
            im = _select(b, _equal(b, k, index_constant(b, 0)), f.const(0.0), im)
            f.store((re, _select(b, lower, f.neg(im), im)), data, at)  # conj of X or conj(X)

        self.each(b, n, body)

    def packed_hermitian_in(self, b: Builder, h: int, data: Split, roots: Roots) -> None:
        """data = conj(E + i O) of the module docstring, k < h (an even length 2h)."""

        def body(b: Builder, k: SSAValue, inner: list[SSAValue], at: SSAValue) -> None:
            f = Floats(b, self.ftype)
            at_zero = _equal(b, k, index_constant(b, 0))
            mirror = b.insert(arith.SubiOp(index_constant(b, h), k)).result
            x_re, x_im = self.read_complex(b, k, inner)
            y_re, y_im = self.read_complex(b, mirror, inner)
            zero = f.const(0.0)
            x = x_re, _select(b, at_zero, zero, x_im)  # Im X[0], Im X[h]: dropped
            y = y_re, f.neg(_select(b, at_zero, zero, y_im))  # conj(X[h - k])
            even, difference = f.cadd(x, y), f.csub(x, y)
            w_re, w_im = roots.root(b, k, self.ftype)
            odd = f.cmul(difference, (w_re, f.neg(w_im)))  # * W_n^-k
            z = f.sub(even[0], odd[1]), f.add(even[1], odd[0])  # even + i odd
            f.store((z[0], f.neg(z[1])), data, at)

        self.each(b, h, body)

    def real_out(self, b: Builder, n: int, result: Split, scale: float) -> None:
        """out[t] = scale * Re(result[t]) (an odd length)."""

        def body(b: Builder, t: SSAValue, inner: list[SSAValue], at: SSAValue) -> None:
            f = Floats(b, self.ftype)
            self.write(b, _scaled(f, f.load(result, at), scale)[0], t, inner)

        self.each(b, n, body)

    def unpacked_out(self, b: Builder, h: int, result: Split, scale: float) -> None:
        """out[2t] = scale * Re z[t], out[2t+1] = scale * Im z[t] with z = conj(result)."""

        def body(b: Builder, t: SSAValue, inner: list[SSAValue], at: SSAValue) -> None:
            f = Floats(b, self.ftype)
            re, im = _scaled(f, f.load(result, at), scale)
            even = mul(b, t, index_constant(b, 2))
            self.write(b, re, even, inner)
            self.write(b, f.neg(im), add(b, even, index_constant(b, 1)), inner)

        self.each(b, h, body)


def _scaled(f: Floats, value: Pair, scale: float) -> Pair:
    if scale == 1.0:
        return value
    factor = f.const(scale)
    return f.mul(value[0], factor), f.mul(value[1], factor)


def _equal(b: Builder, x: SSAValue, y: SSAValue) -> SSAValue:
    return b.insert(arith.CmpiOp(x, y, "eq")).result


def _select(b: Builder, condition: SSAValue, x: SSAValue, y: SSAValue) -> SSAValue:
    return b.insert(arith.SelectOp(condition, x, y)).result


def _position(lines: Lines, b: Builder, k: SSAValue, at: SSAValue, t: SSAValue) -> SSAValue:
    """The position of element k of the lane whose element t is at `at`."""
    return add(b, at, mul(b, b.insert(arith.SubiOp(k, t)).result, lines.batch))
