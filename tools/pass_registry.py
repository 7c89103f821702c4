"""The passes tracejit-opt knows: passes/'s registry and the frontend's own.

`passes/pipeline.PASSES` owns the compiler's passes; reverse-mode differentiation
(`value-and-grad`) stages ops the way tracing does, so it lives in the frontend and exports
its registry (frontend/autodiff/module_transform.PASSES). Nothing mutates either: tools join
them here, loading the frontend's only when its pass is used (`tracejit-opt` on an .mlir file
never imports the frontend, ~0.4 s).
"""

from __future__ import annotations

import importlib

from xdsl.passes import ModulePass

from tracejit.passes.pipeline import PASSES

_FRONTEND_PASSES = "tracejit.frontend.autodiff.module_transform"


def _frontend_pass(name: str) -> type[ModulePass]:
    return importlib.import_module(_FRONTEND_PASSES).PASSES[name]()


ALL_PASSES = {**PASSES, "value-and-grad": lambda: _frontend_pass("value-and-grad")}
