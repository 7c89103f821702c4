// bufferize of constants: a splat becomes a fill, anything else a memref.global. "Splat"
// means bit-identical elements: [-0.0, 0.0] compares equal element-wise but is not a splat
// (filling it with -0.0 was a wrong answer the fuzzer found). xDSL's printer shows the
// global's value as `dense<-0.000000e+00>` (it compares elements with ==), but its bytes,
// which codegen reads, hold both zeros. A returned global is copied into its output once.
// RUN: tracejit-opt %s -p bufferize | filecheck %s

builtin.module {
  func.func @zeros() -> (tensor<2xf64>, tensor<2xf64>) {
    %mixed = tj.constant dense<[-0.000000e+00, 0.000000e+00]> : tensor<2xf64>
    %splat = tj.constant dense<-0.000000e+00> : tensor<2xf64>
    func.return %mixed, %splat : tensor<2xf64>, tensor<2xf64>
  }
}

// CHECK:      "memref.global"() <{sym_name = "[[G:.*]]", type = memref<2xf64>
// CHECK:      func.func @zeros(%[[A:.*]]: memref<2xf64>, %[[B:.*]]: memref<2xf64>) {
// CHECK-NEXT:   %[[GV:.*]] = memref.get_global @[[G]] : memref<2xf64>
// CHECK-NEXT:   linalg.generic {{.*}} ins(%[[GV]] : memref<2xf64>) outs(%[[A]] : memref<2xf64>)
// CHECK:        linalg.generic {{.*}} outs(%[[B]] : memref<2xf64>) {
// CHECK-NEXT:   ^{{.*}}(%{{.*}}: f64):
// CHECK-NEXT:     %[[Z:.*]] = arith.constant -0.000000e+00 : f64
// CHECK-NEXT:     linalg.yield %[[Z]] : f64
// CHECK-NEXT:   }
// CHECK-NEXT:   func.return
