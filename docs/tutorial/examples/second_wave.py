"""Chapter 09: what the second wave added to the back end (see docs/tutorial/09-*.md)."""

import numpy as np


def sum_of_squares(x):  # a big reduction: parallelize splits it into blocks
    return np.sum(x * x)


def w2_elementwise(x, y):  # workload W2: a big output, written with streaming stores
    return x**2 + 3 * y - np.tanh(x) * 0.5


def sort(x):  # long lines: the radix sort
    return np.sort(x)


def clip_negatives(z, c):  # a masked update: canonicalize makes it one select
    z = z.copy()
    m = z < 0
    z[m] = z[m] * z[m] + c[m]
    return z
