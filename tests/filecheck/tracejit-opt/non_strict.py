# Non-strict execution while tracing (frontend/staging/non_strict.py): the guide's
# unused_return_graph traces to just its return, as an index out of range whose result
# is unused raises nothing (no tj.poison leaves the frontend); used, the same index
# raises NumPy's IndexError naming the line.
# RUN: tracejit-opt %s:unused_return_graph --signature "f32[1]" -p '' | filecheck %s
# RUN: not tracejit-opt %s:used --signature "i64[1]" 2>&1 | filecheck %s --check-prefix=USED
import numpy as np

# CHECK:      func.func @unused_return_graph(%[[X:.*]]: tensor<1xf32>) -> tensor<1xf32> {
# CHECK-NEXT:   func.return %[[X]] : tensor<1xf32>
# CHECK-NEXT: }
# CHECK-NOT:  tj.poison
# USED: error: {{.*}}index 1 is out of bounds for axis 0 with size 1 (non_strict.py:[[# @LINE + 9]])


def unused_return_graph(x):
    np.take(x, [1])  # unused
    return x


def used(x):
    return x[1] * 2
