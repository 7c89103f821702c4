// bufferize: matmul is a (parallel, parallel, reduction) generic over a zero-filled
// output (a small temporary: on the stack); a non-splat constant becomes a memref.global;
// a returned input is copied.
// RUN: tracejit-opt %s -p bufferize | filecheck %s

builtin.module {
  func.func @g(%x: tensor<2x3xf64>, %w: tensor<3x2xf64>) -> (tensor<2x2xf64>, tensor<2x3xf64>) {
    %c = tj.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf64>
    %m = tj.matmul %x, %w : (tensor<2x3xf64>, tensor<3x2xf64>) -> tensor<2x2xf64>
    %r = tj.add %m, %c : tensor<2x2xf64>
    func.return %r, %x : tensor<2x2xf64>, tensor<2x3xf64>
  }
}

// CHECK:      "memref.global"() <{sym_name = "__tj_constant_0", type = memref<2x2xf64>, initial_value = dense<{{\[}}[1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf64>
// CHECK:      func.func @g(%[[X:.*]]: memref<2x3xf64>, %[[W:.*]]: memref<3x2xf64>, %[[R:.*]]: memref<2x2xf64>, %[[XOUT:.*]]: memref<2x3xf64>) {
// CHECK:        %[[C:.*]] = memref.get_global @__tj_constant_0 : memref<2x2xf64>
// CHECK:        %[[M:.*]] = memref.alloca() alignment = 64 : memref<2x2xf64>
// CHECK:        linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[X]], %[[W]] : memref<2x3xf64>, memref<3x2xf64>) outs(%[[M]] : memref<2x2xf64>)
// CHECK:          arith.mulf
// CHECK-NEXT:     arith.addf %{{.*}}, %{{.*}} fastmath<reassoc> : f64
// CHECK:        linalg.generic {{.*}} ins(%[[M]], %[[C]] : memref<2x2xf64>, memref<2x2xf64>) outs(%[[R]] : memref<2x2xf64>)
// CHECK:        linalg.generic {{.*}} ins(%[[X]] : memref<2x3xf64>) outs(%[[XOUT]] : memref<2x3xf64>)
// CHECK-NOT:    memref.dealloc
// CHECK:        func.return
