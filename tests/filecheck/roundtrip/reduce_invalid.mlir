// tj.reduce verifier: each RUN line swaps the valid op for one broken variant.
// RUN: sed -e 's/%OP/tj.reduce "argmax" %x, axes = [0] : tensor<4x3xf32> to tensor<3xf32>/' %s | not tracejit-opt - 2>&1 | filecheck %s --check-prefix=ARGTYPE
// RUN: sed -e 's/%OP/tj.reduce "any" %x, axes = [0] : tensor<4x3xf32> to tensor<3xi1>/' %s | not tracejit-opt - 2>&1 | filecheck %s --check-prefix=ANY
// RUN: sed -e 's/%OP/tj.reduce "sum" %b, axes = [0] : tensor<4x3xi1> to tensor<3xi1>/' %s | not tracejit-opt - 2>&1 | filecheck %s --check-prefix=BOOL
// RUN: sed -e 's/%OP/tj.reduce "argmin" %e, axes = [1] : tensor<2x0xf32> to tensor<2xi64>/' %s | not tracejit-opt - 2>&1 | filecheck %s --check-prefix=EMPTY
// RUN: sed -e 's/%OP/tj.reduce "sum" %x, axes = [0] : tensor<4x3xf32> to tensor<3xf64>/' %s | not tracejit-opt - 2>&1 | filecheck %s --check-prefix=KEEP

builtin.module {
  func.func @bad(%x: tensor<4x3xf32>, %b: tensor<4x3xi1>, %e: tensor<2x0xf32>) {
    %r = %OP
    func.return
  }
}

// ARGTYPE: tj.reduce argmax result element type must be i64
// ANY: tj.reduce any reduces i1 tensors to i1
// BOOL: tj.reduce sum is not defined on bool tensors
// EMPTY: tj.reduce argmin over a zero-size axis has no result
// KEEP: tj.reduce sum result element type must be f32
