"""One-line builders for the integer arithmetic and memory accesses that hand-built
lowerings repeat (the merge and radix sorts): `add(b, i, j)` reads like the `i + j` it is."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith, memref
from xdsl.ir import SSAValue


def add(b: Builder, x: SSAValue, y: SSAValue) -> SSAValue:
    return b.insert(arith.AddiOp(x, y)).result


def mul(b: Builder, x: SSAValue, y: SSAValue) -> SSAValue:
    return b.insert(arith.MuliOp(x, y)).result


def min_unsigned(b: Builder, x: SSAValue, y: SSAValue) -> SSAValue:
    return b.insert(arith.MinUIOp(x, y)).result


def load(b: Builder, buffer: SSAValue, indices: Sequence[SSAValue]) -> SSAValue:
    return b.insert(memref.LoadOp.get(buffer, indices)).res


def store(b: Builder, value: SSAValue, buffer: SSAValue, indices: Sequence[SSAValue]) -> None:
    b.insert(memref.StoreOp.get(value, buffer, indices))
