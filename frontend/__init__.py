"""The frontend: tracing NumPy code into the `tj` dialect, and the API around it.

Its floors, each importing only those below it (docs/design.md, tests/test_layering.py):
staging/ (Tensor, tracing, staged control flow, Variables) -> numpy_api/ (NumPy's functions
and semantics on Tensors) -> autograph/, autodiff/ -> api/ (Function, ConcreteFunction,
config, tiered execution, tj.grad) -> export/ (saved_model, pickling).

Importing any of them imports numpy_api/ too: it installs NumPy's semantics on `Tensor`
(staging/tensor.py's NumpyLayer), without which a Tensor could not be indexed or computed
with.
"""

from tracejit.frontend import (
    export,  # noqa: E402, F401 (installs pickling on Function)
    numpy_api,  # noqa: F401 (installs NumPy's semantics on Tensor)
)
