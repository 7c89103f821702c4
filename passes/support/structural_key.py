"""A hashable key of an op's structure, equal for two ops that compute the same thing.

Two ops get the same key when they have the same op names, attributes, properties and
types, nested the same way, and use their values the same way: values defined inside are
numbered in definition order, and values from outside are numbered in order of first use,
each standing for itself wherever it is used again. An outside value is described by
`describe_outside(value)`: its type where any value of that type would do (a function's
argument), its constant where the value itself matters.

So `scf.for` nests that differ only in which buffers they read and write (one per layer of
an unrolled network) get the same key, and outlined into functions of those buffers they
are one function (passes/dedupe_loop_nests.py).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

from xdsl.ir import Attribute, Operation, SSAValue

Describe = Callable[[SSAValue], Hashable]


def structural_key(
    root: Operation, describe_outside: Describe, ignored: frozenset[str] = frozenset()
) -> tuple[Hashable, ...]:
    """The key of `root` and everything nested in it (see the module docstring), leaving out
    the attributes and properties named in `ignored` (a function's `sym_name`)."""
    inside: dict[SSAValue, int] = {}
    outside: dict[SSAValue, int] = {}
    parts: list[Hashable] = []

    def ref(value: SSAValue) -> Hashable:
        if value in inside:
            return inside[value]
        if value not in outside:
            outside[value] = len(outside)
            parts.append(("outside", describe_outside(value)))
        return ("outside", outside[value])

    def visit(op: Operation) -> None:
        operands = tuple(ref(v) for v in op.operands)
        parts.append((op.name, _attributes(op.attributes, ignored),
                      _attributes(op.properties, ignored),
                      operands, tuple(r.type for r in op.results), len(op.regions),
                      tuple(len(r.blocks) for r in op.regions)))  # fmt: skip
        for result in op.results:
            inside[result] = len(inside)
        for region in op.regions:
            for block in region.blocks:
                parts.append(("block", tuple(a.type for a in block.args)))
                for arg in block.args:
                    inside[arg] = len(inside)
                for nested in block.ops:
                    visit(nested)

    visit(root)
    return tuple(parts)


def _attributes(
    attributes: dict[str, Attribute], ignored: frozenset[str]
) -> tuple[tuple[str, Attribute], ...]:
    return tuple(sorted((k, v) for k, v in attributes.items() if k not in ignored))
