"""The programs the interop tests check against upstream MLIR and IREE: the example
programs, a sample of the FileCheck inputs, and generated fuzzer programs."""

from __future__ import annotations

import importlib.util
import shlex
from collections.abc import Iterator
from pathlib import Path

import numpy as np
from xdsl.parser import Parser

import tracejit as tj
from tracejit.compiler import driver
from tracejit.ir.dialect import make_context
from tracejit.passes.pipeline import DEFAULT_PIPELINE, Pipeline

TESTS = Path(__file__).resolve().parents[1]
EXAMPLES = TESTS.parent / "examples"

# The stages that must be upstream MLIR: bufferize and every pass after it, down to cf.
LOWERED_PASSES = DEFAULT_PIPELINE[DEFAULT_PIPELINE.index("bufferize") :]


def load_example(name: str):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def example_programs() -> dict[str, tuple]:
    """name -> (NumPy function, arguments) for every example program."""
    rng = np.random.default_rng(0)
    programs = dict(load_example("numpy_models").example_inputs(rng))
    quickstart = load_example("quickstart")
    x = rng.standard_normal((8, 32), dtype=np.float32)
    w = rng.standard_normal((32, 16), dtype=np.float32)
    b = rng.standard_normal(16, dtype=np.float32)
    programs["quickstart.predict"] = (quickstart.predict, (x, w, b))
    return programs


def lowered_stages(function, args) -> list[tuple[str, str]]:
    """(pass name, IR text) after bufferize and each later pass of the default pipeline."""
    concrete = tj.function(function).get_concrete_function(*args)
    stages = driver.lower(concrete.graph.module, DEFAULT_PIPELINE, record_stages=True).stages
    return [(s.pass_name, s.ir) for s in stages if s.pass_name in LOWERED_PASSES]


def filecheck_outputs(limit_per_dir: int = 3) -> Iterator[tuple[str, str]]:
    """(label, output) of the RUN lines `tracejit-opt %s -p PASSES` of the FileCheck tests
    of the lowering passes (at most `limit_per_dir` files each: a sample)."""
    for directory in LOWERED_PASSES:  # a pass's FileCheck tests: the directory of its name
        files = sorted((TESTS / "filecheck" / directory).glob("*.mlir"))
        assert files, f"no FileCheck tests for the pass {directory}"
        for path in files[:limit_per_dir]:
            passes = _run_line_passes(path.read_text())
            if passes is None:
                continue
            module = Parser(make_context(), path.read_text(), str(path)).parse_module()
            Pipeline.parse(passes).run(module)
            yield f"{path.relative_to(TESTS)} -p {passes}", str(module)


def _run_line_passes(text: str) -> str | None:
    """The -p list of the first plain `tracejit-opt %s -p PASSES | filecheck` RUN line."""
    for line in text.splitlines():
        if "RUN:" not in line:
            continue
        words = shlex.split(line.split("RUN:", 1)[1].split("|")[0])
        if words[:2] == ["tracejit-opt", "%s"] and len(words) == 4 and words[2] == "-p":
            return words[3]
    return None


