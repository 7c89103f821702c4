// bufferize: `v @ m.T` and `a @ m.T` read `m` in place (no copy of the transpose): the
// product's B map reads m[j, k], so each result element is a dot product along a contiguous
// row of m (tile-matmul packs such a B from m's rows). A transpose something else reads
// too (here it is also returned) is copied as before, and so is one a batch of products
// reads.
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
  func.func @batched(%a: tensor<2x8x64xf32>, %m: tensor<32x64xf32>) -> tensor<2x8x32xf32> {
    %t = tj.transpose %m, permutation = [1, 0] : tensor<32x64xf32> to tensor<64x32xf32>
    %r = tj.matmul %a, %t : (tensor<2x8x64xf32>, tensor<64x32xf32>) -> tensor<2x8x32xf32>
    func.return %r : tensor<2x8x32xf32>
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
// CHECK-SAME:    (%[[A:.*]]: memref<8x64xf32>, %[[M:.*]]: memref<32x64xf32>, %[[OUT:.*]]: memref<8x32xf32>)
// CHECK-NOT:     memref.alloc
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>]
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], {{.*}} ins(%[[A]], %[[M]] : memref<8x64xf32>, memref<32x64xf32>)
// CHECK-NOT:     linalg.generic
// CHECK:         func.return

// CHECK-LABEL: func.func @batched
// CHECK:         memref.alloc() : memref<64x32xf32>
// CHECK:         affine_map<(d0, d1, d2, d3) -> (d3, d2)>
