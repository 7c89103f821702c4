// canonicalize: transpose(transpose(x, p), q) -> transpose(x, p o q) (result dim j is x's
// dim p[q[j]]), and the identity composition -> x; reshape(reshape(x)) -> reshape(x), and
// back to x's own shape -> x. A single transpose/reshape stays.
// RUN: tracejit-opt %s -p canonicalize | filecheck %s

builtin.module {
  // CHECK-LABEL: func.func @transposes(%x: tensor<2x3x4xf32>)
  // CHECK-NEXT:    %[[T:.*]] = tj.transpose %x, permutation = [2, 1, 0] : tensor<2x3x4xf32> to tensor<4x3x2xf32>
  // CHECK-NEXT:    func.return %[[T]], %x : tensor<4x3x2xf32>, tensor<2x3x4xf32>
  func.func @transposes(%x: tensor<2x3x4xf32>) -> (tensor<4x3x2xf32>, tensor<2x3x4xf32>) {
    %a = tj.transpose %x, permutation = [1, 2, 0] : tensor<2x3x4xf32> to tensor<3x4x2xf32>
    %b = tj.transpose %a, permutation = [1, 0, 2] : tensor<3x4x2xf32> to tensor<4x3x2xf32>
    %c = tj.transpose %a, permutation = [2, 0, 1] : tensor<3x4x2xf32> to tensor<2x3x4xf32>
    func.return %b, %c : tensor<4x3x2xf32>, tensor<2x3x4xf32>
  }

  // CHECK-LABEL: func.func @reshapes(%x: tensor<2x6xi32>)
  // CHECK-NEXT:    %[[R:.*]] = tj.reshape %x : tensor<2x6xi32> to tensor<3x4xi32>
  // CHECK-NEXT:    func.return %[[R]], %x : tensor<3x4xi32>, tensor<2x6xi32>
  func.func @reshapes(%x: tensor<2x6xi32>) -> (tensor<3x4xi32>, tensor<2x6xi32>) {
    %a = tj.reshape %x : tensor<2x6xi32> to tensor<12xi32>
    %b = tj.reshape %a : tensor<12xi32> to tensor<3x4xi32>
    %c = tj.reshape %a : tensor<12xi32> to tensor<2x6xi32>
    func.return %b, %c : tensor<3x4xi32>, tensor<2x6xi32>
  }

  // CHECK-LABEL: func.func @single(%x: tensor<2x6xi32>)
  // CHECK-NEXT:    tj.transpose %x
  // CHECK-NEXT:    tj.reshape %x
  func.func @single(%x: tensor<2x6xi32>) -> (tensor<6x2xi32>, tensor<12xi32>) {
    %t = tj.transpose %x, permutation = [1, 0] : tensor<2x6xi32> to tensor<6x2xi32>
    %r = tj.reshape %x : tensor<2x6xi32> to tensor<12xi32>
    func.return %t, %r : tensor<6x2xi32>, tensor<12xi32>
  }
}
