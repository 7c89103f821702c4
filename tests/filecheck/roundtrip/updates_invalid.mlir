// Verifiers of the value-semantics updates: each case is rejected with its own message.
// RUN: tracejit-opt %s --split-input-file --verify-diagnostics

func.func @window_outside(%a: tensor<4xf32>, %v: tensor<2xf32>) {
  // expected-error @+1 {{tj.insert_slice of 2 elements from 3 by 1 leaves a dim of size 4}}
  %r = tj.insert_slice %v into %a, start = [3], step = [1] : tensor<2xf32> into tensor<4xf32>
  func.return
}

// -----

func.func @scatter_counts(%a: tensor<4xf32>, %v: tensor<3xf32>, %idx: tensor<2xi64>) {
  // expected-error @+1 {{tj.scatter needs one update per index}}
  %r = tj.scatter %v into %a[%idx], "IndexError: out of bounds" : tensor<3xf32> into tensor<4xf32>, tensor<2xi64>
  func.return
}

// -----

func.func @index_of_floats(%t: tensor<f32>) {
  // expected-error @+1 {{tj.to_index needs a 0-d integer tensor, got tensor<f32>}}
  %i = tj.to_index %t, size = 4, "IndexError: out of bounds" : tensor<f32>
  func.return
}
