// Verifier failures are reported with the op and the reason, exit status 1.
// RUN: not tracejit-opt %s 2>&1 | filecheck %s

builtin.module {
  func.func @bad(%x: tensor<4x3xf32>) -> tensor<4xf32> {
    %r = tj.reduce "sum" %x, axes = [0] : tensor<4x3xf32> to tensor<4xf32>
    func.return %r : tensor<4xf32>
  }
}

// CHECK: error:
// CHECK: tj.reduce result shape must be [3]
