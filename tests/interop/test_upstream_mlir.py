"""Every lowered stage (bufferize down to cf) is upstream MLIR: `iree-opt` (the `interop`
extra) parses and verifies it. Skipped, with the reason, when the extra is missing."""

from __future__ import annotations

import os
import warnings

import numpy as np
import pytest

pytest.importorskip("iree.compiler", reason="needs the interop extra (iree-base-compiler)")

from fuzz_programs import draw_programs  # noqa: E402
from interop_cases import (  # noqa: E402
    LOWERED_PASSES,
    example_programs,
    filecheck_outputs,
    lowered_stages,
)

import tracejit as tj  # noqa: E402
from tracejit.compiler import driver
from tracejit.passes.pipeline import DEFAULT_PIPELINE  # noqa: E402
from tracejit.tools.upstream_mlir import check_modules  # noqa: E402


def _assert_upstream(modules: list[tuple[str, str]]) -> None:
    rejected = check_modules(modules)
    assert not rejected, "\n\n".join(map(str, rejected[:5]))


def test_example_programs_stages_are_upstream_mlir():
    modules = []
    for name, (function, args) in example_programs().items():
        modules += [(f"{name} after {p}", ir) for p, ir in lowered_stages(function, args)]
    assert len(modules) > 40
    _assert_upstream(modules)


def test_filecheck_outputs_are_upstream_mlir():
    modules = list(filecheck_outputs())
    assert len(modules) > 10
    _assert_upstream(modules)


def test_fuzzer_programs_stages_are_upstream_mlir():
    """30 generated programs (300 with TRACEJIT_SLOW=1), every lowered stage of each."""
    count = 300 if os.environ.get("TRACEJIT_SLOW") == "1" else 30
    modules = []
    for k, program in enumerate(draw_programs(count, seed=23)):
        namespace = program.build()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                stages = lowered_stages(namespace["program"], program.inputs)
        except Exception:  # noqa: BLE001  a program the contract refuses: nothing to check
            continue
        modules += [(f"fuzz program {k} after {p}:\n{program.source()}", ir) for p, ir in stages]
    assert len(modules) > 100
    _assert_upstream(modules)


def _complex(z):
    return np.abs(z * z + 1j), np.sum(z)


def _unknown_dims(x):
    return np.tanh(x) @ x.T, x[1:], np.sort(x, axis=1)


def _parallel(x):  # big enough for parallelize to outline its loops
    return np.sum(np.exp(x)), np.cumsum(x, axis=0)


def _runtime_state(x):
    t = tj.TensorArray(tj.float32, size=0, dynamic_size=True)
    for i in tj.range(3):
        t = t.write(i, x * i)
    tj.print(x)
    tj.debugging.assert_all_finite(x, "bad")
    return t.stack(), x[x > 0]


def test_feature_programs_stages_are_upstream_mlir():
    """What the examples do not reach: complex numbers, dims unknown at trace time, outlined
    parallel loops, TensorArrays, run-time printing, assertions, data-dependent sizes."""
    concretes = [
        tj.function(_complex).get_concrete_function(np.ones(5, np.complex64)),
        tj.function(
            _unknown_dims, input_signature=[tj.TensorSpec([None, 4], tj.float32)]
        ).get_concrete_function(),
        tj.function(_parallel).get_concrete_function(np.ones((512, 512), np.float32)),
        tj.function(_runtime_state).get_concrete_function(np.ones(4, np.float32)),
    ]
    modules = []
    for concrete in concretes:
        stages = driver.lower(concrete.graph.module, DEFAULT_PIPELINE, record_stages=True).stages
        lowered = [s for s in stages if s.pass_name in LOWERED_PASSES]
        modules += [(f"{concrete} after {s.pass_name}", s.ir) for s in lowered]
    assert len(modules) == len(concretes) * len(LOWERED_PASSES)  # every stage of every program
    _assert_upstream(modules)
