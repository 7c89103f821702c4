"""Chapter 06: Python control flow on tensors (see docs/tutorial/06-*.md)."""

import numpy as np


def collatz_steps(n):
    steps = np.int64(0)
    while n != 1:
        if n % 2 == 0:  # noqa: SIM108  (a statement on purpose: AutoGraph stages it)
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps
