"""The two directions meeting: upstream linalg text (what `export-linalg` writes) imported
as tj, compiled by tracejit's own pipeline and run on NumPy arrays, as
`tracejit-opt m.mlir --run` does."""

from __future__ import annotations

import re
import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from xdsl.parser import Parser
from xdsl.utils.exceptions import ParseError

from tracejit.compiler import driver
from tracejit.ir.dialect import make_context
from tracejit.passes.import_linalg import ImportError_, import_module
from tracejit.passes.pipeline import DEFAULT_PIPELINE
from tracejit.tools import run_module


def run_upstream_text(text: str, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Import the module `text` (one function), compile it and call it on `args`; its
    results. Raises ImportError_ for an op import-linalg does not take."""
    try:
        module = Parser(make_context(), text).parse_module()
    except ParseError as error:  # an op xDSL does not define (arith.remf)
        found = re.search(r"Operation (\S+) is not registered", str(error))
        what = f"'{found.group(1)}'" if found else "the text"
        raise ImportError_(f"{what} cannot be imported into tj: xDSL cannot parse it") from None
    import_module(module)
    lowered = driver.lower(module, DEFAULT_PIPELINE).module
    compiled = driver.compile_to_machine_code(lowered)
    entry = run_module.entry_function(module, None)
    call = run_module.KernelCall(run_module.argument_names(entry), len(entry.function_type.outputs))
    kernel = compiled.kernel(entry.sym_name.data)
    with tempfile.TemporaryDirectory() as directory:  # --run reads .npy files
        paths = {}
        for i, arg in enumerate(args):
            paths[f"arg{i}"] = str(Path(directory) / f"arg{i}.npy")
            np.save(paths[f"arg{i}"], np.asarray(arg))
        call.bind(kernel.signature, paths)
    status = kernel(*call.arrays)
    if status:
        raise RuntimeError(f"the imported kernel failed a run-time check (status {status})")
    return [array for _, array in call.results]
