# tracejit-opt on a directory written by tj.saved_model.save (tools/saved_input.py): this
# file saves a Module when run, and tracejit-opt, in other processes that never import it,
# lists the saved signatures, prints a saved trace's IR, lowers it and runs it.
# RUN: rm -rf %t && %python %s %t
# RUN: tracejit-opt %t:predict --list | filecheck %s --check-prefix=LIST
# RUN: tracejit-opt %t:predict --signature "f32[2,3]" --arg scale=0.5 -p '' | filecheck %s
# RUN: tracejit-opt %t:predict --signature "f32[3]" --emit loops | filecheck %s --check-prefix=LOOPS
# RUN: tracejit-opt %t:predict --signature "f32[2,3]" --arg scale=0.5 --run \
# RUN:     --input x="[[1,2,3],[4,5,6]]" | filecheck %s --check-prefix=RESULT
# RUN: not tracejit-opt %t:predict -p '' 2>&1 | filecheck %s --check-prefix=AMBIGUOUS
import sys

import numpy as np

import tracejit as tj

# LIST:      {{.*}}:predict: 2 saved signatures
# LIST-NEXT:   --signature "f32[3]" --arg scale=2.0
# LIST-NEXT:       returns f32[3]
# LIST-NEXT:   --signature "f32[2,3]" --arg scale=0.5
# LIST-NEXT:       returns f32[2,3]

# CHECK:      func.func @predict(%[[X:.*]]: tensor<2x3xf32>, %[[W:.*]]: !tj.var<tensor<3xf32>>) -> tensor<2x3xf32> {
# CHECK:        tj.var_read %[[W]]
# CHECK:        tj.constant dense<5.000000e-01> : tensor<f32>

# LOOPS:      func.func @predict(%{{.*}}: memref<3xf32>, %{{.*}}: memref<3xf32>, %{{.*}}: memref<3xf32>)
# LOOPS:      scf.for
# LOOPS-NOT:  tj.var_read

# RESULT:      result: float32[2, 3] = {{\[\[}} 0.5 -2.   4.5]
# RESULT-NEXT:                          [ 2.  -5.   9. ]]

# AMBIGUOUS: has 2 saved signatures: choose one with --signature


class Model(tj.Module):
    def __init__(self):
        super().__init__()
        self.w = tj.Variable(np.array([1.0, -2.0, 3.0], np.float32))

    @tj.function
    def predict(self, x, scale=2.0):
        return x * self.w * scale


if __name__ == "__main__":
    model = Model()
    model.predict(np.ones(3, np.float32))
    model.predict(np.ones((2, 3), np.float32), scale=0.5)
    tj.saved_model.save(model, sys.argv[1])
