"""vector.load/store print their nontemporal flag as upstream MLIR does and read both forms."""

import pytest
from xdsl.parser import Parser
from xdsl.utils.exceptions import ParseError

from tracejit.ir import upstream_vector
from tracejit.ir.dialect import make_context

OLD = """func.func @f(%m: memref<64xf32>, %t: memref<16xf32>, %i: index) {
  %v = vector.load %t[%i] : memref<16xf32>, vector<16xf32>
  vector.store %v, %m[%i] {nontemporal = true} : memref<64xf32>, vector<16xf32>
  vector.store %v, %m[%i] {nontemporal = false, tag = 1 : i64} : memref<64xf32>, vector<16xf32>
  func.return
}
"""


def _reprinted(text: str) -> str:
    return str(Parser(make_context(), text).parse_module())


def test_attr_dict_flag_still_parses_and_prints_upstream_syntax():
    text = _reprinted(OLD)
    assert "vector.store %v, %m[%i] nontemporal = true : memref<64xf32>, vector<16xf32>" in text
    assert "vector.store %v, %m[%i] {tag = 1 : i64} : memref<64xf32>, vector<16xf32>" in text
    assert "%v = vector.load %t[%i] : memref<16xf32>, vector<16xf32>" in text
    assert _reprinted(text) == text  # the new form round-trips


def test_parsed_ops_are_the_upstream_syntax_classes_with_their_flag():
    module = Parser(make_context(), OLD).parse_module()
    stores = [op for op in module.walk() if op.name == "vector.store"]
    assert all(isinstance(op, upstream_vector.StoreOp) for op in stores)
    assert [upstream_vector.is_nontemporal(op) for op in stores] == [True, False]


def test_a_flag_that_is_not_a_bool_is_refused():
    bad = OLD.replace("{nontemporal = true}", "{nontemporal = 3 : i64}")
    with pytest.raises(ParseError, match="nontemporal must be true or false"):
        _reprinted(bad)
