// Verifiers of tj.search_sorted: each case is rejected with its own message.
// RUN: tracejit-opt %s --split-input-file --verify-diagnostics

func.func @side(%a: tensor<4xf32>, %v: tensor<2xf32>) {
  // expected-error @+1 {{tj.search_sorted side must be left or right, not 'middle'}}
  %r = tj.search_sorted "middle" %a, %v : tensor<4xf32>, tensor<2xf32> -> tensor<2xi64>
  func.return
}

// -----

func.func @types(%a: tensor<4xf32>, %v: tensor<2xf64>) {
  // expected-error @+1 {{tj.search_sorted needs one element type for both operands}}
  %r = tj.search_sorted "left" %a, %v : tensor<4xf32>, tensor<2xf64> -> tensor<2xi64>
  func.return
}

// -----

func.func @two_d(%a: tensor<2x2xf32>, %v: tensor<2xf32>) {
  // expected-error @+1 {{tj.search_sorted searches a 1-d tensor}}
  %r = tj.search_sorted "left" %a, %v : tensor<2x2xf32>, tensor<2xf32> -> tensor<2xi64>
  func.return
}

// -----

func.func @result(%a: tensor<4xf32>, %v: tensor<2xf32>) {
  // expected-error @+1 {{tj.search_sorted gives int64 positions in the values' shape}}
  %r = tj.search_sorted "left" %a, %v : tensor<4xf32>, tensor<2xf32> -> tensor<3xi64>
  func.return
}
