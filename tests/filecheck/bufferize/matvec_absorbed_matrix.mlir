// bufferize: a matrix computed element-wise (a tj.fused kernel) whose one use is a
// row-major matrix @ vector product our own kernel computes is computed in the product's
// loop: the kernel's inputs become the product generic's inputs, read through the kernel's
// maps, and each element is multiplied by x[k] where it is computed (no buffer for the
// matrix: PolyBench's gesummv, `alpha * A @ x`). A kernel with another use (returned too)
// is bufferized as before and the product reads its buffer.
// RUN: tracejit-opt %s -p bufferize | filecheck %s

builtin.module {
  func.func @scaled(%a: tensor<64x32xf64>, %s: tensor<f64>, %x: tensor<32xf64>) -> tensor<64xf64> {
    %m = tj.fused %a, %s : (tensor<64x32xf64>, tensor<f64>) -> tensor<64x32xf64> {
    ^bb0(%e: tensor<64x32xf64>, %c: tensor<f64>):
      %cb = tj.broadcast_in_dim %c, dims = [] : tensor<f64> to tensor<64x32xf64>
      %p = tj.mul %cb, %e : tensor<64x32xf64>
      tj.yield %p : tensor<64x32xf64>
    }
    %y = tj.matmul %m, %x : (tensor<64x32xf64>, tensor<32xf64>) -> tensor<64xf64>
    func.return %y : tensor<64xf64>
  }

  func.func @also_returned(%a: tensor<64x32xf64>, %x: tensor<32xf64>) -> (tensor<64xf64>, tensor<64x32xf64>) {
    %m = tj.fused %a : (tensor<64x32xf64>) -> tensor<64x32xf64> {
    ^bb0(%e: tensor<64x32xf64>):
      %p = tj.exp %e : tensor<64x32xf64>
      tj.yield %p : tensor<64x32xf64>
    }
    %y = tj.matmul %m, %x : (tensor<64x32xf64>, tensor<32xf64>) -> tensor<64xf64>
    func.return %y, %m : tensor<64xf64>, tensor<64x32xf64>
  }
}

// CHECK-LABEL: func.func @scaled
// CHECK-SAME:    (%[[A:.*]]: memref<64x32xf64>, %[[S:.*]]: memref<f64>, %[[X:.*]]: memref<32xf64>, %[[Y:.*]]: memref<64xf64>) {
// CHECK-NOT:     memref.alloc
// CHECK:         linalg.generic {{.*}} outs(%[[Y]] : memref<64xf64>)
// CHECK:           arith.constant 0.000000e+00 : f64
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%[[A]], %[[S]], %[[X]] : memref<64x32xf64>, memref<f64>, memref<32xf64>) outs(%[[Y]] : memref<64xf64>) {
// CHECK-NEXT:    ^{{.*}}(%[[E:.*]]: f64, %[[C:.*]]: f64, %[[XK:.*]]: f64, %[[ACC:.*]]: f64):
// CHECK-NEXT:      %[[M:.*]] = arith.mulf %[[C]], %[[E]] : f64
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %[[M]], %[[XK]] : f64
// CHECK-NEXT:      %[[SUM:.*]] = arith.addf %[[ACC]], %[[P]] fastmath<reassoc> : f64
// CHECK-NEXT:      linalg.yield %[[SUM]] : f64
// CHECK-NOT:     linalg.generic
// CHECK:         func.return

// CHECK-LABEL: func.func @also_returned
// CHECK-SAME:    (%[[A:.*]]: memref<64x32xf64>, %[[X:.*]]: memref<32xf64>, %[[Y:.*]]: memref<64xf64>, %[[M:.*]]: memref<64x32xf64>) {
// CHECK:         linalg.generic {{.*}} ins(%[[A]] : memref<64x32xf64>) outs(%[[M]] : memref<64x32xf64>)
// CHECK:           math.exp
// CHECK:         linalg.generic {{.*}} ins(%[[M]], %[[X]] : memref<64x32xf64>, memref<32xf64>) outs(%[[Y]] : memref<64xf64>)
