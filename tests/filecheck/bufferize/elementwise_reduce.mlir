// bufferize: tensor SSA values become buffers, every tj op one linalg.generic;
// the result is computed straight into the caller's output buffer, and an op whose
// input buffer dies with it writes in place (the mul reuses tanh's buffer).
// RUN: tracejit-opt %s -p bufferize | filecheck %s

builtin.module {
  func.func @f(%x: tensor<64x3xf32>, %y: tensor<3xf32>) -> tensor<3xf32> {
    %t = tj.tanh %x : tensor<64x3xf32>
    %b = tj.broadcast_in_dim %y, dims = [1] : tensor<3xf32> to tensor<64x3xf32>
    %m = tj.mul %t, %b : tensor<64x3xf32>
    %r = tj.reduce "sum" %m, axes = [0] : tensor<64x3xf32> to tensor<3xf32>
    func.return %r : tensor<3xf32>
  }
}

// CHECK:      func.func @f(%[[X:.*]]: memref<64x3xf32>, %[[Y:.*]]: memref<3xf32>, %[[OUT:.*]]: memref<3xf32>) {
// CHECK-NEXT:   %[[T:.*]] = memref.alloc() : memref<64x3xf32>
// CHECK-NEXT:   linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%[[X]] : memref<64x3xf32>) outs(%[[T]] : memref<64x3xf32>) {
// CHECK:          math.tanh
// CHECK:        %[[B:.*]] = memref.alloc() : memref<64x3xf32>
// CHECK-NEXT:   linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>]{{.*}} ins(%[[Y]] : memref<3xf32>) outs(%[[B]] : memref<64x3xf32>)
// CHECK-NOT:    memref.alloc
// CHECK:        linalg.generic {{.*}} ins(%[[T]], %[[B]] : memref<64x3xf32>, memref<64x3xf32>) outs(%[[T]] : memref<64x3xf32>)
// CHECK:          arith.mulf
// The reduction first fills the output with the identity, then accumulates into it.
// CHECK:        linalg.generic {{.*}} outs(%[[OUT]] : memref<3xf32>)
// CHECK:          arith.constant 0.000000e+00 : f32
// CHECK:        linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]} ins(%[[T]] : memref<64x3xf32>) outs(%[[OUT]] : memref<3xf32>)
// CHECK:          arith.addf %{{.*}}, %{{.*}} fastmath<reassoc> : f32
// CHECK:        memref.dealloc %[[T]] : memref<64x3xf32>
// CHECK-NEXT:   memref.dealloc %[[B]] : memref<64x3xf32>
// CHECK-NEXT:   func.return
