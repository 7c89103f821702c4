"""The compile-latency shortcuts change nothing observable: one code generation for cached
object code, parsed pipelines reused, and the passes that replaced the late canonicalize."""

import re

import numpy as np
import pytest

import tracejit as tj
from tracejit.codegen import (
    compile_llvm_ir,
    compile_module,
    load_object,
    module_signatures,
    translate_module,
)
from tracejit.passes.pipeline import DEFAULT_PIPELINE, Pipeline

AXPY = """
func.func @axpy(%x: memref<?xf64>, %a: f64, %out: memref<?xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?xf64>
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %x[%i] : memref<?xf64>
    %s = arith.mulf %v, %a : f64
    %t = arith.addf %s, %v : f64
    memref.store %t, %out[%i] : memref<?xf64>
  }
  func.return
}
"""


def test_kept_object_code_is_what_runs(parse):
    module = parse(AXPY)
    direct = compile_module(module)
    signatures = module_signatures(module)
    kept = compile_llvm_ir(translate_module(module), signatures, keep_object_code=True)
    x = np.random.default_rng(1).standard_normal(1003)
    outs = [np.zeros_like(x) for _ in range(3)]
    direct.kernel("axpy")(x, 2.5, outs[0])
    kept.kernel("axpy")(x, 2.5, outs[1])
    load_object(kept.object_code, kept.signatures).kernel("axpy")(x, 2.5, outs[2])
    np.testing.assert_array_equal(outs[0], x * 2.5 + x)
    np.testing.assert_array_equal(outs[1], outs[0])
    np.testing.assert_array_equal(outs[2], outs[0])
    assert "define" in kept.optimized_llvm_ir  # the optimised module is still there


def test_parsed_pipeline_is_reused_and_errors_are_not_cached():
    first, second = Pipeline.parse(DEFAULT_PIPELINE), Pipeline.parse("default")
    assert first.passes is second.passes
    assert first.names == DEFAULT_PIPELINE
    for _ in range(2):
        with pytest.raises(ValueError, match="unknown pass 'no-such-pass'"):
            Pipeline.parse("cse,no-such-pass")
        with pytest.raises(ValueError, match="max-bytes"):
            Pipeline.parse("constant-fold{max-bytes=-1}")


def _reductions(x):
    return np.sum(x, axis=(1, 2)), np.max(x, axis=0), np.argmin(x), x[:, :, 0] * 2.0


def _sums(x):
    return np.sum(x, axis=(1, 2)), np.sum(x, axis=0), x * 2.0


@pytest.mark.parametrize("shape", [(2, 1, 1), (1, 3, 1), (1, 1, 1), (3, 1, 4)])
def test_unit_dims_match_numpy(check_against_eager, shape):
    """Trip-1 loops (which simplify-loops inlines) at every position of the nest."""
    x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape) - 1.5
    check_against_eager(tj.function(_reductions), x, rtol=0)


@pytest.mark.parametrize("shape", [(0, 1, 2), (2, 0, 1), (1, 1, 0)])
def test_empty_dims_match_numpy(check_against_eager, shape):
    """Trip-0 loops (which simplify-loops drops): the results keep their initial values."""
    check_against_eager(tj.function(_sums), np.ones(shape, np.float64), rtol=0)


def _axpy(x, y):
    return x * 2.5 + y


def test_only_the_entry_points_skip_llvm_optimisation():
    """The kernel is vectorised as before; its array-object entry points are `optnone`."""
    x = np.ones(1000, np.float64)
    llvm_ir = tj.function(_axpy).get_concrete_function(x, x).llvm_ir
    groups = dict(re.findall(r"^attributes (#\d+) = \{(.*)\}", llvm_ir, re.M))

    def attributes(name: str) -> str:
        header = re.search(rf"^define .*@{name}\(.*\) .*?(#\d+) \{{$", llvm_ir, re.M)
        assert header is not None, name
        return groups[header.group(1)]

    assert "optnone" in attributes("_axpy__pyentry")
    assert "optnone" in attributes("_axpy__pyfast")
    assert "optnone" not in attributes("_axpy")
    assert re.search(r"<\d+ x double>", llvm_ir)  # the kernel is still vectorised
