// bufferize: batched matmul loops over the result's dims then k; a batch dim of size 1
// broadcast against a larger one reads index 0, a missing leading batch dim is not read,
// and a 1-D operand has no m (lhs) or n (rhs) dim. On bool: and, then or.
// RUN: tracejit-opt %s -p bufferize | filecheck %s

builtin.module {
  func.func @f(%a: tensor<2x1x3x4xf32>, %b: tensor<5x4x6xf32>, %v: tensor<4xi32>, %w: tensor<2x4x6xi32>, %p: tensor<4xi1>, %q: tensor<4xi1>) -> (tensor<2x5x3x6xf32>, tensor<2x6xi32>, tensor<i1>) {
    %c = tj.matmul %a, %b : (tensor<2x1x3x4xf32>, tensor<5x4x6xf32>) -> tensor<2x5x3x6xf32>
    %d = tj.matmul %v, %w : (tensor<4xi32>, tensor<2x4x6xi32>) -> tensor<2x6xi32>
    %e = tj.matmul %p, %q : (tensor<4xi1>, tensor<4xi1>) -> tensor<i1>
    func.return %c, %d, %e : tensor<2x5x3x6xf32>, tensor<2x6xi32>, tensor<i1>
  }
}

// CHECK:      func.func @f(%[[A:[^:]*]]: memref<2x1x3x4xf32>, %[[B:[^:]*]]: memref<5x4x6xf32>, %[[V:[^:]*]]: memref<4xi32>, %[[W:[^:]*]]: memref<2x4x6xi32>, %[[P:[^:]*]]: memref<4xi1>, %[[Q:[^:]*]]: memref<4xi1>, %[[C:[^:]*]]: memref<2x5x3x6xf32>, %[[D:[^:]*]]: memref<2x6xi32>, %[[E:[^:]*]]: memref<i1>) {
// CHECK:        linalg.generic {{.*}} outs(%[[C]] : memref<2x5x3x6xf32>)
// CHECK:          arith.constant 0.000000e+00 : f32
// CHECK:        linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, 0, d2, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d1, d4, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%[[A]], %[[B]] : memref<2x1x3x4xf32>, memref<5x4x6xf32>) outs(%[[C]] : memref<2x5x3x6xf32>)
// CHECK:          arith.mulf
// CHECK-NEXT:     arith.addf %{{.*}}, %{{.*}} fastmath<reassoc> : f32
// CHECK:        linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[V]], %[[W]] : memref<4xi32>, memref<2x4x6xi32>) outs(%[[D]] : memref<2x6xi32>)
// CHECK:          arith.muli
// CHECK-NEXT:     arith.addi
// CHECK:        linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%[[P]], %[[Q]] : memref<4xi1>, memref<4xi1>) outs(%[[E]] : memref<i1>)
// CHECK:          arith.muli %{{.*}}, %{{.*}} : i1
// CHECK-NEXT:     arith.ori
