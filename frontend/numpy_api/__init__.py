"""NumPy functions staged on symbolic tensors: one registry, one module per family.

Importing this package registers every implementation and installs NumPy's semantics on
`Tensor` (its ufunc and function dispatch, indexing, writes and astype: the hooks of
frontend/staging/tensor.py's `NumpyLayer`, frontend/staging/hooks.py).
"""

from tracejit.frontend.numpy_api import (  # noqa: F401
    array_manipulation,
    comparisons,
    construction,
    counting,
    creation,
    cumulative,
    decompositions,
    differences,
    einsum,
    elementwise,
    fft,
    floating,
    in_place,
    index_arithmetic,
    indexing,
    lapack,
    linalg,
    matrices,
    matrix_functions,
    mutation,
    nan_functions,
    nonzero,
    norms,
    ordering,
    polynomials,
    products,
    reductions,
    registry,
    roll,
    searching,
    selection,
    set_operations,
    shapes,
    sorting,
    statistics,
    tensor_products,
    unique,
)
from tracejit.frontend.staging.tensor import NUMPY

NUMPY.install(
    call_ufunc=registry.call_ufunc,
    call_function=registry.call_function,
    getitem=indexing.getitem,
    setitem=mutation.setitem,
    augmented=mutation.augmented,
    astype=elementwise.stage_astype,
)
