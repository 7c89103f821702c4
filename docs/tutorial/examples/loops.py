"""Chapter 07: buffers and loop nests (see docs/tutorial/07-bufferization-and-loops.md)."""

import numpy as np


def centered(x):
    return x - np.mean(x, axis=0)


def matmul(a, b):
    return a @ b
