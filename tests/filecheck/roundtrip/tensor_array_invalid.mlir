// The TensorArray ops' verifiers reject rows of the wrong type and non-integer indices.
// RUN: not tracejit-opt %s 2>&1 | filecheck %s --check-prefix=ROW
// RUN: sed -e 's/%a\[%i\], %v : tensor<5x3xf32>, tensor<i64>/%a[%j], %v : tensor<5x3xf32>, tensor<f32>/' %s | not tracejit-opt - 2>&1 | filecheck %s --check-prefix=INDEX
// RUN: sed -e 's/tj.set_row %a\[%i\], %v : tensor<5x3xf32>, tensor<i64>, tensor<4xf32>/tj.grow %a, %i : tensor<5x3xf32>, tensor<i64> -> tensor<5x3xf32>/' %s | not tracejit-opt - 2>&1 | filecheck %s --check-prefix=GROW

builtin.module {
  func.func @bad(%a: tensor<5x3xf32>, %i: tensor<i64>, %j: tensor<f32>, %v: tensor<4xf32>) {
    %a2 = tj.set_row %a[%i], %v : tensor<5x3xf32>, tensor<i64>, tensor<4xf32>
    func.return
  }
}

// ROW: tj.set_row: a row of tensor<5x3xf32> is tensor<3xf32>, got tensor<4xf32>
// INDEX: tj.set_row index must be a 0-d integer tensor, got tensor<f32>
// GROW: tj.grow result must have a dynamic row count, got tensor<5x3xf32>
