// Chapter 02: two cases of invalid IR, each with the error it must produce
// (tracejit-opt docs/tutorial/examples/invalid_cases.mlir --split-input-file --verify-diagnostics)
func.func @true_division(%x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{tj.div expects a float or complex tensor, got i32}}
  %r = tj.div %x, %x : tensor<4xi32>
  func.return %r : tensor<4xi32>
}

// -----

func.func @reduce_shape(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{tj.reduce result shape must be [3]}}
  %r = tj.reduce "sum" %x, axes = [0] : tensor<2x3xf32> to tensor<2xf32>
  func.return %r : tensor<2xf32>
}
