// bufferize: `v @ m.T` reads `m` in place (no copy of the transpose): the product's B
// map reads m[j, k], so each result element is a dot product along a contiguous row of m.
// A transpose something else reads too (here a sum) is copied as before, and so is one
// a matrix @ matrix product reads (tile-matmul packs B anyway).
// RUN: tracejit-opt %s -p bufferize | filecheck %s

builtin.module {
  func.func @vector_matrix(%v: tensor<64xf32>, %m: tensor<32x64xf32>) -> tensor<32xf32> {
    %t = tj.transpose %m, permutation = [1, 0] : tensor<32x64xf32> to tensor<64x32xf32>
    %r = tj.matmul %v, %t : (tensor<64xf32>, tensor<64x32xf32>) -> tensor<32xf32>
    func.return %r : tensor<32xf32>
  }
  func.func @also_read_elsewhere(%v: tensor<64xf32>, %m: tensor<32x64xf32>) -> (tensor<32xf32>, tensor<64x32xf32>) {
    %t = tj.transpose %m, permutation = [1, 0] : tensor<32x64xf32> to tensor<64x32xf32>
    %r = tj.matmul %v, %t : (tensor<64xf32>, tensor<64x32xf32>) -> tensor<32xf32>
    func.return %r, %t : tensor<32xf32>, tensor<64x32xf32>
  }
  func.func @matrix_matrix(%a: tensor<8x64xf32>, %m: tensor<32x64xf32>) -> tensor<8x32xf32> {
    %t = tj.transpose %m, permutation = [1, 0] : tensor<32x64xf32> to tensor<64x32xf32>
    %r = tj.matmul %a, %t : (tensor<8x64xf32>, tensor<64x32xf32>) -> tensor<8x32xf32>
    func.return %r : tensor<8x32xf32>
  }
}

// CHECK-LABEL: func.func @vector_matrix
// CHECK-SAME:    (%[[V:.*]]: memref<64xf32>, %[[M:.*]]: memref<32x64xf32>, %[[OUT:.*]]: memref<32xf32>)
// CHECK-NOT:     memref.alloc
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>]
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%[[V]], %[[M]] : memref<64xf32>, memref<32x64xf32>) outs(%[[OUT]] : memref<32xf32>)
// CHECK-NOT:     linalg.generic
// CHECK:         func.return

// CHECK-LABEL: func.func @also_read_elsewhere
// CHECK-SAME:    (%[[V:.*]]: memref<64xf32>, %[[M:.*]]: memref<32x64xf32>, %{{.*}}: memref<32xf32>, %[[TOUT:.*]]: memref<64x32xf32>)
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], {{.*}} ins(%[[M]] : memref<32x64xf32>) outs(%[[TOUT]] : memref<64x32xf32>)
// CHECK:         ins(%[[V]], %[[TOUT]] : memref<64xf32>, memref<64x32xf32>)

// CHECK-LABEL: func.func @matrix_matrix
// CHECK:         %[[T:.*]] = memref.alloc() : memref<64x32xf32>
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK:         affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-SAME:    ins(%{{.*}}, %[[T]] : memref<8x64xf32>, memref<64x32xf32>)
