"""Solutions to the exercises of chapter 02 (the dialect). Run: .venv/bin/python <this file>."""

import contextlib
import io
import tempfile
from pathlib import Path
from typing import ClassVar

import numpy as np
from xdsl.ir import Dialect
from xdsl.irdl import irdl_op_definition
from xdsl.parser import Parser
from xdsl.utils.exceptions import VerifyException

from tracejit.ir.dialect import make_context
from tracejit.ir.elementwise_base import ElementwiseUnaryOp
from tracejit.tools.opt_main import main as tracejit_opt

# 1. np.maximum(x, 0) by hand: a 0-d constant, broadcast, then tj.maximum.
RELU = """
builtin.module {
  func.func @relu(%x: tensor<4xf32>) -> tensor<4xf32> {
    %zero = tj.constant dense<0.000000e+00> : tensor<f32>
    %z = tj.broadcast_in_dim %zero, dims = [] : tensor<f32> to tensor<4xf32>
    %r = tj.maximum %x, %z : tensor<4xf32>
    func.return %r : tensor<4xf32>
  }
}
"""
with tempfile.TemporaryDirectory() as tmp:
    path = Path(tmp) / "relu.mlir"
    path.write_text(RELU)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):  # what `tracejit-opt relu.mlir --run ...` prints
        status = tracejit_opt([str(path), "--run", "--input", "x=[-1.5, 0.0, 2.0, -0.0]"])
    assert status == 0, out.getvalue()
    assert "[0. 0. 2. 0.]" in out.getvalue(), out.getvalue()


# 2. Parse, then verify: the verifier names what is wrong.
def verify_message(body: str, arg_type: str) -> str:
    text = f"func.func @f(%x: {arg_type}) {{\n  {body}\n  func.return\n}}"
    module = Parser(make_context(), text).parse_module()
    try:
        module.verify()
    except VerifyException as error:
        return str(error)
    return "verified"


unsorted = verify_message(
    '%r = tj.reduce "sum" %x, axes = [1, 0] : tensor<2x3xf32> to tensor<f32>', "tensor<2x3xf32>"
)
assert "must be increasing and in range" in unsorted, unsorted
empty_max = verify_message(
    '%r = tj.reduce "max" %x, axes = [0] : tensor<0x3xf32> to tensor<3xf32>', "tensor<0x3xf32>"
)
assert "over a zero-size axis has no result" in empty_max, empty_max
any_float = verify_message(
    '%r = tj.reduce "any" %x, axes = [0] : tensor<3xf32> to tensor<i1>', "tensor<3xf32>"
)
assert "reduces i1 tensors to i1" in any_float, any_float


# 3. A new op in a new dialect, registered in the context, round-tripped.
@irdl_op_definition
class SquareOp(ElementwiseUnaryOp):
    """x * x

    %r = tj_demo.square %x : tensor<4xf32>
    """

    name = "tj_demo.square"
    NUMPY: ClassVar = staticmethod(np.square)


context = make_context()
context.load_dialect(Dialect("tj_demo", [SquareOp]))
text = """builtin.module {
  func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    %r = tj_demo.square %x : tensor<4xf32>
    func.return %r : tensor<4xf32>
  }
}"""
module = Parser(context, text).parse_module()
module.verify()
assert str(module) == text, str(module)
square = next(op for op in module.walk() if isinstance(op, SquareOp))
np.testing.assert_array_equal(square.evaluate(np.array([3.0, -2.0])), [9.0, 4.0])
print("ok")
