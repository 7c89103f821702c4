// A float16 matmul is exported as NumPy computes it: the products widened to f32 and summed
// in k order (no `reassoc`: an upstream compiler may not reorder it) from 0 in an f32
// tensor, which one more generic rounds to f16. A float16 running sum would round after
// every product.
// RUN: tracejit-opt %s -p export-linalg | filecheck %s

builtin.module {
  func.func @f(%a: tensor<8x64xf16>, %b: tensor<64x4xf16>) -> tensor<8x4xf16> {
    %r = tj.matmul %a, %b : (tensor<8x64xf16>, tensor<64x4xf16>) -> tensor<8x4xf16>
    func.return %r : tensor<8x4xf16>
  }
}

// CHECK-LABEL: func.func @f
// CHECK-SAME:    (%[[A:.*]]: tensor<8x64xf16>, %[[B:.*]]: tensor<64x4xf16>)
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<8x4xf32>) -> tensor<8x4xf32>
// CHECK:         %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[A]], %[[B]] : tensor<8x64xf16>, tensor<64x4xf16>) outs(%[[INIT]] : tensor<8x4xf32>)
// CHECK-NEXT:    ^bb0(%[[X:.*]]: f16, %[[Y:.*]]: f16, %[[ACC:.*]]: f32):
// CHECK-NEXT:      %[[XW:.*]] = arith.extf %[[X]] : f16 to f32
// CHECK-NEXT:      %[[YW:.*]] = arith.extf %[[Y]] : f16 to f32
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %[[XW]], %[[YW]] : f32
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK-NEXT:      linalg.yield %[[S]] : f32
// CHECK:         %[[R:.*]] = linalg.generic {{.*}} ins(%[[SUM]] : tensor<8x4xf32>) outs(%{{.*}} : tensor<8x4xf16>)
// CHECK:           arith.truncf %{{.*}} : f32 to f16
// CHECK:         func.return %[[R]] : tensor<8x4xf16>
