// --run compiles the module (lowering it the rest of the way from whatever stage it is at),
// calls it on --input arrays (.npy files or Python literals) and prints the results.
// RUN: tracejit-opt %s --run --input x="[1, -2, 3]" --input y="[10, 20, 30]" | filecheck %s
// RUN: %python -c "import numpy as np; np.save('%t.npy', np.array([4, 5, 6], np.int32))"
// RUN: tracejit-opt %s --run --input x=%t.npy --input y="[0, 0, 0]" | filecheck %s --check-prefix=NPY
// A hand-lowered (bufferized) module: the buffer that is not an --input is the output.
// RUN: tracejit-opt %s -p bufferize | tracejit-opt - --run --input arg0="[1, 2, 3]" --input arg1="[1, 1, 1]" | filecheck %s --check-prefix=LOW
// RUN: not tracejit-opt %s --run --input x="[1, 2, 3]" 2>&1 | filecheck %s --check-prefix=MISSING
// RUN: not tracejit-opt %s --run --input x="[1, 2]" --input y="[1, 2, 3]" 2>&1 | filecheck %s --check-prefix=SHAPE

builtin.module {
  func.func @f(%x: tensor<3xi32>, %y: tensor<3xi32>) -> (tensor<3xi32>, tensor<3xi32>) {
    %s = tj.add %x, %y : tensor<3xi32>
    %p = tj.mul %x, %y : tensor<3xi32>
    func.return %s, %p : tensor<3xi32>, tensor<3xi32>
  }
}

// CHECK:      result[0]: int32[3] = [11 18 33]
// CHECK-NEXT: result[1]: int32[3] = [ 10 -40  90]
// NPY:        result[0]: int32[3] = [4 5 6]
// NPY-NEXT:   result[1]: int32[3] = [0 0 0]
// LOW:        arg2: int32[3] = [2 3 4]
// LOW-NEXT:   arg3: int32[3] = [1 2 3]
// MISSING:    tracejit-opt: error: --run: missing --input y=FILE.npy
// SHAPE:      error: f: argument 0 has shape (2,), expected (3,)
