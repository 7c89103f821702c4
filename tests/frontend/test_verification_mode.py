"""Verification (`TRACEJIT_VERIFY_EACH`, read into compiler/options.py): `each` pass, once at
the `end` of the pipeline (what the pytest suite uses), `off`. Invalid IR must not get past
`end` unnoticed."""

import pytest
from xdsl.dialects import arith, builtin, func

from tracejit.compiler import driver
from tracejit.compiler.options import OPTIONS
from tracejit.passes.pipeline import PipelineError


def broken_module() -> builtin.ModuleOp:
    """A function declared to return f32 that returns an i64: invalid IR `dce` keeps."""
    constant = arith.ConstantOp(builtin.IntegerAttr(1, builtin.i64))
    function = func.FuncOp("f", ((), (builtin.f32,)))
    function.body.block.add_ops([constant, func.ReturnOp(constant)])
    return builtin.ModuleOp([function])


@pytest.mark.parametrize("mode", ["each", "end"])
def test_invalid_ir_is_reported_with_the_pass(monkeypatch, mode):
    monkeypatch.setattr(OPTIONS, "verify", mode)
    with pytest.raises(PipelineError, match="function output types") as caught:
        driver.lower(broken_module(), "dce")
    assert caught.value.pass_name.startswith("dce")


def test_off_skips_verification(monkeypatch):
    monkeypatch.setattr(OPTIONS, "verify", "off")
    assert driver.verification_mode() == "off"
    driver.lower(broken_module(), "dce")  # the library's default: no verifier cost
