// tj.reduce verifier: each case below is one broken variant of the op.
// RUN: tracejit-opt %s --split-input-file --verify-diagnostics

func.func @argmax_type(%x: tensor<4x3xf32>) {
  // expected-error @+1 {{tj.reduce argmax result element type must be i64}}
  %r = tj.reduce "argmax" %x, axes = [0] : tensor<4x3xf32> to tensor<3xf32>
  func.return
}

// -----

func.func @any_of_floats(%x: tensor<4x3xf32>) {
  // expected-error @+1 {{tj.reduce any reduces i1 tensors to i1}}
  %r = tj.reduce "any" %x, axes = [0] : tensor<4x3xf32> to tensor<3xi1>
  func.return
}

// -----

func.func @sum_of_bools(%b: tensor<4x3xi1>) {
  // expected-error @+1 {{tj.reduce sum is not defined on bool tensors}}
  %r = tj.reduce "sum" %b, axes = [0] : tensor<4x3xi1> to tensor<3xi1>
  func.return
}

// -----

func.func @argmin_of_nothing(%e: tensor<2x0xf32>) {
  // expected-error @+1 {{tj.reduce argmin over a zero-size axis has no result}}
  %r = tj.reduce "argmin" %e, axes = [1] : tensor<2x0xf32> to tensor<2xi64>
  func.return
}

// -----

func.func @sum_keeps_the_type(%x: tensor<4x3xf32>) {
  // expected-error @+1 {{tj.reduce sum result element type must be f32}}
  %r = tj.reduce "sum" %x, axes = [0] : tensor<4x3xf32> to tensor<3xf64>
  func.return
}
