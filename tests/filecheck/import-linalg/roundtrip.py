# export-linalg then import: the tj module comes back (as generics' tj meanings) and runs.
# RUN: tracejit-opt %s:predict --signature "f32[2,3], f32[3]" --emit linalg > %t.mlir
# RUN: tracejit-opt %t.mlir --run --input arg0="[[1, 2, 3], [-1, 0, 1]]" --input arg1="[0.5, 0.5, -4]" | filecheck %s
import numpy as np


def predict(x, b):
    return np.sum(np.maximum(x + b, 0.0), axis=1), x.T[1:]


# CHECK:      result[0]: float32[2] = [4.  0.5]
# CHECK-NEXT: result[1]: float32[2, 2] = {{\[}}[2. 0.]
# CHECK-NEXT:                              [3. 1.]]
