"""A module imported on first attribute access.

`llvmlite.binding` loads LLVM itself (a ~100 MB shared library, ~30 ms): a process that only
calls machine code it found in the persistent cache as a shared library never touches it.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any


class LazyModule:
    """Stands for the module `name` and imports it when an attribute is first read."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._module: ModuleType | None = None

    def __getattr__(self, attribute: str) -> Any:
        if self._module is None:
            self._module = importlib.import_module(self._name)
        return getattr(self._module, attribute)
