"""Chapter 01: a NumPy function to trace (see docs/tutorial/01-tracing.md)."""

import numpy as np


def affine(x, w, b):
    return np.tanh(x * w + b)
