// The TensorArray ops' verifiers reject rows of the wrong type and non-integer indices.
// RUN: tracejit-opt %s --split-input-file --verify-diagnostics

func.func @row_type(%a: tensor<5x3xf32>, %i: tensor<i64>, %v: tensor<4xf32>) {
  // expected-error @+1 {{tj.set_row: a row of tensor<5x3xf32> is tensor<3xf32>, got tensor<4xf32>}}
  %a2 = tj.set_row %a[%i], %v : tensor<5x3xf32>, tensor<i64>, tensor<4xf32>
  func.return
}

// -----

func.func @float_index(%a: tensor<5x3xf32>, %j: tensor<f32>, %v: tensor<4xf32>) {
  // expected-error @+1 {{tj.set_row index must be a 0-d integer tensor, got tensor<f32>}}
  %a2 = tj.set_row %a[%j], %v : tensor<5x3xf32>, tensor<f32>, tensor<4xf32>
  func.return
}

// -----

func.func @grow_static(%a: tensor<5x3xf32>, %i: tensor<i64>) {
  // expected-error @+1 {{tj.grow result must have a dynamic row count, got tensor<5x3xf32>}}
  %a2 = tj.grow %a, %i : tensor<5x3xf32>, tensor<i64> -> tensor<5x3xf32>
  func.return
}
