"""NumPy functions staged on symbolic tensors: one registry, one module per family.

Importing this package registers every implementation.
"""

from tracejit.frontend.numpy_api import (  # noqa: F401
    construction,
    creation,
    cumulative,
    einsum,
    elementwise,
    in_place,
    indexing,
    linalg,
    nonzero,
    reductions,
    roll,
    shapes,
    sorting,
    unique,
)

