// bufferize of the other tj.cumulative kinds (np.fmax.accumulate, np.bitwise_xor.accumulate,
// and fmin, hypot, and, or): the same loops as a running sum, each element combined with
// the result before it by the scalar form of the kind's element-wise op (tj.fmax is
// arith.maxnumf, which ignores a NaN as NumPy's fmax does).
// RUN: tracejit-opt %s -p bufferize | filecheck %s

builtin.module {
  func.func @f(%x: tensor<6xf32>, %n: tensor<5xi16>) -> (tensor<6xf32>, tensor<5xi16>) {
    %m = tj.cumulative "fmax" %x, axis = 0 : tensor<6xf32>
    %l = tj.cumulative "xor" %n, axis = 0 : tensor<5xi16>
    func.return %m, %l : tensor<6xf32>, tensor<5xi16>
  }
}

// CHECK:      func.func @f(%[[X:.*]]: memref<6xf32>, %[[N:.*]]: memref<5xi16>, %[[M:.*]]: memref<6xf32>, %[[L:.*]]: memref<5xi16>) {
// CHECK:        scf.for
// CHECK:        scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:     %[[PREV:.*]] = arith.subi %[[K]], %{{.*}} : index
// CHECK-NEXT:     %[[ACC:.*]] = memref.load %[[M]][%[[PREV]]] : memref<6xf32>
// CHECK-NEXT:     %[[V:.*]] = memref.load %[[X]][%[[K]]] : memref<6xf32>
// CHECK-NEXT:     %[[R:.*]] = arith.maxnumf %[[ACC]], %[[V]] : f32
// CHECK-NEXT:     memref.store %[[R]], %[[M]][%[[K]]] : memref<6xf32>
// CHECK:        scf.for
// CHECK:        scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:     %[[PREV:.*]] = arith.subi %[[K]], %{{.*}} : index
// CHECK-NEXT:     %[[ACC:.*]] = memref.load %[[L]][%[[PREV]]] : memref<5xi16>
// CHECK-NEXT:     %[[V:.*]] = memref.load %[[N]][%[[K]]] : memref<5xi16>
// CHECK-NEXT:     %[[R:.*]] = arith.xori %[[ACC]], %[[V]] : i16
// CHECK-NEXT:     memref.store %[[R]], %[[L]][%[[K]]] : memref<5xi16>

