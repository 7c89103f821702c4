// tj.search_sorted (np.searchsorted, np.digitize, histogram edges, np.interp) prints,
// parses back and prints the same; its verifier rejects what it cannot search.
// RUN: tracejit-opt %s | filecheck %s
// RUN: tracejit-opt %s | tracejit-opt | filecheck %s

builtin.module {
  func.func @search(%a: tensor<?xf64>, %v: tensor<5x2xf64>, %i: tensor<4xi32>, %w: tensor<i32>) {
    %l = tj.search_sorted "left" %a, %v : tensor<?xf64>, tensor<5x2xf64> -> tensor<5x2xi64>
    %r = tj.search_sorted "right" %i, %w : tensor<4xi32>, tensor<i32> -> tensor<i64>
    func.return
  }
}

// CHECK: tj.search_sorted "left" %{{.*}}, %{{.*}} : tensor<?xf64>, tensor<5x2xf64> -> tensor<5x2xi64>
// CHECK: tj.search_sorted "right" %{{.*}}, %{{.*}} : tensor<4xi32>, tensor<i32> -> tensor<i64>
