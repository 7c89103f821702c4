// The TensorArray storage ops print, parse back and print the same text.
// RUN: tracejit-opt %s | tracejit-opt | filecheck %s

builtin.module {
  func.func @f(%a: tensor<5x3xf32>, %i: tensor<i64>, %v: tensor<3xf32>) -> tensor<3xi64> {
    %a2 = tj.set_row %a[%i], %v : tensor<5x3xf32>, tensor<i64>, tensor<3xf32>
    %g = tj.grow %a2, %i : tensor<5x3xf32>, tensor<i64> -> tensor<?x3xf32>
    %r = tj.get_row %g[%i] : tensor<?x3xf32>, tensor<i64> -> tensor<3xf32>
    %s = tj.take_rows %g, %i : tensor<?x3xf32>, tensor<i64> -> tensor<?x3xf32>
    %d = tj.export %s : tensor<?x3xf32> -> tensor<3xi64>
    func.return %d : tensor<3xi64>
  }
}

// CHECK:      %[[A2:.*]] = tj.set_row %{{.*}}[%[[I:.*]]], %{{.*}} : tensor<5x3xf32>, tensor<i64>, tensor<3xf32>
// CHECK-NEXT: %[[G:.*]] = tj.grow %[[A2]], %[[I]] : tensor<5x3xf32>, tensor<i64> -> tensor<?x3xf32>
// CHECK-NEXT: %{{.*}} = tj.get_row %[[G]][%[[I]]] : tensor<?x3xf32>, tensor<i64> -> tensor<3xf32>
// CHECK-NEXT: %[[S:.*]] = tj.take_rows %[[G]], %[[I]] : tensor<?x3xf32>, tensor<i64> -> tensor<?x3xf32>
// CHECK-NEXT: %[[D:.*]] = tj.export %[[S]] : tensor<?x3xf32> -> tensor<3xi64>
// CHECK-NEXT: func.return %[[D]] : tensor<3xi64>
