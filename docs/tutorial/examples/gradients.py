"""Chapter 06, step 5: a staged `if` to differentiate (see docs/tutorial/06-*.md)."""

import numpy as np


def soft_sum(x):
    if np.sum(x) > 0:  # noqa: SIM108  (a statement on purpose: AutoGraph stages it)
        y = np.tanh(x)
    else:
        y = x * 0.5
    return np.sum(y)
