"""memref.alloc/alloca print their alignment as upstream MLIR does and read both forms."""

from xdsl.parser import Parser

from tracejit.ir.dialect import make_context


def _reprinted(text: str) -> str:
    return str(Parser(make_context(), text).parse_module())


def test_old_attr_dict_alignment_still_parses_and_prints_upstream_syntax():
    old = (
        "func.func @f(%n: index) {\n"
        "  %0 = memref.alloca() {alignment = 64 : i64} : memref<4xf32>\n"
        "  %1 = memref.alloc(%n) {alignment = 16 : i64} : memref<?xf64>\n"
        "  func.return\n}\n"
    )
    text = _reprinted(old)
    assert "memref.alloca() alignment = 64 : memref<4xf32>" in text
    assert "memref.alloc(%n) alignment = 16 : memref<?xf64>" in text
    assert _reprinted(text) == text  # the new form round-trips


def test_no_alignment_prints_nothing_extra():
    text = _reprinted("func.func @f() {\n  %0 = memref.alloc() : memref<2xi8>\n  func.return\n}\n")
    assert "memref.alloc() : memref<2xi8>" in text
