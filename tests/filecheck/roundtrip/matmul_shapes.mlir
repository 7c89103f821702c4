// tj.matmul with NumPy's shapes round-trips (mismatched shapes: invalid_ops.mlir).
// RUN: tracejit-opt %s | filecheck %s
// RUN: tracejit-opt %s | tracejit-opt | filecheck %s

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
