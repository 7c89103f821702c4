// bufferize: a tj.fused kernel is ONE linalg.generic over its domain, with no buffer
// for its intermediate values: a broadcast input is read through its indexing map, splat
// constants are scalars in the body, each body op is its scalar form; a kernel with
// reductions fills its outputs with the identities and accumulates into them.
// RUN: tracejit-opt %s -p bufferize | filecheck %s

builtin.module {
  func.func @parallel(%x: tensor<4x3xf32>, %m: tensor<3xf32>) -> (tensor<4x3xf32>, tensor<4x3xi1>) {
    %r, %c = tj.fused %x, %m : (tensor<4x3xf32>, tensor<3xf32>) -> (tensor<4x3xf32>, tensor<4x3xi1>) {
    ^bb0(%a: tensor<4x3xf32>, %b: tensor<3xf32>):
      %two = tj.constant dense<2.0> : tensor<4x3xf32>
      %mb = tj.broadcast_in_dim %b, dims = [1] : tensor<3xf32> to tensor<4x3xf32>
      %d = tj.sub %a, %mb : tensor<4x3xf32>
      %p = tj.mul %d, %two : tensor<4x3xf32>
      %lt = tj.compare "lt" %p, %a : tensor<4x3xf32> -> tensor<4x3xi1>
      tj.yield %p, %lt : tensor<4x3xf32>, tensor<4x3xi1>
    }
    func.return %r, %c : tensor<4x3xf32>, tensor<4x3xi1>
  }

  func.func @reduction(%x: tensor<64x3xf32>, %y: tensor<64x3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
    %s, %m = tj.fused %x, %y : (tensor<64x3xf32>, tensor<64x3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
    ^bb0(%a: tensor<64x3xf32>, %b: tensor<64x3xf32>):
      %d = tj.sub %a, %b : tensor<64x3xf32>
      %q = tj.mul %d, %d : tensor<64x3xf32>
      %sum = tj.reduce "sum" %q, axes = [0] : tensor<64x3xf32> to tensor<3xf32>
      %max = tj.reduce "max" %d, axes = [0] : tensor<64x3xf32> to tensor<3xf32>
      tj.yield %sum, %max : tensor<3xf32>, tensor<3xf32>
    }
    func.return %s, %m : tensor<3xf32>, tensor<3xf32>
  }
}

// CHECK-LABEL: func.func @parallel
// CHECK-SAME:    (%[[X:.*]]: memref<4x3xf32>, %[[M:.*]]: memref<3xf32>, %[[R:.*]]: memref<4x3xf32>, %[[C:.*]]: memref<4x3xi1>) {
// CHECK-NOT:     memref.alloc
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[X]], %[[M]] : memref<4x3xf32>, memref<3xf32>) outs(%[[R]], %[[C]] : memref<4x3xf32>, memref<4x3xi1>) {
// CHECK-NEXT:    ^{{.*}}(%[[A:.*]]: f32, %[[B:.*]]: f32, %{{.*}}: f32, %{{.*}}: i1):
// CHECK-NEXT:      %[[TWO:.*]] = arith.constant 2.000000e+00 : f32
// CHECK-NEXT:      %[[D:.*]] = arith.subf %[[A]], %[[B]] : f32
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %[[D]], %[[TWO]] : f32
// CHECK-NEXT:      %[[LT:.*]] = arith.cmpf olt, %[[P]], %[[A]] : f32
// CHECK-NEXT:      linalg.yield %[[P]], %[[LT]] : f32, i1
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return

// CHECK-LABEL: func.func @reduction
// CHECK-SAME:    (%[[X:.*]]: memref<64x3xf32>, %[[Y:.*]]: memref<64x3xf32>, %[[S:.*]]: memref<3xf32>, %[[M:.*]]: memref<3xf32>) {
// CHECK-NEXT:    linalg.generic {{.*}} outs(%[[S]] : memref<3xf32>)
// CHECK:           arith.constant 0.000000e+00 : f32
// CHECK:         linalg.generic {{.*}} outs(%[[M]] : memref<3xf32>)
// CHECK:           arith.constant 0xff800000 : f32
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]} ins(%[[X]], %[[Y]] : memref<64x3xf32>, memref<64x3xf32>) outs(%[[S]], %[[M]] : memref<3xf32>, memref<3xf32>) {
// CHECK-NEXT:    ^{{.*}}(%[[A:.*]]: f32, %[[B:.*]]: f32, %[[SACC:.*]]: f32, %[[MACC:.*]]: f32):
// CHECK-NEXT:      %[[D:.*]] = arith.subf %[[A]], %[[B]] : f32
// CHECK-NEXT:      %[[Q:.*]] = arith.mulf %[[D]], %[[D]] : f32
// CHECK-NEXT:      %[[SUM:.*]] = arith.addf %[[SACC]], %[[Q]] fastmath<reassoc> : f32
// CHECK-NEXT:      %[[MAX:.*]] = arith.maximumf %[[MACC]], %[[D]] : f32
// CHECK-NEXT:      linalg.yield %[[SUM]], %[[MAX]] : f32, f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
