// constant-fold works inside regions (a tj.if branch, a tj.while body) and leaves the
// region ops themselves to canonicalize.
// RUN: tracejit-opt %s -p constant-fold | filecheck %s

builtin.module {
  func.func @f(%p: tensor<i1>, %x: tensor<3xi32>) -> tensor<3xi32> {
    %r = tj.if %p : tensor<i1> -> tensor<3xi32> {
      %c = tj.constant dense<[1, 2, 3]> : tensor<3xi32>
      %m = tj.mul %c, %c : tensor<3xi32>
      tj.yield %m : tensor<3xi32>
    } else {
      tj.yield %x : tensor<3xi32>
    }
    func.return %r : tensor<3xi32>
  }
}

// CHECK:      tj.if %{{.*}} : tensor<i1> -> tensor<3xi32> {
// CHECK-NEXT:   %[[M:.*]] = tj.constant dense<[1, 4, 9]> : tensor<3xi32>
// CHECK-NEXT:   tj.yield %[[M]] : tensor<3xi32>
// CHECK-NEXT: } else {
