// RUN: tracejit-opt %s -p bufferize | filecheck %s
// A function whose only use of a Variable was dead code (its reads were removed) still
// gets the Variable's buffer as its argument: the caller passes it.

func.func @f(%v: !tj.var<tensor<f64>>) {
  func.return
}

// CHECK:      func.func @f(%{{.*}}: memref<f64>) {
// CHECK-NEXT:   func.return
