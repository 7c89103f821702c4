"""Chapter 10: interfaces, partial lowering and shapes (see docs/tutorial/10-*.md)."""

import numpy as np

import tracejit as tj


def kernels(x):
    a = np.exp(x) + 1.0
    tj.print("a =", a)  # an op with a write effect: fusion does not cross it
    return a * 2.0


def branchy(x):
    if np.sum(x) > 0:  # a statement on purpose: AutoGraph makes it a tj.if  # noqa: SIM108
        y = np.exp(x)
    else:
        y = -x
    return y + 1.0


def centered(x, y):
    return x - np.mean(x, axis=0) + y


def grow(x):
    return np.concatenate([x, x[1:]]) * 2.0


def neg_neg(x):
    return -(-x) * 2.0  # noqa: B002
