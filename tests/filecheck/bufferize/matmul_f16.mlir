// bufferize: a float16 matmul is summed as NumPy's HALF_matmul / HALF_dot sum it: into a
// float32 scratch C from 0, each product of the float16s widened to float32 (exact), the
// sum without `reassoc` (in k order, so tile-matmul leaves it alone), then C rounded to
// float16 once into the result. With a j dim the loops are (batch..., i, k, j): k before j,
// so lower-to-loops walks rows of B and C innermost (vectorised) while each element still
// adds its products in k order. A float16 running sum would round after every product
// (2048 + 1 + 1 is 2048 in float16, 2050 in NumPy).
// RUN: tracejit-opt %s -p bufferize | filecheck %s
// RUN: tracejit-opt %s -p bufferize,tile-matmul,lower-to-loops | filecheck %s --check-prefix=LOOPS

builtin.module {
  func.func @matrix_matrix(%a: tensor<8x64xf16>, %b: tensor<64x4xf16>) -> tensor<8x4xf16> {
    %r = tj.matmul %a, %b : (tensor<8x64xf16>, tensor<64x4xf16>) -> tensor<8x4xf16>
    func.return %r : tensor<8x4xf16>
  }
  func.func @matrix_vector(%a: tensor<8x64xf16>, %v: tensor<64xf16>) -> tensor<8xf16> {
    %r = tj.matmul %a, %v : (tensor<8x64xf16>, tensor<64xf16>) -> tensor<8xf16>
    func.return %r : tensor<8xf16>
  }
  func.func @batched_dynamic(%a: tensor<?x?x64xf16>, %b: tensor<?x64x?xf16>) -> tensor<?x?x?xf16> {
    %r = tj.matmul %a, %b : (tensor<?x?x64xf16>, tensor<?x64x?xf16>) -> tensor<?x?x?xf16>
    func.return %r : tensor<?x?x?xf16>
  }
  func.func @float32_unchanged(%a: tensor<8x64xf32>, %b: tensor<64x4xf32>) -> tensor<8x4xf32> {
    %r = tj.matmul %a, %b : (tensor<8x64xf32>, tensor<64x4xf32>) -> tensor<8x4xf32>
    func.return %r : tensor<8x4xf32>
  }
}

// CHECK-LABEL: func.func @matrix_matrix
// CHECK-SAME:    (%[[A:.*]]: memref<8x64xf16>, %[[B:.*]]: memref<64x4xf16>, %[[OUT:.*]]: memref<8x4xf16>)
// CHECK:         %[[C:.*]] = memref.alloca() alignment = 64 : memref<8x4xf32>
// CHECK:         linalg.generic {{.*}} outs(%[[C]] : memref<8x4xf32>)
// CHECK:           arith.constant 0.000000e+00 : f32
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[A]], %[[B]] : memref<8x64xf16>, memref<64x4xf16>) outs(%[[C]] : memref<8x4xf32>)
// CHECK-NEXT:    ^bb0(%[[X:.*]]: f16, %[[Y:.*]]: f16, %[[ACC:.*]]: f32):
// CHECK-NEXT:      %[[XW:.*]] = arith.extf %[[X]] : f16 to f32
// CHECK-NEXT:      %[[YW:.*]] = arith.extf %[[Y]] : f16 to f32
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %[[XW]], %[[YW]] : f32
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK-NEXT:      linalg.yield %[[S]] : f32
// CHECK:         linalg.generic {{.*}} ins(%[[C]] : memref<8x4xf32>) outs(%[[OUT]] : memref<8x4xf16>)
// CHECK:           arith.truncf %{{.*}} : f32 to f16
// CHECK:         func.return

// CHECK-LABEL: func.func @matrix_vector
// CHECK:         %[[C:.*]] = memref.alloca() alignment = 64 : memref<8xf32>
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} {{.*}} outs(%[[C]] : memref<8xf32>)
// CHECK:           arith.addf %{{.*}}, %{{.*}} : f32
// CHECK:         arith.truncf %{{.*}} : f32 to f16

// CHECK-LABEL: func.func @batched_dynamic
// CHECK:         %[[C:.*]] = memref.alloc(%{{.*}}, %{{.*}}, %{{.*}}) : memref<?x?x?xf32>
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>], iterator_types = ["parallel", "parallel", "reduction", "parallel"]} {{.*}} outs(%[[C]] : memref<?x?x?xf32>)
// CHECK:         arith.truncf %{{.*}} : f32 to f16
// CHECK:         memref.dealloc %[[C]] : memref<?x?x?xf32>

// float32 products keep their reassociable sum into the result (tile-matmul tiles them).
// CHECK-LABEL: func.func @float32_unchanged
// CHECK-NOT:     memref.alloc
// CHECK:         iterator_types = ["parallel", "parallel", "reduction"]
// CHECK:         arith.addf %{{.*}}, %{{.*}} fastmath<reassoc> : f32
// CHECK-NOT:     arith.truncf

// tile-matmul leaves the float16 generic alone (its sum is not reassociable); lower-to-loops
// runs it as (i, k, j) with j innermost, each C element updated in k order.
// LOOPS-LABEL: func.func @matrix_matrix
// LOOPS:         memref.store %{{.*}} : memref<8x4xf32>
// LOOPS:         scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step
// LOOPS-NEXT:      scf.for %[[K:.*]] = %{{.*}} to %[[C64:.*]] step
// LOOPS-NEXT:        scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step
// LOOPS-NEXT:          %[[ACC:.*]] = memref.load %[[C:.*]][%[[I]], %[[J]]] : memref<8x4xf32>
// LOOPS:               %[[S:.*]] = arith.addf %[[ACC]], %{{.*}} : f32
// LOOPS-NEXT:          memref.store %[[S]], %[[C]][%[[I]], %[[J]]] : memref<8x4xf32>
// LOOPS:         arith.truncf
