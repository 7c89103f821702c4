// Verifiers of single ops: each case below is rejected with its own message.
// RUN: tracejit-opt %s --split-input-file --verify-diagnostics

func.func @exp_of_ints(%x: tensor<4xi32>) {
  // expected-error @+1 {{tj.exp expects a float or complex tensor, got i32}}
  %e = tj.exp %x : tensor<4xi32>
  func.return
}

// -----

func.func @broadcast_mismatch(%y: tensor<3xf32>) {
  // expected-error @+1 {{tj.broadcast_in_dim cannot broadcast dim of size 3 to 4}}
  %e = tj.broadcast_in_dim %y, dims = [0] : tensor<3xf32> to tensor<4xf32>
  func.return
}

// -----

func.func @matmul_shapes(%a: tensor<2x1x3x4xf64>, %b: tensor<5x4x6xf64>) {
  // expected-error @+1 {{tj.matmul shapes do not match: [2, 1, 3, 4] @ [5, 4, 6] -> [2, 3, 6]}}
  %c = tj.matmul %a, %b : (tensor<2x1x3x4xf64>, tensor<5x4x6xf64>) -> tensor<2x3x6xf64>
  func.return
}

// -----

func.func @poison_message(%x: tensor<1xf32>) {
  // expected-error @+1 {{tj.poison message must look like 'ErrorType: text'}}
  %p = tj.poison "index 1 is out of bounds for axis 0 with size 1 (f.py:4)" : tensor<1xf32>
  func.return
}
