"""Buffer form of `tj.fft` (used by `bufferize`): the transform as loops, planned at compile
time for its length n (passes/support/fft_plan.py).

The lines along the axis are taken one position of the dims before the axis at a time,
with every position of the dims after it as a batch of B lines transformed together
(element t of line b at t * B + b of two float scratch buffers, the real and imaginary
parts: the innermost loops then walk B contiguous lines, or one line when the axis is the
last). For `axis = 0` of an n x B tensor:

    twiddles = the table of W_n^k the stages use        (once per call)
    for each position of the dims before the axis:      (none here: once)
        A[t * B + b] = x[t, b]                          conj(x[t, b]) for the inverse
        one Stockham stage per radix, A -> Y -> A ...   passes/support/fft_stages.py
        out[t, b] = scale * result[t * B + b]           conj(...) for the inverse

The inverse is the forward transform conjugated on the way in and on the way out (the
identity ifft(x) = conj(fft(conj(x))) / n), so only forward stages and tables exist. The
table is a read-only global for short transforms; for long ones it is filled per call as
products of two small globals (fft_plan.root_tables), never from sin and cos.

A length with a prime factor above fft_plan.MAX_RADIX takes Bluestein's route: with the
chirp c_j = exp(-pi i j^2 / n),

    X_k = c_k * sum_j (x_j c_j) conj(c_(k-j))

a convolution computed with two forward transforms of a length M >= 2n - 1 (the second
on the conjugated product: conj(fft(conj(P))) / M is the inverse of P) and the transform
of the conjugated chirp: constants when M is small (computed in extended precision at
compile time), else made once per call.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AnyFloat,
)
from xdsl.ir import Operation, SSAValue

from tracejit.ir.dtypes import component_type, element_of, numpy_dtype
from tracejit.ir.fft import FftOp
from tracejit.ir.shaped import shaped_type
from tracejit.passes.bufferize.builder import FunctionBufferizer, Handler
from tracejit.passes.bufferize.cumulative import line_dims
from tracejit.passes.bufferize.fft_lines import Lines
from tracejit.passes.bufferize.fft_tables import (
    CONSTANT_TWIDDLES,
    Roots,
    Scratch,
    split_global,
)
from tracejit.passes.support import fft_plan as plan
from tracejit.passes.support.build import add, mul
from tracejit.passes.support.fft_stages import Floats, Split, emit_stage
from tracejit.passes.support.indices import index_constant
from tracejit.passes.support.loops import for_loop, loop_nest


class _Transform:
    """The forward mixed-radix transform of batches of length-n lines (fft_stages.py)."""

    def __init__(self, bufferizer: FunctionBufferizer, n: int, ftype: AnyFloat):
        self.bufferizer, self.n, self.ftype = bufferizer, n, ftype
        self.stages = plan.stages(n)
        self.twiddles = self._table()

    def _table(self) -> Split | None:
        count = plan.twiddle_count(self.n)
        if count == 0:
            return None  # one stage (or none): no twiddles
        entries = np.zeros(count, np.complex128)
        for stage in self.stages[:-1]:  # (the last stage has none)
            for j in range(1, stage.radix):
                at = stage.offset + (j - 1) * stage.m
                entries[at : at + stage.m] = plan.roots(self.n, j * stage.step * np.arange(stage.m))
        dtype = numpy_dtype(self.ftype)
        if count <= CONSTANT_TWIDDLES:
            name = f"__tj_fft_twiddles_{self.n}_{dtype.name}"
            return split_global(self.bufferizer, name, entries.astype(np.result_type(dtype, 1j)))
        return self._filled_table(count)

    def _filled_table(self, count: int) -> Split:
        """The table computed per call (module docstring): stage by stage, j by j,
        entry p = W_n^(j * step * p)."""
        b = self.bufferizer.builder
        table = Scratch(self.bufferizer, self.ftype).split(index_constant(b, count))
        roots = Roots(self.bufferizer, self.n)
        zero, one = index_constant(b, 0), index_constant(b, 1)
        for stage in self.stages[:-1]:
            for j in range(1, stage.radix):
                at = index_constant(b, stage.offset + (j - 1) * stage.m)
                step = index_constant(b, j * stage.step)

                def entry(b: Builder, p: SSAValue, _: Sequence[SSAValue], at=at, step=step):
                    w = roots.root(b, mul(b, p, step), self.ftype)
                    Floats(b, self.ftype).store(w, table, add(b, at, p))
                    return []

                for_loop(b, zero, index_constant(b, stage.m), one, [], entry)
        return table

    def run(
        self, b: Builder, batch: SSAValue, hint: int | None, data: Split, other: Split
    ) -> Split:
        """Transform `data` (batch lines) using `other` as the second buffer pair; returns
        the pair holding the result."""
        source, target = data, other
        for stage in self.stages:
            emit_stage(b, stage, batch, source, target, self.twiddles, self.ftype, hint)
            source, target = target, source
        return source


class _Bluestein:
    """Bluestein's transform of length n through transforms of length M (module docstring)."""

    def __init__(self, bufferizer: FunctionBufferizer, n: int, ftype: AnyFloat):
        self.n, self.ftype = n, ftype
        self.m = plan.bluestein_length(n)
        self.inner = _Transform(bufferizer, self.m, ftype)
        if self.m <= CONSTANT_TWIDDLES:  # the chirp and its transform as constants
            chirp, kernel = plan.bluestein_tables(n, self.m)
            dtype = np.result_type(numpy_dtype(ftype), 1j)
            self.chirp = split_global(
                bufferizer, f"__tj_fft_chirp_{n}_{dtype.name}", chirp.astype(dtype)
            )
            name = f"__tj_fft_chirp_kernel_{n}_{dtype.name}"
            self.kernel = split_global(bufferizer, name, kernel.astype(dtype))
            return
        b = bufferizer.builder
        scratch = Scratch(bufferizer, ftype)
        self.chirp = scratch.split(index_constant(b, n))
        self.kernel = scratch.split(index_constant(b, self.m))
        self._fill_chirp(b, Roots(bufferizer, 2 * n))
        self._fill_kernel(b, scratch.split(index_constant(b, self.m)))

    def _fill_chirp(self, b: Builder, roots: Roots) -> None:
        """chirp[j] = W_2n^(j^2 mod 2n)."""
        zero, one, twice = index_constant(b, 0), index_constant(b, 1), index_constant(b, 2 * self.n)

        def entry(b: Builder, j: SSAValue, _: Sequence[SSAValue]) -> Sequence[SSAValue]:
            e = b.insert(arith.RemUIOp(mul(b, j, j), twice)).result
            Floats(b, self.ftype).store(roots.root(b, e, self.ftype), self.chirp, j)
            return []

        for_loop(b, zero, index_constant(b, self.n), one, [], entry)

    def _fill_kernel(self, b: Builder, other: Split) -> None:
        """kernel = fft(conj(chirp) wrapped around to length M) / M: conj(chirp[j]) / M at
        j and at M - j (j in [1, n)), zeros between."""
        m = self.m
        zero, one = index_constant(b, 0), index_constant(b, 1)

        def clear(b: Builder, k: SSAValue, _: Sequence[SSAValue]) -> Sequence[SSAValue]:
            f = Floats(b, self.ftype)
            f.store((f.const(0.0), f.const(0.0)), self.kernel, k)
            return []

        def place(at_mirror: bool):
            def body(b: Builder, j: SSAValue, _: Sequence[SSAValue]) -> Sequence[SSAValue]:
                f = Floats(b, self.ftype)
                re, im = f.load(self.chirp, j)
                scale = f.const(1.0 / m)
                at = b.insert(arith.SubiOp(index_constant(b, m), j)).result if at_mirror else j
                f.store((f.mul(re, scale), f.neg(f.mul(im, scale))), self.kernel, at)
                return []

            return body

        for_loop(b, zero, index_constant(b, m), one, [], clear)
        for_loop(b, zero, index_constant(b, self.n), one, [], place(False))
        for_loop(b, one, index_constant(b, self.n), one, [], place(True))
        result = self.inner.run(b, one, 1, self.kernel, other)
        if result is not self.kernel:
            _copy(b, result, self.kernel, index_constant(b, m), self.ftype)

    def run(
        self, b: Builder, batch: SSAValue, hint: int | None, data: Split, work: tuple[Split, Split]
    ) -> None:
        """Transform the batch in `data` (n * batch elements) into `data`."""
        n, m = self.n, self.m
        first, second = work

        def scaled_in(b: Builder, ks: list[SSAValue]) -> None:  # first = data * chirp, padded
            f = Floats(b, self.ftype)
            k, lane = ks
            at = add(b, mul(b, k, batch), lane)
            inside = b.insert(arith.CmpiOp(k, index_constant(b, n), "ult")).result
            clamped = b.insert(arith.MinUIOp(k, index_constant(b, n - 1))).result
            x = f.load(data, add(b, mul(b, clamped, batch), lane))
            value = f.cmul(x, f.load(self.chirp, clamped))
            zero_f = f.const(0.0)
            value = (b.insert(arith.SelectOp(inside, value[0], zero_f)).result,
                     b.insert(arith.SelectOp(inside, value[1], zero_f)).result)  # fmt: skip
            f.store(value, first, at)

        loop_nest(b, [index_constant(b, m), batch], scaled_in)
        spectrum = self.inner.run(b, batch, hint, first, second)

        def times_kernel(b: Builder, ks: list[SSAValue]) -> None:  # conj(P * kernel)
            f = Floats(b, self.ftype)
            k, lane = ks
            at = add(b, mul(b, k, batch), lane)
            product = f.cmul(f.load(spectrum, at), f.load(self.kernel, k))
            f.store((product[0], f.neg(product[1])), spectrum, at)

        loop_nest(b, [index_constant(b, m), batch], times_kernel)
        other = second if spectrum is first else first
        convolved = self.inner.run(b, batch, hint, spectrum, other)

        def scaled_out(b: Builder, ks: list[SSAValue]) -> None:  # data = chirp * conj(conv)
            f = Floats(b, self.ftype)
            k, lane = ks
            at = add(b, mul(b, k, batch), lane)
            re, im = f.load(convolved, at)
            f.store(f.cmul((re, f.neg(im)), f.load(self.chirp, k)), data, at)

        loop_nest(b, [index_constant(b, n), batch], scaled_out)


