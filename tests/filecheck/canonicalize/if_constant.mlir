// canonicalize: a tj.if on a constant predicate keeps only the taken branch.
// RUN: tracejit-opt %s -p canonicalize | filecheck %s

builtin.module {
  func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
    %t = tj.constant dense<true> : tensor<i1>
    %r = tj.if %t : tensor<i1> -> tensor<4xf32> {
      %e = tj.exp %a : tensor<4xf32>
      tj.yield %e : tensor<4xf32>
    } else {
      %n = tj.neg %a : tensor<4xf32>
      tj.yield %n : tensor<4xf32>
    }
    func.return %r : tensor<4xf32>
  }
}

// CHECK:      func.func @f(%[[A:.*]]: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:   %[[E:.*]] = tj.exp %[[A]] : tensor<4xf32>
// CHECK-NEXT:   func.return %[[E]] : tensor<4xf32>
// CHECK-NEXT: }
