"""cse: xDSL's common-subexpression elimination, which also merges a repeated checked op.

A checked op (a gather, an index conversion, a scatter) carries the message of the error it
raises, naming the user's line. NumPy code repeats its indexing from line to line (`N[X[I],
Y[I]] = i` and then `Z_[X[I], Y[I]] = Z[I]`: `X[I]` and `Y[I]` twice, the positions of `I`
three times), and the copies differ in their message only, so xDSL's CSE, which compares
every property, kept each one:

    %a = tj.gather %x[%p], axis = 0, "IndexError: boolean index (f.py:3)" : ...
    %b = tj.gather %x[%p], axis = 0, "IndexError: boolean index (f.py:4)" : ...
    %s = tj.add %a, %b : ...
  =>
    %a = tj.gather %x[%p], axis = 0, "IndexError: boolean index (f.py:3)" : ...
    %s = tj.add %a, %a : ...

That is exact where the first op dominates the second: they compute the same value and fail
for the same operands, so when the first succeeds the second cannot fail, and when it fails
the call stops there, with the message of the first line to fail, as in NumPy. So after
xDSL's CSE (which makes the copies' operands the same values: their constants, say), a
checked op identical but for its message to one that dominates it (the same scopes as CSE's:
earlier in its block or in a block enclosing it, never across a function) is replaced by it,
and CSE runs again for the pure ops that then read the same values. NPBench's mandelbrot2
gathered 20 times per trip of its loop; now 11.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation
from xdsl.passes import ModulePass
from xdsl.traits import IsolatedFromAbove
from xdsl.transforms.common_subexpression_elimination import cse

CHECKED_OPS = frozenset({"tj.gather", "tj.to_index", "tj.scatter", "tj.scatter_combine"})
"""Pure ops whose `message` says only why they fail (not `tj.poison`, whose message is its
value, nor `tj.assert`, which is an effect). By name: `tracejit-opt -p cse` need not import
their modules."""


def merge_repeated_checks(root: Operation) -> bool:
    """Replace each checked op by an identical one but for its message that dominates it;
    whether any was."""
    merged = False
    for region in root.regions:
        if len(region.blocks) == 1:
            merged |= _merge_in_block(region.block, {})
    return merged


def _merge_in_block(block: Block, known: dict[tuple, Operation]) -> bool:
    merged = False
    for op in list(block.ops):
        for region in op.regions:
            if len(region.blocks) == 1:  # as CSE: a region of several blocks is left alone
                isolated = op.has_trait(IsolatedFromAbove, value_if_unregistered=True)
                merged |= _merge_in_block(region.block, {} if isolated else dict(known))
        if op.name in CHECKED_OPS:
            first = known.setdefault(_without_message(op), op)
            if first is not op:
                for mine, its in zip(op.results, first.results, strict=True):
                    mine.replace_all_uses_with(its)
                block.erase_op(op)
                merged = True
    return merged


def _without_message(op: Operation) -> tuple:
    properties = {k: v for k, v in op.properties.items() if k != "message"}
    return (
        op.name,
        tuple(op.operands),
        tuple(op.result_types),
        frozenset(properties.items()),
        frozenset(op.attributes.items()),
    )


@dataclass(frozen=True)
class CommonSubexpressionEliminationPass(ModulePass):
    """Common subexpression elimination, checked ops that differ only in their message too."""

    name = "cse"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        cse(op)
        while merge_repeated_checks(op):
            cse(op)