def _copy(b: Builder, source: Split, target: Split, size: SSAValue, ftype: AnyFloat) -> None:
    zero, one = index_constant(b, 0), index_constant(b, 1)

    def body(b: Builder, k: SSAValue, _: Sequence[SSAValue]) -> Sequence[SSAValue]:
        f = Floats(b, ftype)
        f.store(f.load(source, k), target, k)
        return []

    for_loop(b, zero, size, one, [], body)


def lower_fft(bufferizer: FunctionBufferizer, op: FftOp) -> None:
    """The loops of the module docstring. The result may take the input's buffer when the
    input is dead: a line is copied into scratch buffers before any of it is written."""
    source = bufferizer.values[op.input]
    dims, _ = line_dims(bufferizer, source)
    sizes = bufferizer.sizes_like(op.result, source)  # (the axis is static)
    reusable = [] if op.real() else [op.input]
    output = bufferizer.destination(op.result, sizes, reusable=reusable)
    b = bufferizer.builder
    axis, n = op.get_axis(), op.length()
    complex_side = op.input if op.direction.data != "real_forward" else op.result
    ftype = component_type(element_of(complex_side))
    assert isinstance(ftype, AnyFloat)  # (complex<f32> or complex<f64>: verified)
    before, after = dims[:axis], dims[axis + 1 :]
    shape = shaped_type(op.input).get_shape()
    hint = None if DYNAMIC_INDEX in shape[axis + 1 :] else int(np.prod(shape[axis + 1 :]))
    batch = index_constant(b, 1)
    for size in after:
        batch = mul(b, batch, size)
    packed = op.real() and n % 2 == 0  # a real line of 2h as h complex values
    length = n // 2 if packed else n
    transform: _Transform | _Bluestein
    if plan.needs_bluestein(length):
        transform = _Bluestein(bufferizer, length, ftype)
        extent = mul(b, index_constant(b, transform.m), batch)
    else:
        transform = _Transform(bufferizer, length, ftype)
        extent = mul(b, index_constant(b, length), batch)
    scratch = Scratch(bufferizer, ftype)
    data, other = scratch.split(extent), scratch.split(extent)
    spare = scratch.split(extent) if isinstance(transform, _Bluestein) else other
    roots = Roots(bufferizer, n) if packed else None
    direction, scale = op.direction.data, op.scale()

    def line(b: Builder, outer: list[SSAValue]) -> None:
        lines = Lines(source, output, outer, after, batch, ftype)
        if direction in ("forward", "inverse"):
            lines.complex_in(b, n, data, conjugate=op.inverse())
        elif direction == "real_forward":
            lines.packed_in(b, length, data) if packed else lines.real_in(b, n, data)
        elif packed:
            assert roots is not None
            lines.packed_hermitian_in(b, length, data, roots)
        else:
            lines.hermitian_in(b, n, data)
        if isinstance(transform, _Bluestein):
            transform.run(b, batch, hint, data, (other, spare))
            result = data
        else:
            result = transform.run(b, batch, hint, data, other)
        if direction in ("forward", "inverse"):
            lines.complex_out(b, n, result, scale, conjugate=op.inverse())
        elif direction == "real_forward" and roots is not None:
            lines.packed_spectrum_out(b, length, result, scale, roots)
        elif direction == "real_forward":
            lines.complex_out(b, n // 2 + 1, result, scale, conjugate=False)
        elif packed:
            lines.unpacked_out(b, length, result, scale)
        else:
            lines.real_out(b, n, result, scale)

    loop_nest(b, before, line)
    bufferizer.values[op.result] = output


FFT_HANDLERS: dict[type[Operation], Handler] = {FftOp: lower_fft}
