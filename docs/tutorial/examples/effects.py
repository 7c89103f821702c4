"""Chapter 04: repeated work, dead work and side effects (see docs/tutorial/04-*.md)."""

import numpy as np

import tracejit as tj

total = tj.Variable(np.zeros(3, np.float32), name="total")


def step(x):
    a = np.exp(x)
    b = np.exp(x)  # the same expression again
    unused = np.log(x)  # computed, never used  # noqa: F841
    tj.print("a =", a)
    before = total.read_value()
    total.assign_add(a)
    after = total.read_value()  # a write lies between: not the same value as `before`
    return a + b + after - before
