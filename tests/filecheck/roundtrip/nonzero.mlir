// tj.nonzero prints, parses back and prints the same text, for every rank (a 0-d input
// gives rows of no coordinates); tj.gather takes an index of a dynamic size.
// RUN: tracejit-opt %s | tracejit-opt | filecheck %s

builtin.module {
  func.func @f(%x: tensor<4x5xf32>, %s: tensor<i1>, %v: tensor<?xi8>) -> tensor<?xi8> {
    %c = tj.nonzero %x : tensor<4x5xf32> -> tensor<?x2xi64>
    %d = tj.nonzero %s : tensor<i1> -> tensor<?x0xi64>
    %e = tj.nonzero %v : tensor<?xi8> -> tensor<?x1xi64>
    %zero = tj.constant dense<0> : tensor<i64>
    %i = tj.gather %e[%zero], axis = 1, "IndexError: column" : (tensor<?x1xi64>, tensor<i64>) -> tensor<?xi64>
    %g = tj.gather %v[%i], axis = 0, "IndexError: mask" : (tensor<?xi8>, tensor<?xi64>) -> tensor<?xi8>
    func.return %g : tensor<?xi8>
  }
}

// CHECK:      %{{.*}} = tj.nonzero %{{.*}} : tensor<4x5xf32> -> tensor<?x2xi64>
// CHECK-NEXT: %{{.*}} = tj.nonzero %{{.*}} : tensor<i1> -> tensor<?x0xi64>
// CHECK-NEXT: %[[E:.*]] = tj.nonzero %{{.*}} : tensor<?xi8> -> tensor<?x1xi64>
// CHECK:      %[[I:.*]] = tj.gather %[[E]][%{{.*}}], axis = 1, "IndexError: column" : (tensor<?x1xi64>, tensor<i64>) -> tensor<?xi64>
// CHECK-NEXT: %{{.*}} = tj.gather %{{.*}}[%[[I]]], axis = 0, "IndexError: mask" : (tensor<?xi8>, tensor<?xi64>) -> tensor<?xi8>
