// bufferize of tj.cumulative: scf.for loops, not a linalg.generic (each element needs the
// one before it). Per position of the dims before the axis, the first element along the
// axis is copied, every later one is the previous result combined with the input element,
// with the dims after the axis innermost; float16 adds in float32 and rounds every step.
// A dynamic axis reads its length with memref.dim (and min(n, 1) skips the copy when
// n == 0); a dead input's buffer is reused in place.
// RUN: tracejit-opt %s -p bufferize | filecheck %s

builtin.module {
  func.func @scans(%x: tensor<4x3xf16>, %d: tensor<?xi64>) -> (tensor<4x3xf16>, tensor<?xi64>) {
    %s = tj.cumulative "sum" %x, axis = 0 : tensor<4x3xf16>
    %p = tj.cumulative "prod" %d, axis = 0 : tensor<?xi64>
    func.return %s, %p : tensor<4x3xf16>, tensor<?xi64>
  }

  func.func @in_place(%x: tensor<2x50xf32>) -> tensor<2x50xf32> {
    %e = tj.exp %x : tensor<2x50xf32>
    %s = tj.cumulative "sum" %e, axis = 1 : tensor<2x50xf32>
    %r = tj.add %s, %x : tensor<2x50xf32>
    func.return %r : tensor<2x50xf32>
  }
}

// CHECK:      func.func @scans(%[[X:.*]]: memref<4x3xf16>, %[[D:.*]]: memref<?xi64>, %[[S:.*]]: memref<4x3xf16>, %[[P:.*]]: memref<?xi64>) {
// CHECK-NEXT:   %[[C4:.*]] = arith.constant 4 : index
// CHECK-NEXT:   %[[C3:.*]] = arith.constant 3 : index
// CHECK-NEXT:   %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:   %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:   %[[FIRST:.*]] = arith.minui %[[C4]], %[[C1]] : index
// CHECK-NEXT:   scf.for %[[K:.*]] = %[[C0]] to %[[FIRST]] step %[[C1]] {
// CHECK:          scf.for %[[J:.*]] = %{{.*}} to %[[C3]] step %{{.*}} {
// CHECK-NEXT:       %[[V:.*]] = memref.load %[[X]][%[[K]], %[[J]]] : memref<4x3xf16>
// CHECK-NEXT:       memref.store %[[V]], %[[S]][%[[K]], %[[J]]] : memref<4x3xf16>
// CHECK:        scf.for %[[K:.*]] = %[[C1]] to %[[C4]] step %[[C1]] {
// CHECK-NEXT:     %[[PREV:.*]] = arith.subi %[[K]], %[[C1]] : index
// CHECK:          scf.for %[[J:.*]] = %{{.*}} to %[[C3]] step %{{.*}} {
// CHECK-NEXT:       %[[ACC:.*]] = memref.load %[[S]][%[[PREV]], %[[J]]] : memref<4x3xf16>
// CHECK-NEXT:       %[[V:.*]] = memref.load %[[X]][%[[K]], %[[J]]] : memref<4x3xf16>
// CHECK-NEXT:       %[[A:.*]] = arith.extf %[[ACC]] : f16 to f32
// CHECK-NEXT:       %[[B:.*]] = arith.extf %[[V]] : f16 to f32
// CHECK-NEXT:       %[[SUM:.*]] = arith.addf %[[A]], %[[B]] : f32
// CHECK-NEXT:       %[[R:.*]] = arith.truncf %[[SUM]] : f32 to f16
// CHECK-NEXT:       memref.store %[[R]], %[[S]][%[[K]], %[[J]]] : memref<4x3xf16>
// CHECK:        %[[N:.*]] = memref.dim %[[D]], %{{.*}} : memref<?xi64>
// CHECK:        %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:   %[[FIRST:.*]] = arith.minui %[[N]], %[[ONE]] : index
// CHECK:        scf.for %[[K:.*]] = %[[ONE]] to %[[N]] step %[[ONE]] {
// CHECK-NEXT:     %[[PREV:.*]] = arith.subi %[[K]], %[[ONE]] : index
// CHECK-NEXT:     %[[ACC:.*]] = memref.load %[[P]][%[[PREV]]] : memref<?xi64>
// CHECK-NEXT:     %[[V:.*]] = memref.load %[[D]][%[[K]]] : memref<?xi64>
// CHECK-NEXT:     %[[PROD:.*]] = arith.muli %[[ACC]], %[[V]] : i64
// CHECK-NEXT:     memref.store %[[PROD]], %[[P]][%[[K]]] : memref<?xi64>
// CHECK:        func.return

// The scan writes into the exp's temporary, which nothing reads afterwards.
// CHECK:      func.func @in_place(
// CHECK:        %[[E:.*]] = memref.alloc() : memref<2x50xf32>
// CHECK:        math.exp
// CHECK-NOT:    memref.alloc
// CHECK:        memref.load %[[E]]
// CHECK:        memref.store %{{.*}}, %[[E]]
// CHECK:        memref.dealloc %[[E]] : memref<2x50xf32>
