// tj.nonzero's verifier: one row of rank i64 coordinates per non-zero element, the row
// count dynamic.
// RUN: tracejit-opt %s --split-input-file --verify-diagnostics

func.func @static_rows(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{tj.nonzero of tensor<4x5xf32> gives tensor<?x2xi64>, not tensor<20x2xi64>}}
  %c = tj.nonzero %x : tensor<4x5xf32> -> tensor<20x2xi64>
  func.return
}

// -----

func.func @wrong_rank(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{tj.nonzero of tensor<4x5xf32> gives tensor<?x2xi64>, not tensor<?x1xi64>}}
  %c = tj.nonzero %x : tensor<4x5xf32> -> tensor<?x1xi64>
  func.return
}

// -----

func.func @wrong_dtype(%x: tensor<4xf32>) {
  // expected-error @+1 {{tj.nonzero of tensor<4xf32> gives tensor<?x1xi64>, not tensor<?x1xi32>}}
  %c = tj.nonzero %x : tensor<4xf32> -> tensor<?x1xi32>
  func.return
}
