// tj.matmul with NumPy's shapes round-trips; mismatched shapes are rejected.
// RUN: tracejit-opt %s | filecheck %s
// RUN: tracejit-opt %s | tracejit-opt | filecheck %s
// RUN: sed -e 's/-> tensor<2x5x3x6xf64>/-> tensor<2x3x6xf64>/' %s | not tracejit-opt - 2>&1 | filecheck %s --check-prefix=BAD

builtin.module {
  func.func @shapes(%a: tensor<2x1x3x4xf64>, %b: tensor<5x4x6xf64>, %v: tensor<4xf64>) {
    %c = tj.matmul %a, %b : (tensor<2x1x3x4xf64>, tensor<5x4x6xf64>) -> tensor<2x5x3x6xf64>
    %d = tj.matmul %v, %b : (tensor<4xf64>, tensor<5x4x6xf64>) -> tensor<5x6xf64>
    %e = tj.matmul %a, %v : (tensor<2x1x3x4xf64>, tensor<4xf64>) -> tensor<2x1x3xf64>
    %f = tj.matmul %v, %v : (tensor<4xf64>, tensor<4xf64>) -> tensor<f64>
    func.return
  }
}

// CHECK:      tj.matmul %{{.*}}, %{{.*}} : (tensor<2x1x3x4xf64>, tensor<5x4x6xf64>) -> tensor<2x5x3x6xf64>
// CHECK-NEXT: tj.matmul %{{.*}}, %{{.*}} : (tensor<4xf64>, tensor<5x4x6xf64>) -> tensor<5x6xf64>
// CHECK-NEXT: tj.matmul %{{.*}}, %{{.*}} : (tensor<2x1x3x4xf64>, tensor<4xf64>) -> tensor<2x1x3xf64>
// CHECK-NEXT: tj.matmul %{{.*}}, %{{.*}} : (tensor<4xf64>, tensor<4xf64>) -> tensor<f64>
// BAD: tj.matmul shapes do not match: [2, 1, 3, 4] @ [5, 4, 6] -> [2, 3, 6]
