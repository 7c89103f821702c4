// bufferize: tj.erf (scipy.special.erf, math.erf) is math.erf on each element, computed in
// f32 for f16 (expand-math then replaces it with its polynomial, expand-math/erf_pow.mlir).
// RUN: tracejit-opt %s -p bufferize | filecheck %s

builtin.module {
  func.func @f(%x: tensor<3xf64>, %h: tensor<3xf16>) -> (tensor<3xf64>, tensor<3xf16>) {
    %r = tj.erf %x : tensor<3xf64>
    %s = tj.erf %h : tensor<3xf16>
    func.return %r, %s : tensor<3xf64>, tensor<3xf16>
  }
}

// CHECK:      func.func @f(%[[X:.*]]: memref<3xf64>, %[[H:.*]]: memref<3xf16>, %[[R:.*]]: memref<3xf64>, %[[S:.*]]: memref<3xf16>) {
// CHECK:        linalg.generic {{.*}} ins(%[[X]] : memref<3xf64>) outs(%[[R]] : memref<3xf64>)
// CHECK-NEXT:   ^bb0(%[[A:.*]]: f64, %{{.*}}: f64):
// CHECK-NEXT:     %[[E:.*]] = math.erf %[[A]] : f64
// CHECK-NEXT:     linalg.yield %[[E]] : f64
// CHECK:        linalg.generic {{.*}} ins(%[[H]] : memref<3xf16>) outs(%[[S]] : memref<3xf16>)
// CHECK-NEXT:   ^bb0(%[[B:.*]]: f16, %{{.*}}: f16):
// CHECK-NEXT:     %[[WIDE:.*]] = arith.extf %[[B]] : f16 to f32
// CHECK-NEXT:     %[[F:.*]] = math.erf %[[WIDE]] : f32
// CHECK-NEXT:     %[[NARROW:.*]] = arith.truncf %[[F]] : f32 to f16
// CHECK-NEXT:     linalg.yield %[[NARROW]] : f16
