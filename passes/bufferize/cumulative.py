"""Buffer form of `tj.cumulative` (used by `bufferize`): loops along the scanned axis.

A scan is not a `linalg.generic` (each result element depends on the previous one), so
it becomes `scf.for` loops directly. For `axis = 1` of a 3-D tensor:

    scf.for %i ... {                                  dims before the axis
      scf.for %k = 0 to min(n, 1) {                   the first element along the axis:
        scf.for %j ... { out[i, k, j] = x[i, k, j] }    a copy
      }
      scf.for %k = 1 to n {                           every later one:
        scf.for %j ... {                                dims after the axis, innermost
          out[i, k, j] = out[i, k - 1, j] <kind> x[i, k, j]
        }
      }
    }

so every element is combined in NumPy's order (bit-identical float results), the
innermost loop walks both buffers contiguously, and a scan along the last axis carries
its running value from one iteration to the next, which LLVM keeps in a register.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import DYNAMIC_INDEX
from xdsl.ir import Operation, SSAValue

from tracejit.ir.cumulative import CumulativeOp
from tracejit.ir.dtypes import element_of
from tracejit.ir.shaped import shaped_type
from tracejit.passes.bufferize.builder import FunctionBufferizer, Handler
from tracejit.passes.support import scalar_semantics as scalar
from tracejit.passes.support.indices import index_constant
from tracejit.passes.support.loops import for_loop, loop_nest


def lower_cumulative(bufferizer: FunctionBufferizer, op: CumulativeOp) -> None:
    """The loops of the module docstring. The result may take the input's buffer when the
    input is dead: element k of the input is read before element k is written."""
    source = bufferizer.values[op.input]
    dims, sizes = line_dims(bufferizer, source)
    output = bufferizer.destination(op.result, sizes, reusable=[op.input])
    axis = op.get_axis()
    before, n, after = dims[:axis], dims[axis], dims[axis + 1 :]
    combiner, element = op.combiner(), element_of(op.result)

    def line(b: Builder, outer: list[SSAValue]) -> None:
        zero, one = index_constant(b, 0), index_constant(b, 1)

        def at(k: SSAValue, inner: Sequence[SSAValue]) -> list[SSAValue]:
            return [*outer, k, *inner]

        def first(b: Builder, k: SSAValue, carried: Sequence[SSAValue]) -> Sequence[SSAValue]:
            def copy(b: Builder, inner: list[SSAValue]) -> None:
                value = b.insert(memref.LoadOp.get(source, at(k, inner))).res
                b.insert(memref.StoreOp.get(value, output, at(k, inner)))

            loop_nest(b, after, copy)
            return []

        def later(b: Builder, k: SSAValue, carried: Sequence[SSAValue]) -> Sequence[SSAValue]:
            previous_k = b.insert(arith.SubiOp(k, one)).result

            def step(b: Builder, inner: list[SSAValue]) -> None:
                previous = b.insert(memref.LoadOp.get(output, at(previous_k, inner))).res
                value = b.insert(memref.LoadOp.get(source, at(k, inner))).res
                combined = scalar.emit_scalar(b, combiner, [previous, value], element)
                b.insert(memref.StoreOp.get(combined, output, at(k, inner)))

            loop_nest(b, after, step)
            return []

        first_end = b.insert(arith.MinUIOp(n, one)).result  # no first element when n == 0
        for_loop(b, zero, first_end, one, [], first)
        for_loop(b, one, n, one, [], later)

    loop_nest(bufferizer.builder, before, line)
    bufferizer.values[op.result] = output


def line_dims(
    bufferizer: FunctionBufferizer, buffer: SSAValue
) -> tuple[list[SSAValue], list[SSAValue]]:
    """Every dim of `buffer` as an `index`, and the dynamic ones among them (a result of
    the same shape needs those as its sizes)."""
    shape = shaped_type(buffer).get_shape()
    dims = [bufferizer.dim(buffer, d) for d in range(len(shape))]
    return dims, [dims[d] for d, size in enumerate(shape) if size == DYNAMIC_INDEX]


CUMULATIVE_HANDLERS: dict[type[Operation], Handler] = {CumulativeOp: lower_cumulative}
