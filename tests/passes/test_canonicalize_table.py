"""passes/canonicalize/: the pass finds the `tj` patterns in its table and the upstream ops'
patterns through their traits; the dialect itself carries no pattern."""

from __future__ import annotations

from xdsl.parser import Parser
from xdsl.traits import HasCanonicalizationPatternsTrait

from tracejit.ir.dialect import TJ, make_context
from tracejit.passes.canonicalize import PATTERNS, CanonicalizePass
from tracejit.passes.pipeline import PASSES, Pipeline


def test_no_tj_op_carries_canonicalization_patterns():
    """The patterns are pass code: an op of ir/ that pointed at them would bring back the
    import cycle of ir/ into passes/ (and be applied twice)."""
    carrying = [
        op.name
        for op in TJ.operations
        if any(isinstance(t, HasCanonicalizationPatternsTrait) for t in op.traits)
    ]
    assert carrying == []


def test_the_table_holds_tj_ops_only():
    assert set(PATTERNS) <= set(TJ.operations)
    assert all(PATTERNS.values())


def test_canonicalize_is_the_table_driven_pass():
    assert PASSES["canonicalize"]() is CanonicalizePass
    assert Pipeline.parse("canonicalize").passes == (CanonicalizePass(),)


def _canonicalized(text: str) -> str:
    module = Parser(make_context(), text).parse_module()
    CanonicalizePass().apply(make_context(), module)
    module.verify()
    return str(module)


def test_upstream_patterns_still_apply():
    """arith's own canonicalization (x + 0 -> x on integers) comes from its trait."""
    out = _canonicalized("""builtin.module {
      func.func @f(%x: i64) -> i64 {
        %c0 = arith.constant 0 : i64
        %r = arith.addi %x, %c0 : i64
        func.return %r : i64
      }
    }""")
    assert "arith.addi" not in out and "func.return %x" in out


def test_tj_patterns_and_folds_apply_together():
    """A table pattern (x + (-0.0) -> x) next to a fold (the constant product)."""
    out = _canonicalized("""builtin.module {
      func.func @f(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
        %z = tj.constant dense<-0.0> : tensor<2xf32>
        %r = tj.add %x, %z : tensor<2xf32>
        %c = tj.constant dense<3.0> : tensor<2xf32>
        %p = tj.mul %c, %c : tensor<2xf32>
        func.return %r, %p : tensor<2xf32>, tensor<2xf32>
      }
    }""")
    assert "tj.add" not in out and "tj.mul" not in out
    assert "dense<9.000000e+00>" in out and "func.return %x, " in out
