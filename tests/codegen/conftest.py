"""Shared helpers for the codegen tests: parse cf-level (or scf-level) MLIR and compile it."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from xdsl.context import Context
from xdsl.dialects import arith, builtin, cf, func, math, memref, scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser
from xdsl.transforms.convert_scf_to_cf import ConvertScfToCf

from tracejit.codegen import JitModule, compile_module

_DIALECTS = (builtin.Builtin, func.Func, cf.Cf, arith.Arith, math.Math, memref.MemRef, scf.Scf)


def parse_cf(text: str, *, allow_unregistered: bool = False, lower_scf: bool = True) -> ModuleOp:
    """Parse MLIR text and lower any scf ops to cf, giving a verified cf-level module.
    (The lowering also deletes dead pure ops; pass lower_scf=False to keep them.)"""
    ctx = Context(allow_unregistered=allow_unregistered)
    for dialect in _DIALECTS:
        ctx.load_dialect(dialect)
    module = Parser(ctx, text).parse_module()
    if lower_scf:
        ConvertScfToCf().apply(ctx, module)
    module.verify()
    return module


def build_module(text: str) -> JitModule:
    return compile_module(parse_cf(text))


def map_kernel(name: str, in_type: str, out_type: str, body: str, arity: int = 1) -> str:
    """A 1-D element-wise kernel over `?`-sized memrefs: loads %a (%b, %c), `body` defines %r."""
    inputs = ", ".join(f"%in{k}: memref<?x{in_type}>" for k in range(arity))
    loads = "\n".join(
        f"    %{'abc'[k]} = memref.load %in{k}[%i] : memref<?x{in_type}>" for k in range(arity)
    )
    return f"""
func.func @{name}({inputs}, %out: memref<?x{out_type}>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %out, %c0 : memref<?x{out_type}>
  scf.for %i = %c0 to %n step %c1 {{
{loads}
    {body}
    memref.store %r, %out[%i] : memref<?x{out_type}>
  }}
  func.return
}}
"""


# Test files cannot import this conftest (--import-mode=importlib): they get the helpers
# through these session fixtures.


@pytest.fixture(scope="session")
def parse() -> Callable[..., ModuleOp]:
    return parse_cf


@pytest.fixture(scope="session")
def build() -> Callable[[str], JitModule]:
    return build_module


@pytest.fixture(scope="session")
def kernel_text() -> Callable[..., str]:
    return map_kernel
