// canonicalize folds tj.set_row / tj.get_row on constants by evaluating them with NumPy,
// and leaves an out-of-range index alone (the frontend's tj.assert reports it at run time).
// RUN: tracejit-opt %s -p canonicalize | filecheck %s

builtin.module {
  func.func @f() -> (tensor<2x2xi32>, tensor<2xi32>, tensor<2x2xi32>) {
    %a = tj.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
    %i = tj.constant dense<1> : tensor<i64>
    %bad = tj.constant dense<5> : tensor<i64>
    %v = tj.constant dense<[7, 8]> : tensor<2xi32>
    %s = tj.set_row %a[%i], %v : tensor<2x2xi32>, tensor<i64>, tensor<2xi32>
    %r = tj.get_row %s[%i] : tensor<2x2xi32>, tensor<i64> -> tensor<2xi32>
    %o = tj.set_row %a[%bad], %v : tensor<2x2xi32>, tensor<i64>, tensor<2xi32>
    func.return %s, %r, %o : tensor<2x2xi32>, tensor<2xi32>, tensor<2x2xi32>
  }
}

// CHECK:      %[[S:[a-z0-9_]+]] = tj.constant dense<{{\[\[}}1, 2], [7, 8]]> : tensor<2x2xi32>
// CHECK:      %[[R:[a-z0-9_]+]] = tj.constant dense<[7, 8]> : tensor<2xi32>
// CHECK:      %[[O:[a-z0-9_]+]] = tj.set_row %{{.*}}[%{{.*}}], %{{.*}} : tensor<2x2xi32>, tensor<i64>, tensor<2xi32>
// CHECK:      func.return %[[S]], %[[R]], %[[O]]
