"""Every lowered stage (bufferize down to cf) is upstream MLIR: `iree-opt` (the `interop`
extra) parses and verifies it. Skipped, with the reason, when the extra is missing."""

from __future__ import annotations

import os
import warnings

import pytest

pytest.importorskip("iree.compiler", reason="needs the interop extra (iree-base-compiler)")

from interop_cases import (  # noqa: E402
    example_programs,
    filecheck_outputs,
    fuzz_programs,
    lowered_stages,
)

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
    for k, program in enumerate(fuzz_programs(count, seed=23)):
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
